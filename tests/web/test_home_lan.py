"""Two homes on loopback with their own data dirs: one opens a table with a seat for a friend,
the other hears it under Open tables and joins it; both people play moves from their pages,
and the host's lobby shows the friend's name."""

from __future__ import annotations

import random
import re
import time
from pathlib import Path

from selenium.webdriver.common.by import By

from protocol import games
from tests.games.pick import quick_game
from tests.helpers import free_udp_port, timeout as scaled
from tests.web.home_fixtures import start_home
from tests.web.test_home import _table_url, _wait, create_table
from tests.web.test_play import STALE, _click_a_move, _open_decision


def test_a_friend_finds_the_table_under_open_tables_and_joins(tmp_path: Path, browser):
    port = free_udp_port()
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
        create_table(browser, host_url, quick_game(2), 2, ["friend"])
        _wait(browser, lambda d: d.find_element(By.ID, "invite").text)
        invite = browser.find_element(By.ID, "invite").text
        assert re.fullmatch(r"\d+\.\d+\.\d+\.\d+:\d+/[0-9a-f]{32}", invite), invite   # the host's real HOST:PORT/KEY

        browser.switch_to.window(friend_tab)
        deadline = time.monotonic() + scaled(60)
        while not browser.find_elements(By.CSS_SELECTOR, "#lobbies button.join"):
            assert time.monotonic() < deadline, "the table was never heard under Open tables"
            browser.find_element(By.ID, "look").click()
            _wait(browser, lambda d: d.find_element(By.ID, "looking").text == "", timeout=30)
        assert games.get(quick_game(2)).title in browser.find_element(By.ID, "lobbies").text
        browser.find_element(By.CSS_SELECTOR, "#lobbies button.join").click()
        friend_table = _table_url(browser, friend_url)

        browser.switch_to.window(host_tab)
        host_table = _table_url(browser, host_url)
        assert host_table != friend_table

        moves = {host_tab: 0, friend_tab: 0}
        seen: dict[str, str | None] = {host_tab: None, friend_tab: None}
        rng = random.Random(9)
        deadline = time.monotonic() + scaled(180)
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
            time.sleep(0.1)                  # a poll's pause inside the bounded wait
        assert min(moves.values()) >= 2, moves
        browser.switch_to.window(host_tab)
        names = browser.find_element(By.ID, "me").text + browser.page_source
        assert "Bea" in names
    finally:
        for home in (host, friend):
            home.proc.terminate()
            home.stop()


def test_through_a_broker_with_a_pasted_invite(tmp_path: Path, browser):
    """A table through a real Mosquitto that wants a login: the host's login stays out of its
    page; the friend pastes the invite (with her own login) and both play from their pages."""
    from tests.relay.broker import Broker

    broker = Broker(tmp_path, users={"ann": "ann-secret-1", "bea": "bea-secret-2"}).start()
    host, host_url = start_home(tmp_path, "ada")
    friend, friend_url = start_home(tmp_path, "bea")
    try:
        browser.get(host_url)
        _wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#game option"))
        browser.find_element(By.CSS_SELECTOR, "input[name=network][value=broker]").click()
        browser.find_element(By.ID, "relay").send_keys(broker.url)
        browser.find_element(By.ID, "relay-user").send_keys("ann")
        browser.find_element(By.ID, "relay-password").send_keys("ann-secret-1")
        create_table(browser, host_url, quick_game(2), 2, ["friend"], reload=False)
        invite = _wait(browser, lambda d: d.find_element(By.ID, "invite").text, timeout=60)
        assert invite.startswith("caravan+mqtt://127.0.0.1:") and "ann" not in invite
        browser.get(host_url)                                      # a fresh page: the login is not in it
        _wait(browser, lambda d: d.find_element(By.ID, "relay").get_attribute("value"))
        assert "ann-secret-1" not in browser.page_source
        assert browser.find_element(By.ID, "relay").get_attribute("value") == broker.url
        host_tab = browser.current_window_handle

        browser.switch_to.new_window("tab")
        friend_tab = browser.current_window_handle
        browser.get(friend_url)
        box = _wait(browser, lambda d: d.find_element(By.ID, "invite-in"))
        box.send_keys(invite.replace("caravan+mqtt://", "caravan+mqtt://bea:bea-secret-2@"))
        box.submit()
        _table_url(browser, friend_url)
        browser.switch_to.window(host_tab)
        _table_url(browser, host_url)                 # the reloaded home kept the lobby and opens the table

        moves = {host_tab: 0, friend_tab: 0}
        seen: dict[str, str | None] = {host_tab: None, friend_tab: None}
        rng = random.Random(11)
        deadline = time.monotonic() + scaled(180)
        while min(moves.values()) < 2 and time.monotonic() < deadline:
            for tab in moves:
                browser.switch_to.window(tab)
                try:                         # each decision once (not clicked again while it closes)
                    decision = _open_decision(browser)
                    if decision is not None and decision != seen[tab] and _click_a_move(browser, rng) != "none":
                        seen[tab], moves[tab] = decision, moves[tab] + 1
                except STALE:
                    pass
            time.sleep(0.1)                  # a poll's pause inside the bounded wait
        assert min(moves.values()) >= 2, moves
    finally:
        for home in (host, friend):
            home.proc.terminate()
            home.stop()
        broker.stop()
