"""The home's New table says whether spectators read the table talk (issue 36: spectators
read the table talk, players may turn it off per table; `caravan host --spectators-chat`):
on by default, off with the box, and no talk without spectators at all."""

from __future__ import annotations

from pathlib import Path

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from tests.games.pick import some_game
from tests.helpers import timeout as scaled, wait_until
from tests.web.home_fixtures import api, start_home
from tests.web.test_home_options import _show


def _lobby(url: str) -> dict:
    def found():
        lobbies = [t["lobby"] for t in api(url, "state")["tables"] if t.get("lobby")]
        return lobbies and lobbies[-1]
    return wait_until(found, scaled(60), "the lobby")


def test_the_talk_switch_reaches_the_lobby(tmp_path: Path, browser):
    home, url = start_home(tmp_path)
    try:
        browser.get(url)
        _show(browser, some_game(players=2), 2)
        talk = browser.find_element(By.ID, "spectators-chat")
        assert talk.is_selected() and talk.is_enabled()                  # the default: they read it
        browser.find_element(By.ID, "spectators").click()                # no spectators: no talk to read
        assert not talk.is_enabled()
        browser.find_element(By.ID, "spectators").click()
        assert talk.is_enabled()
        talk.click()                                                     # spectators, but not the talk
        Select(browser.find_element(By.CSS_SELECTOR, "#seats select")).select_by_value("friend")
        browser.find_element(By.ID, "create").click()
        lobby = _lobby(url)
        assert lobby["spectators"] is True and lobby["spectators_chat"] is False, lobby
    finally:
        home.proc.terminate()
        home.stop()
