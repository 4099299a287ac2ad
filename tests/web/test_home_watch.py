"""Watch from the home (issue 26 item 5): two homes on loopback; one opens a LAN table, the
other hears it under Open tables and clicks Watch: the spectator (node/app/watch.py, run in the
home's process) waits in the lobby, then opens the table page in spectator mode. A table
created with spectators off offers no Watch, and a watch asked anyway fails with one line."""

from __future__ import annotations

import re
import time
from pathlib import Path

from selenium.webdriver.common.by import By

from tests.games.pick import quick_game
from tests.helpers import free_udp_port, timeout as scaled
from tests.web.conftest import Node
from tests.web.home_fixtures import api, start_home
from tests.web.test_home import _table_url, _wait, create_table


def _hear(browser, button: str) -> None:
    """Look on the LAN until a lobby is listed (and `button` is in it)."""
    deadline = time.monotonic() + scaled(60)
    while not browser.find_elements(By.CSS_SELECTOR, f"#lobbies li[data-lobby] {button}".strip()):
        assert time.monotonic() < deadline, "the table was never heard under Open tables"
        browser.find_element(By.ID, "look").click()
        _wait(browser, lambda d: d.find_element(By.ID, "looking").text == "", timeout=30)


def _badge(driver) -> str:
    found = driver.find_elements(By.ID, "badge")
    return found[0].text if found else ""


def test_watch_a_table_heard_under_open_tables(tmp_path: Path, browser):
    port = free_udp_port()
    host, host_url = start_home(tmp_path, "ada", discovery_port=port)
    watcher, watcher_url = start_home(tmp_path, "cy", discovery_port=port)
    friend = None
    try:
        create_table(browser, host_url, quick_game(3), 3, ["friend", "bot:random"])
        invite = _wait(browser, lambda d: d.find_element(By.ID, "invite").text)

        browser.get(watcher_url)
        _hear(browser, "button.watch")
        browser.find_element(By.CSS_SELECTOR, "#lobbies button.watch").click()
        _wait(browser, lambda d: "waiting in lobby" in d.find_element(By.ID, "lobby-lines").text)
        assert browser.find_element(By.ID, "lobby-state").text.startswith("waiting")

        here = "127.0.0.1:" + invite.split(":", 1)[1]            # loopback only: the host's port and key
        friend = Node(["join", here, "--bot", "random", "--bind", "127.0.0.1"], tmp_path / "bea", tmp_path / "bea.log")
        page = _table_url(browser, watcher_url)
        assert page.startswith("http://127.0.0.1:")
        _wait(browser, lambda d: re.fullmatch(r"verified so far: \d+ messages", _badge(d)))
    finally:
        for node in (host, watcher, friend):
            if node is not None:
                node.proc.terminate()
                node.stop()


def test_a_table_without_spectators_offers_no_watch(tmp_path: Path, browser):
    port = free_udp_port()
    host, host_url = start_home(tmp_path, "ada", discovery_port=port)
    watcher, watcher_url = start_home(tmp_path, "cy", discovery_port=port)
    try:
        browser.get(host_url)
        _wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#game option"))
        browser.find_element(By.ID, "spectators").click()        # off: nobody may watch
        create_table(browser, host_url, quick_game(2), 2, ["friend"], reload=False)
        _wait(browser, lambda d: d.find_element(By.ID, "invite").text)

        browser.get(watcher_url)
        _hear(browser, "")
        lobby = browser.find_element(By.CSS_SELECTOR, "#lobbies li[data-lobby]")
        assert lobby.find_elements(By.CSS_SELECTOR, "button.join")
        assert not lobby.find_elements(By.CSS_SELECTOR, "button.watch")
        assert "no spectators" in lobby.text

        address = re.search(r" at (\S+:\d+) ", lobby.text).group(1)   # asked anyway (an old page): one line
        key = api(watcher_url, "watch", {"address": address})["table"]["key"]
        deadline = time.monotonic() + scaled(30)
        while (table := next(t for t in api(watcher_url, "state")["tables"] if t["key"] == key))["state"] != "failed":
            assert time.monotonic() < deadline, table
            time.sleep(0.2)                  # a poll's pause inside the bounded wait
        assert "does not allow spectators" in table["error"] and "\n" not in table["error"], table
    finally:
        for node in (host, watcher):
            node.proc.terminate()
            node.stop()
