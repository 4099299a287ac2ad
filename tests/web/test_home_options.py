"""Issue 36, options as controls, in Chromium: the home's New table draws each game option as
the control its kind asks for (protocol/games/<game>/options.py OPTIONS: a select with the
choices, a checkbox, a number field with its range, one select per seat), labelled and
described by its help; a preset fills them; the table created carries the typed values; a
hand-made bad value is refused in one clear line; at 390×844 nothing overflows and every
control is a 44 px target. The expectations come from OPTIONS itself, not from the page."""

from __future__ import annotations

import importlib
import json
import urllib.error
import urllib.request
from pathlib import Path

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

from protocol import games
from tests.helpers import timeout as scaled, wait_until
from tests.web.home_fixtures import api, start_home
from tests.web.test_home_bugs36 import MEASURE

GAMES = ["sare", "sabbat", "nomads"]


def _described(game: str):
    return importlib.import_module(f"protocol.games.{game}.options")


def _wait(driver, what, timeout: float = 30.0):
    return WebDriverWait(driver, scaled(timeout), poll_frequency=0.1).until(what)


def _show(driver, game: str, players: int) -> None:
    """New table showing `game`'s controls for `players` (drawn after the node answered)."""
    _wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, f"#game option[value='{game}']"))
    Select(driver.find_element(By.ID, "game")).select_by_value(game)
    _wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, f"#options[data-game='{game}'] [id^='opt-']"))
    Select(driver.find_element(By.ID, "players")).select_by_visible_text(str(players))
    _wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, f"#options[data-game='{game}'][data-players='{players}']"))


def _label_of(driver, control) -> str:
    """The control's accessible label text (its <label for>), and its description (help)."""
    return driver.execute_script("const c = arguments[0];"
                                 "return [...c.labels].map((l) => l.textContent).join(' ');", control)


def _description(driver, control) -> str:
    return driver.execute_script("const ids = (arguments[0].getAttribute('aria-describedby') || '').split(' ');"
                                 "return ids.map((i) => document.getElementById(i)?.textContent || '').join(' ');",
                                 control)


def _selected_text(select) -> str:
    return Select(select).first_selected_option.text


def _check_controls(driver, game: str, players: int, values: dict) -> None:
    """Every option of `game` is drawn as its kind, showing `values` (typed, per OPTIONS)."""
    for key, option in _described(game).OPTIONS.items():
        value = values[key]
        words = key.replace("_", " ")
        if option.kind == "seats":
            group = driver.find_element(By.CSS_SELECTOR, f".option[data-key='{key}'] fieldset")
            assert group.find_element(By.TAG_NAME, "legend").text == words
            assert option.help in _description(driver, group)
            for seat in range(players):
                sel = driver.find_element(By.ID, f"opt-{key}-{seat}")
                assert sel.tag_name == "select" and f"seat {seat}" in _label_of(driver, sel)
                assert [o.text for o in Select(sel).options] == list(option.labels)
                assert _selected_text(sel) == option.labels[option.choices.index(value[seat])], (key, seat)
            assert not driver.find_elements(By.ID, f"opt-{key}-{players}")
            continue
        control = driver.find_element(By.ID, f"opt-{key}")
        assert words in _label_of(driver, control), key
        assert option.help in _description(driver, control), key
        if option.kind == "choice":
            assert control.tag_name == "select", key
            labels = list(option.labels) or [str(c) for c in option.choices]
            assert [o.text for o in Select(control).options] == labels, key
            assert _selected_text(control) == labels[option.choices.index(value)], key
        elif option.kind == "yesno":
            assert control.get_attribute("type") == "checkbox", key
            assert control.is_selected() is value, key
        elif option.kind == "number":
            assert control.get_attribute("type") == "number", key
            assert control.get_dom_attribute("min") == str(option.min), key
            assert control.get_dom_attribute("max") == (None if option.max is None else str(option.max)), key
            assert control.get_attribute("value") == str(value), key
            if option.max is not None:
                assert f"({option.min}-{option.max})" in _label_of(driver, control), key
        else:
            raise AssertionError(f"{game} {key}: unknown kind {option.kind}")


