"""Issue 36, options as controls, in Chromium: the home's New table draws each game option as
the control its kind asks for (protocol/games/<game>/options.py OPTIONS: a select with the
choices, a checkbox, a number field with its range, one select per seat), labelled and
described by its help; a preset fills them; the table created carries the typed values; a
hand-made bad value is refused in one clear line; at 390×844 nothing overflows and every
control is a 44 px target. The expectations come from OPTIONS itself, not from the page."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from pathlib import Path

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

from clients import games as presentations
from protocol import games
from tests.games.pick import installed
from tests.helpers import timeout as scaled, wait_until
from tests.web.home_fixtures import api, start_home
from tests.web.home_screenshots import fullest_preset
from tests.web.test_home_bugs36 import MEASURE


def _described(game: str):
    """The `options` module beside the game's engine (OPTIONS, OPTION_HELP, PRESETS), or None."""
    return games.options_module(game)


def _kinds(game: str) -> set[str]:
    return {option.kind for option in getattr(_described(game), "OPTIONS", {}).values()}


def _presets(game: str) -> dict[str, dict]:
    return getattr(_described(game), "PRESETS", None) or {}


GAMES = [game for game in installed() if getattr(_described(game), "OPTIONS", None)]
"""Every installed game that describes its options."""
TYPED = presentations.first([g for g in GAMES if _presets(g) and {"number", "choice"} <= _kinds(g)])
"""The house's first game with presets, a number and a choice: a preset, then controls changed by hand."""
SEATED = presentations.first([g for g in GAMES if "seats" in _kinds(g) and _presets(g)])
"""The house's first game with a per-seat choice (one select per seat) and presets."""
NUMBER_PRESET = presentations.first([g for g in GAMES if any(
    _described(g).OPTIONS[k].kind == "number" for preset in _presets(g).values() for k in preset)])
"""The house's first game with a preset that sets a number."""


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
    """A preset (the one that fills the most controls), then a number and a choice changed by
    hand: the request and the lobby (the node's state and the page) hold true, whole numbers and
    the game's own values, not their text; the request leaves the defaults out."""
    described, engine = _described(TYPED), games.get(TYPED)
    players = engine.min_players
    defaults = engine.default_options(players)
    preset = fullest_preset(TYPED)
    chosen = {**defaults, **described.PRESETS[preset]}
    number = next(k for k, o in described.OPTIONS.items() if o.kind == "number")
    span = described.OPTIONS[number]
    typed = next(v for v in (span.min + 1, span.min + 2) if v != chosen[number])
    choice = next(k for k, o in described.OPTIONS.items() if o.kind == "choice" and k not in described.PRESETS[preset])
    picked = next(c for c in described.OPTIONS[choice].choices if c != chosen[choice])
    words = list(described.OPTIONS[choice].labels) or [str(c) for c in described.OPTIONS[choice].choices]
    final = {**chosen, number: typed, choice: picked}
    home, url = start_home(tmp_path)
    try:
        browser.get(url)
        _show(browser, TYPED, players)
        Select(browser.find_element(By.ID, "preset")).select_by_visible_text(preset)
        for key, value in described.PRESETS[preset].items():
            if described.OPTIONS[key].kind == "yesno":
                assert browser.find_element(By.ID, f"opt-{key}").is_selected() is value, key
        box = browser.find_element(By.ID, f"opt-{number}")
        box.clear()
        box.send_keys(str(typed))
        Select(browser.find_element(By.ID, f"opt-{choice}")).select_by_visible_text(
            words[described.OPTIONS[choice].choices.index(picked)])
        assert Select(browser.find_element(By.ID, "preset")).first_selected_option.text == "choose…"  # edited
        for select in browser.find_elements(By.CSS_SELECTOR, "#seats select"):
            Select(select).select_by_value("friend")
        browser.execute_script(SPY)
        browser.find_element(By.ID, "create").click()
        sent = json.loads(_wait(browser, lambda d: d.execute_script("return window.sentToHost[0]")))
        # typed in the request itself (not text the node would read as JSON); the defaults left out
        assert sent["options"] == {k: v for k, v in final.items() if v != defaults[k]}, sent
        options = _lobby_options(url)
        assert options == final, options
        assert type(options[number]) is int
        assert all(type(options[k]) is bool for k, o in described.OPTIONS.items() if o.kind == "yesno")
        lobby = lambda d: d.find_element(By.ID, "lobby-game").text                        # noqa: E731
        _wait(browser, lambda d: f"{number.replace('_', ' ')} {typed}" in lobby(d))
        for key, value in final.items():                                                  # in words, not "true"
            if described.OPTIONS[key].kind == "yesno" and value is True:
                assert f"{key.replace('_', ' ')} yes" in lobby(browser), lobby(browser)
    finally:
        home.proc.terminate()
        home.stop()


