"""Real Chromium, driven by selenium, against real nodes on loopback.

Locally the browser tests skip (with one line saying how to install Chromium) when it is
missing; with CI=true a missing browser fails the run, as the CI script installs it."""

from __future__ import annotations

import json
import os
import queue
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tests.helpers import missing_system_package, timeout as scaled
from tests.node.procs import ROOT, env, log_tail

INSTALL = "install Chromium to run the browser tests: apt-get install chromium chromium-driver"


def _driver_path() -> str | None:
    return shutil.which("chromedriver") or next(
        (p for p in ("/usr/bin/chromedriver", "/usr/lib/chromium/chromedriver") if os.path.exists(p)), None)


@pytest.fixture(scope="session")
def chrome_paths() -> tuple[str, str]:
    paths = find_chromium()
    if paths is None:
        missing_system_package("Chromium or its driver", INSTALL)
    return paths


def find_chromium() -> tuple[str, str] | None:
    """(browser, driver) paths, or None when either is missing."""
    browser, driver = shutil.which("chromium") or shutil.which("chromium-browser"), _driver_path()
    return (browser, driver) if browser and driver else None


def new_chromium(chrome_paths: tuple[str, str] | None = None, window: str = "1400,1000", performance: bool = False):
    """A headless Chromium for the tests, benchmarks and README pictures alike (`performance`:
    it also logs the WebSocket frames it receives)."""
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    chrome_paths = chrome_paths or find_chromium()
    options = Options()
    options.binary_location = chrome_paths[0]
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                f"--window-size={window}"):
        options.add_argument(arg)
    logs = {"browser": "ALL", "performance": "ALL"} if performance else {"browser": "ALL"}
    options.set_capability("goog:loggingPrefs", logs)
    driver = webdriver.Chrome(service=Service(chrome_paths[1]), options=options)
    driver.set_page_load_timeout(scaled(30))
    return driver


def _alive(driver) -> bool:
    try:
        driver.current_url
        return True
    except Exception:
        return False


def _clear(driver) -> None:
    """Leave nothing of a test to the next one: the page's storage, extra windows, cookies, the
    console log (reading it empties it) and the window size."""
    handles = driver.window_handles
    for handle in handles[1:]:
        driver.switch_to.window(handle)
        driver.close()
    driver.switch_to.window(handles[0])
    if driver.current_url.startswith(("http", "file")):
        driver.execute_script("try { localStorage.clear(); sessionStorage.clear(); } catch (e) {}")
    driver.delete_all_cookies()
    driver.get("about:blank")
    driver.get_log("browser")
    driver.set_window_size(1400, 1000)


@pytest.fixture(scope="session")
def chromium(chrome_paths):
    """One Chromium per test process (each xdist worker has its own), started on first use:
    starting one costs seconds, and most browser tests need only a clean page."""
    holder = {"driver": None}
    try:
        yield holder
    finally:
        _quit(holder)


def _quit(holder: dict) -> None:
    driver, holder["driver"] = holder["driver"], None
    if driver is not None:
        try:
            driver.quit()
        except Exception:
            pass


@pytest.fixture
def browser(chromium, chrome_paths):
    """A clean Chromium page for one test: the shared browser, emptied before and after (a new
    one when a test left it dead)."""
    if chromium["driver"] is not None and not _alive(chromium["driver"]):
        _quit(chromium)
    if chromium["driver"] is None:
        chromium["driver"] = new_chromium(chrome_paths)
    driver = chromium["driver"]
    _clear(driver)
    yield driver
    try:
        _clear(driver)
    except Exception:                       # broken by the test: the next test starts a new one
        _quit(chromium)


def console_errors(driver) -> list[str]:
    return [e["message"] for e in driver.get_log("browser") if e["level"] == "SEVERE"]


class Node:
    """A `caravan` node process whose JSON lines are read by a thread (never a full pipe)."""

    def __init__(self, args: list[str], data_dir: Path, log: Path):
        self.proc = subprocess.Popen([sys.executable, "-m", "node", *args, "--data-dir", str(data_dir), "--json"],
                                     stdout=subprocess.PIPE, stderr=log.open("ab"), text=True, env=env(),
                                     cwd=ROOT)
        self.log = log
        self.lines: queue.Queue = queue.Queue()
        self.seen: list[dict] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.proc.stdout:
            try:
                self.lines.put(json.loads(line))
            except ValueError:
                pass
        self.lines.put(None)

    def wait_for(self, kind: str, timeout: float = 30.0) -> dict:
        """The next line of type `kind` (lines of other types read meanwhile are kept, so lines
        can be waited for in any order), waiting `timeout` s (scaled) at most."""
        for i, msg in enumerate(self.seen):
            if msg.get("type") == kind:
                return self.seen.pop(i)
        deadline = time.monotonic() + scaled(timeout)
        while time.monotonic() < deadline:
            try:
                msg = self.lines.get(timeout=max(0.01, deadline - time.monotonic()))
            except queue.Empty:
                break
            if msg is None:
                raise AssertionError(f"node ended before a {kind!r} line (exit {self.proc.wait()})"
                                     f"{log_tail(self.proc, self.log)}")
            if msg.get("type") == kind:
                return msg
            self.seen.append(msg)
        raise AssertionError(f"no {kind!r} line within {scaled(timeout):g} s")

    def stop(self, timeout: float = 20.0) -> int:
        """The exit code, or -9 when it was still running `timeout` s (scaled) later and was
        killed (the callers that care assert the code)."""
        try:
            return self.proc.wait(timeout=scaled(timeout))
        except subprocess.TimeoutExpired:
            self.proc.kill()
            return -9


def web_game(tmp_path: Path, game: str, players: int, options: list[str] = (),
             extra: list[str] = ()) -> tuple[Node, list[Node], str]:
    """Seat 0 plays in the browser (--client web); the other seats are random bots."""
    host = Node(["host", game, "--players", str(players), "--client", "web", "--no-browser", "--no-discovery",
                 "--bind", "127.0.0.1", "--time-limit", "0", *sum((["-o", o] for o in options), []), *extra],
                tmp_path / "seat0", tmp_path / "seat0.log")
    port = host.wait_for("lobby")["port"]
    bots = [Node(["join", f"127.0.0.1:{port}", "--bot", "random", "--bind", "127.0.0.1", "--seed", str(i)],
                 tmp_path / f"seat{i}", tmp_path / f"seat{i}.log") for i in range(1, players)]
    url = host.wait_for("web", timeout=60)["url"]
    return host, bots, url