def test_each_games_options_are_drawn_as_their_kind_and_a_preset_fills_them(tmp_path: Path, browser):
    home, url = start_home(tmp_path)
    try:
        browser.get(url)
        for game in GAMES:
            engine = games.get(game)
            for players in (engine.min_players, engine.max_players):
                _show(browser, game, players)
                defaults = engine.default_options(players)
                _check_controls(browser, game, players, defaults)
            presets = _described(game).PRESETS
            assert browser.find_element(By.ID, "preset-row").is_displayed()
            assert _label_of(browser, browser.find_element(By.ID, "preset")) == "Preset"
            assert [o.text for o in Select(browser.find_element(By.ID, "preset")).options][1:] == list(presets)
            for name, preset in list(presets.items()) + list(reversed(presets.items())):
                Select(browser.find_element(By.ID, "preset")).select_by_visible_text(name)
                _check_controls(browser, game, players, {**defaults, **preset})
        assert "Traceback" not in browser.page_source
    finally:
        home.proc.terminate()
        home.stop()


SPY = """window.sentToHost = []; const fetched = window.fetch;
window.fetch = (url, opts) => { if (String(url).endsWith("api/host")) window.sentToHost.push(opts.body);
                                return fetched(url, opts); };"""
"""Keeps the body of each request the page sends to api/host."""


def _lobby_options(url: str) -> dict:
    def found():
        lobbies = [t["lobby"] for t in api(url, "state")["tables"] if t.get("lobby")]
        return lobbies and dict(map(tuple, lobbies[-1]["options"]))
    return wait_until(found, scaled(60), "the lobby's options")


def test_the_table_created_carries_the_typed_values(tmp_path: Path, browser):
    """A preset, then a control changed by hand: the lobby (the node's state and the page) holds
    true, whole numbers and the game's own strings, not their text."""
    home, url = start_home(tmp_path)
    try:
        browser.get(url)
        _show(browser, "sare", 2)
        Select(browser.find_element(By.ID, "preset")).select_by_visible_text("Architect variant")
        assert browser.find_element(By.ID, "opt-architect").is_selected()
        turns = browser.find_element(By.ID, "opt-turn_limit")
        turns.clear()
        turns.send_keys("45")
        Select(browser.find_element(By.ID, "opt-shoe")).select_by_visible_text("up")
        assert Select(browser.find_element(By.ID, "preset")).first_selected_option.text == "choose…"  # edited
        Select(browser.find_element(By.CSS_SELECTOR, "#seats select")).select_by_value("friend")
        browser.execute_script(SPY)
        browser.find_element(By.ID, "create").click()
        sent = json.loads(_wait(browser, lambda d: d.execute_script("return window.sentToHost[0]")))
        # typed in the request itself (not text the node would read as JSON); the defaults left out
        assert sent["options"] == {"architect": True, "turn_limit": 45, "shoe": "up"}, sent
        options = _lobby_options(url)
        assert options == {"architect": True, "scenario": "priest", "turn_limit": 45, "shoe": "up",
                           "pyramid_pick": "top"}, options
        assert type(options["turn_limit"]) is int and options["architect"] is True
        _wait(browser, lambda d: "architect yes" in d.find_element(By.ID, "lobby-game").text)   # in words, not "true"
        assert "turn limit 45" in browser.find_element(By.ID, "lobby-game").text
    finally:
        home.proc.terminate()
        home.stop()


