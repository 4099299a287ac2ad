"""Issue 33, a table's pace on the home: New table offers live or turn-based; turn-based swaps
the time limit in seconds for a time per move in hours or days, which the page sends as the
command line writes it; the lobby says the pace; the node refuses a bad pace or time per move
in one line (no table made)."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from pathlib import Path

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

from tests.helpers import timeout as scaled, wait_until
from tests.web.home_fixtures import api, start_home
from tests.web.test_home_rematch import _played_together   # noqa: F401 - also registers the fixture game

SPY = """window.sentToHost = []; const fetched = window.fetch;
window.fetch = (url, opts) => { if (String(url).endsWith("api/host")) window.sentToHost.push(opts.body);
                                return fetched(url, opts); };"""
"""Keeps the body of each request the page sends to api/host."""


def _post(url: str, body: dict) -> tuple[int, dict]:
    request = urllib.request.Request(url + "api/host", data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=scaled(30)) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def test_new_table_sends_a_turn_based_pace_and_the_lobby_shows_it(tmp_path: Path, browser):
    home, url = start_home(tmp_path)
    try:
        browser.get(url)
        wait = WebDriverWait(browser, scaled(30), poll_frequency=0.1)
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#game option[value='fixture']"))
        Select(browser.find_element(By.ID, "game")).select_by_value("fixture")
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#options[data-game='fixture']"))
        Select(browser.find_element(By.CSS_SELECTOR, "#seats select")).select_by_value("friend")
        assert browser.find_element(By.ID, "time-limit").is_displayed()
        assert not browser.find_element(By.ID, "move-time").is_displayed()
        Select(browser.find_element(By.ID, "pace")).select_by_value("turn-based")
        assert not browser.find_element(By.ID, "time-limit").is_displayed()      # a live table's seconds
        move = browser.find_element(By.ID, "move-time")
        assert move.is_displayed() and move.get_attribute("value") == "24"
        move.clear()
        move.send_keys("3")
        Select(browser.find_element(By.ID, "move-unit")).select_by_value("d")
        browser.execute_script(SPY)
        browser.find_element(By.ID, "create").click()
        sent = json.loads(wait.until(lambda d: d.execute_script("return window.sentToHost[0]")))
        assert sent["pace"] == "turn-based" and sent["move_time"] == "3d" and "time_limit" not in sent, sent

        def lobby() -> dict | None:
            found = [t["lobby"] for t in api(url, "state")["tables"] if t.get("lobby")]
            return found[-1] if found else None
        assert wait_until(lobby, scaled(60), "the lobby")["pace"] == "turn-based, 3 d per move"
        wait.until(lambda d: "turn-based, 3 d per move" in d.find_element(By.ID, "lobby-game").text)
        table = next(t for t in api(url, "state")["tables"] if t.get("lobby"))
        assert any("(turn-based, 3 d per move)" in line for line in table["lines"]), table["lines"]
    finally:
        home.proc.terminate()
        home.stop()


def test_a_live_table_from_the_page_says_no_pace(tmp_path: Path):
    """What the page sent before tables had a pace still makes a live table (its time limit)."""
    home, url = start_home(tmp_path)
    try:
        status, answer = _post(url, {"game": "fixture", "seats": ["friend"], "time_limit": 120})
        assert status == 200, answer
        lobby = wait_until(lambda: next((t["lobby"] for t in api(url, "state")["tables"] if t.get("lobby")), None),
                           scaled(60), "the lobby")
        assert lobby["pace"] is None
    finally:
        home.proc.terminate()
        home.stop()


def test_a_bad_pace_or_move_time_is_refused_in_one_line(tmp_path: Path):
    home, url = start_home(tmp_path)
    try:
        for body, words in [({"pace": "turn-based", "move_time": "30m"}, "out of range: 1h to 14d"),
                            ({"pace": "turn-based", "move_time": "15d"}, "out of range: 1h to 14d"),
                            ({"pace": "turn-based", "move_time": 86400}, "write it as 90m, 24h or 3d"),
                            ({"pace": "slow"}, "pace must be live or turn-based"),
                            ({"time_limit": 90000}, "must be 0 to 86400 s, not 90000")]:
            status, answer = _post(url, {"game": "fixture", "seats": ["friend"], **body})
            assert status == 400 and words in answer["error"], (body, answer)
            assert "\n" not in answer["error"]
        assert api(url, "state")["tables"] == []
    finally:
        home.proc.terminate()
        home.stop()