def test_a_per_seat_choice_and_a_number_preset_reach_the_table(tmp_path: Path, browser):
    """A per-seat choice (e.g. Sabbat's peoples: one select per seat) and a preset that sets a
    number (e.g. Nomads' short game) arrive typed: a list of the game's values, an int, a bool."""
    seated = _described(SEATED)
    key = next(k for k, o in seated.OPTIONS.items() if o.kind == "seats")
    per_seat = seated.OPTIONS[key]
    preset = fullest_preset(SEATED)
    defaults = games.get(SEATED).default_options(2)
    home, url = start_home(tmp_path)
    try:
        browser.get(url)
        _show(browser, SEATED, 2)
        Select(browser.find_element(By.ID, "preset")).select_by_visible_text(preset)
        for seat, index in ((0, -1), (1, 0)):                              # after: a preset fills them all
            Select(browser.find_element(By.ID, f"opt-{key}-{seat}")).select_by_visible_text(per_seat.labels[index])
        Select(browser.find_element(By.CSS_SELECTOR, "#seats select")).select_by_value("friend")
        browser.execute_script(SPY)
        browser.find_element(By.ID, "create").click()
        sent = json.loads(_wait(browser, lambda d: d.execute_script("return window.sentToHost[0]")))
        picked = [per_seat.choices[-1], per_seat.choices[0]]
        expected = {k: v for k, v in {**defaults, **seated.PRESETS[preset], key: picked}.items() if v != defaults[k]}
        assert sent["options"] == expected, sent
        options = _lobby_options(url)
        assert options[key] == picked, options
        assert all(options[k] == v and type(options[k]) is type(v) for k, v in seated.PRESETS[preset].items()), options
        engine = games.get(NUMBER_PRESET)
        players = engine.min_players
        name, numbered = next((n, p) for n, p in _presets(NUMBER_PRESET).items()
                              if any(_described(NUMBER_PRESET).OPTIONS[k].kind == "number" for k in p))
        browser.get(url)
        _show(browser, NUMBER_PRESET, players)
        Select(browser.find_element(By.ID, "preset")).select_by_visible_text(name)
        for select in browser.find_elements(By.CSS_SELECTOR, "#seats select"):
            Select(select).select_by_value("friend")
        browser.find_element(By.ID, "create").click()
        wait_until(lambda: len([t for t in api(url, "state")["tables"] if t.get("lobby")]) == 2, scaled(60),
                   "the second lobby")
        options = _lobby_options(url)
        assert options == {**engine.default_options(players), **numbered}, options
        assert all(type(options[k]) is type(v) for k, v in numbered.items()), options
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


def _bad_values(game: str) -> list[tuple[str, dict, list[str]]]:
    """(game, options, words the error must hold): one value its description refuses per option,
    and an unknown option."""
    players = games.get(game).min_players
    cases = []
    for key, option in _described(game).OPTIONS.items():
        if option.kind == "number":
            bad = option.max + 1 if option.max is not None else option.min - 1
        elif option.kind == "seats":
            bad = [option.choices[0]] * players           # the same value twice
        else:
            bad = 1 if option.kind == "yesno" else "no-such-value"
        words = [f"option {key!r} must be {option.words(players)}"] + ([f"({option.rule})"] if option.rule else [])
        cases.append((game, {key: bad}, words))
    return cases + [(game, {"nonsense": True}, [f"unknown option 'nonsense' for {game}"])]


def test_a_hand_made_bad_value_is_refused_in_one_clear_line(tmp_path: Path):
    """The node checks what it is sent with the engine: out of range, wrong type, not a choice,
    unknown; each a 400 naming the option, what it must be and the rule, no table made."""
    home, url = start_home(tmp_path)
    try:
        for game, options, words in [case for game in GAMES for case in _bad_values(game)]:
            seats = ["friend"] * (games.get(game).min_players - 1)
            status, answer = _post(url, {"game": game, "seats": seats, "options": options})
            assert status == 400 and all(w in answer["error"] for w in words), (game, options, answer)
            assert "\n" not in answer["error"] and "Traceback" not in answer["error"]
        assert api(url, "state")["tables"] == []
        # the same values typed as on a command line still work (a hand-made request, as before)
        number = next(k for k, o in _described(TYPED).OPTIONS.items() if o.kind == "number")
        typed = _described(TYPED).OPTIONS[number].min + 1
        status, answer = _post(url, {"game": TYPED, "seats": ["friend"] * (games.get(TYPED).min_players - 1),
                                     "options": {number: str(typed)}})
        assert status == 200, answer
        assert _lobby_options(url)[number] == typed
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