def test_a_per_seat_choice_and_a_number_preset_reach_the_table(tmp_path: Path, browser):
    """Sabbat's peoples (one select per seat) and Nomads' short game (a number and a checkbox
    from a preset) arrive typed: a list of ints, an int, a bool."""
    home, url = start_home(tmp_path)
    try:
        browser.get(url)
        _show(browser, "sabbat", 2)
        Select(browser.find_element(By.ID, "preset")).select_by_visible_text("POWER cards variant")
        Select(browser.find_element(By.ID, "opt-peoples-0")).select_by_visible_text("Luserna")  # after: a preset
        Select(browser.find_element(By.ID, "opt-peoples-1")).select_by_visible_text("Argosola")  # fills them all
        Select(browser.find_element(By.CSS_SELECTOR, "#seats select")).select_by_value("friend")
        browser.execute_script(SPY)
        browser.find_element(By.ID, "create").click()
        sent = json.loads(_wait(browser, lambda d: d.execute_script("return window.sentToHost[0]")))
        assert sent["options"] == {"peoples": [3, 0], "powers": True}, sent
        options = _lobby_options(url)
        assert options["peoples"] == [3, 0] and options["powers"] is True, options
        browser.get(url)
        _show(browser, "nomads", 3)
        Select(browser.find_element(By.ID, "preset")).select_by_visible_text("Short game")
        for select in browser.find_elements(By.CSS_SELECTOR, "#seats select"):
            Select(select).select_by_value("friend")
        browser.find_element(By.ID, "create").click()
        wait_until(lambda: len([t for t in api(url, "state")["tables"] if t.get("lobby")]) == 2, scaled(60),
                   "the second lobby")
        options = _lobby_options(url)
        assert options["yellow_tiles"] == 2 and type(options["yellow_tiles"]) is int, options
        assert options["short_blue"] is True and options["lost_turns"] == 2, options
    finally:
        home.proc.terminate()
        home.stop()


def _post(url: str, body: dict) -> tuple[int, dict]:
    request = urllib.request.Request(url + "api/host", data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=scaled(30)) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def test_a_hand_made_bad_value_is_refused_in_one_clear_line(tmp_path: Path):
    """The node checks what it is sent with the engine: out of range, wrong type, not a choice,
    unknown; each a 400 naming the option, what it must be and the rule, no table made."""
    home, url = start_home(tmp_path)
    try:
        cases = [("sare", {"turn_limit": 500}, "option 'turn_limit' must be a whole number 1-200, not 500 (R-01)"),
                 ("sare", {"architect": 1}, "option 'architect' must be true or false, not 1"),
                 ("sare", {"scenario": "emperor"}, "option 'scenario' must be scribe, priest or pharaoh"),
                 ("nomads", {"yellow_tiles": -1}, "option 'yellow_tiles' must be a whole number 0-4, not -1 (N.12)"),
                 ("nomads", {"lost_turns": 3}, "option 'lost_turns' must be 2 or 1, not 3"),
                 ("sabbat", {"peoples": [1, 1]}, "option 'peoples' must be a list of different values"),
                 ("sabbat", {"nonsense": True}, "unknown option 'nonsense' for sabbat")]
        for game, options, words in cases:
            status, answer = _post(url, {"game": game, "seats": ["friend"] * (2 if game == "nomads" else 1),
                                         "options": options})
            assert status == 400 and words in answer["error"], (game, options, answer)
            assert "\n" not in answer["error"] and "Traceback" not in answer["error"]
        assert api(url, "state")["tables"] == []
        # the same values typed as on a command line still work (a hand-made request, as before)
        status, answer = _post(url, {"game": "sare", "seats": ["friend"], "options": {"turn_limit": "7"}})
        assert status == 200, answer
        assert _lobby_options(url)["turn_limit"] == 7
    finally:
        home.proc.terminate()
        home.stop()


def test_the_option_controls_fit_a_phone_with_44px_targets(tmp_path: Path, browser):
    home, url = start_home(tmp_path)
    try:
        browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                                {"width": 390, "height": 844, "deviceScaleFactor": 1, "mobile": True})
        for theme in ("light", "dark"):
            api(url, "settings", {"theme": theme})
            browser.get(url)
            for game in GAMES:
                _show(browser, game, games.get(game).max_players)
                found = browser.execute_script(MEASURE)
                assert found["viewport"] == 390, found
                assert found["scroll"] <= 390 and not found["wide"], (theme, game, found)
                assert not found["small"], (theme, game, found)
    finally:
        browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
        home.proc.terminate()
        home.stop()
