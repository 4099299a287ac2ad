"""Driving the browser tab (build/tab) in headless Chromium: one way, shared by
tests/web/test_tab.py and `make bench` (tests/benchmarks/bench_tab.py).

`caravan tab --serve` serves the bundle; the page's `window.caravanTab` is the way in: `READY`
waits for Python in the worker, `call` runs one of the worker's ops."""

from __future__ import annotations

import base64
import importlib.util
import json
import subprocess
import sys
import threading
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Iterator

from tests.helpers import timeout as scaled
from tests.node.procs import ROOT, env

INSTALL = "install Node.js and npm, and reach the npm registry and PyPI, to build the tab: apt-get install nodejs npm"
TAB_PY = ROOT / "clients" / "tab" / "py"

READY = """const done = arguments[arguments.length - 1];
window.caravanTab.ready.then(
  (t) => done({ok: true, info: t.info, loadMs: t.loadMs, bundle: t.bundleHash, sinceNavigationMs: performance.now()}),
  (e) => done({ok: false, error: String(e && e.message || e)}));"""

OFFLINE = """const done = arguments[arguments.length - 1];
window.caravanTab.offline.then(
  (bundle) => done({ok: true, bundle}), (e) => done({ok: false, error: String(e && e.message || e)}));"""

CALL = """const [op, b64, done] = arguments;
const data = b64 === null ? undefined : Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
let ticks = 0;
const timer = setInterval(() => ticks++, 5);
const start = performance.now();
window.caravanTab.call(op, data).then(
  (r) => { clearInterval(timer); done({ok: true, result: r, ticks, ms: performance.now() - start}); },
  (e) => { clearInterval(timer); done({ok: false, error: String(e && e.message || e)}); });"""


@contextmanager
def tab_server(bundle_hash: str, within: float = 60) -> Iterator[str]:
    """`caravan tab --serve` on a free port, serving the bundle `bundle_hash`: its URL.
    Stopped on leaving, as specs/cli.md says (exit 130)."""
    proc = subprocess.Popen([sys.executable, "-m", "node", "tab", "--serve", "--port", "0", "--json"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env(), cwd=ROOT)
    try:
        info = json.loads(_first_line(proc, scaled(within)))
        assert info["type"] == "tab_serving" and info["url"].startswith("http://127.0.0.1:"), info
        assert info["bundle"] == bundle_hash, info
        yield info["url"]
        proc.terminate()
        assert proc.wait(scaled(10)) == 130, proc.stderr.read()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def _first_line(proc: subprocess.Popen, within: float) -> str:
    box: list[str] = []
    reader = threading.Thread(target=lambda: box.append(proc.stdout.readline()), daemon=True)
    reader.start()
    reader.join(within)
    if not box or not box[0]:
        proc.kill()
        raise AssertionError(f"`caravan tab --serve` printed nothing: {proc.stderr.read()[-2000:]}")
    return box[0]


def open_tab(driver, url: str) -> dict:
    """Load the page and wait for Python in its worker: what `ready` gave (ok, info, loadMs:
    the worker's start, sinceNavigationMs: from the navigation to Python ready, bundle)."""
    driver.get(url)
    return driver.execute_async_script(READY)


def call(driver, op: str, data: bytes | None = None) -> dict:
    """The worker's `op` on `data`: {ok, result, ms, ticks (the page's timer kept firing)}."""
    answer = driver.execute_async_script(CALL, op, None if data is None else base64.b64encode(data).decode())
    assert answer["ok"], answer
    return answer


def click_a_move(page) -> bool:
    """When the page shows a decision, click its first move (or its first group's)."""
    from selenium.webdriver.common.by import By

    if page.find_element(By.ID, "decide").get_attribute("hidden") is not None:
        return False
    buttons = page.find_elements(By.CSS_SELECTOR, "#moves button.move") or page.find_elements(
        By.CSS_SELECTOR, "#groups button.group")
    if not buttons:
        return False
    try:
        buttons[0].click()
    except Exception:              # noqa: BLE001 - the decision went away meanwhile: the next poll sees
        return False
    return True


def tab_module(name: str, directory: Path = TAB_PY) -> ModuleType:
    """The tab's Python module `name` (clients/tab/py) for CPython, loaded by path: its folder
    also holds the tab's `nacl` shim, which must not shadow PyNaCl here."""
    spec = importlib.util.spec_from_file_location(f"{name}_cpython", directory / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def forget_offline_copy(driver) -> None:
    """Unregister the page origin's service worker and drop its caches (a later server may get
    the same port, hence the same origin)."""
    driver.execute_async_script("""const done = arguments[arguments.length - 1];
        Promise.all([navigator.serviceWorker.getRegistrations().then((rs) => Promise.all(rs.map((r) => r.unregister()))),
                     caches.keys().then((ks) => Promise.all(ks.map((k) => caches.delete(k))))]).then(() => done(), () => done());""")
