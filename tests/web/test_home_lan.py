"""Two homes on loopback with their own data dirs: one opens a table with a seat for a friend,
the other hears it under Open tables and joins it; both people play moves from their pages,
and the host's lobby shows the friend's name."""

from __future__ import annotations

import random
import re
import socket
import time
from pathlib import Path

from selenium.webdriver.common.by import By

from tests.web.home_fixtures import start_home
from tests.web.test_home import _table_url, _wait, create_table
from tests.web.test_play import STALE, _click_a_move, _open_decision


def _free_udp_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_a_friend_finds_the_table_under_open_tables_and_joins(tmp_path: Path, browser):
    port = _free_udp_port()
    host, host_url = start_home(tmp_path, "ada", discovery_port=port)
    friend, friend_url = start_home(tmp_path, "bea", discovery_port=port)
    try:
        browser.get(friend_url)                                   # the friend names herself first
        name = _wait(browser, lambda d: d.find_element(By.ID, "name"))
        name.send_keys("Bea <i>")
        browser.find_element(By.CSS_SELECTOR, "#settings-form button").click()
        _wait(browser, lambda d: d.find_element(By.ID, "saved").text == "saved")
        friend_tab = browser.current_window_handle

        browser.switch_to.new_window("tab")
        host_tab = browser.current_window_handle
        create_table(browser, host_url, "sabbat", 2, ["friend"])
        _wait(browser, lambda d: d.find_element(By.ID, "invite").text)
        invite = browser.find_element(By.ID, "invite").text
        assert re.fullmatch(r"\d+\.\d+\.\d+\.\d+:\d+", invite), invite         # the host's real HOST:PORT

        browser.switch_to.window(friend_tab)
        deadline = time.monotonic() + 60
        while not browser.find_elements(By.CSS_SELECTOR, "#lobbies button.join"):
            assert time.monotonic() < deadline, "the table was never heard under Open tables"
            browser.find_element(By.ID, "look").click()
            _wait(browser, lambda d: d.find_element(By.ID, "looking").text == "", timeout=30)
        assert "Sabbat Magica" in browser.find_element(By.ID, "lobbies").text
        browser.find_element(By.CSS_SELECTOR, "#lobbies button.join").click()
        friend_table = _table_url(browser, friend_url)

        browser.switch_to.window(host_tab)
        host_table = _table_url(browser, host_url)
        assert host_table != friend_table

        moves = {host_tab: 0, friend_tab: 0}
        seen: dict[str, str | None] = {host_tab: None, friend_tab: None}
        rng = random.Random(9)
        deadline = time.monotonic() + 180
        while min(moves.values()) < 2 and time.monotonic() < deadline:
            for tab in (host_tab, friend_tab):
                browser.switch_to.window(tab)
                if browser.find_element(By.ID, "result").is_displayed():
                    moves[tab] = max(moves[tab], 2)
                    continue
                try:
                    decision = _open_decision(browser)
                    if decision is not None and decision != seen[tab] and _click_a_move(browser, rng) != "none":
                        seen[tab], moves[tab] = decision, moves[tab] + 1
                except STALE:
                    pass
            time.sleep(0.1)
        assert min(moves.values()) >= 2, moves
        browser.switch_to.window(host_tab)
        names = browser.find_element(By.ID, "me").text + browser.page_source
        assert "Bea" in names
    finally:
        for home in (host, friend):
            home.proc.terminate()
            home.stop()
