"""The home (`caravan app`) in a real Chromium: a table created from the page with two bots is
played to the end by clicking and its transcript verifies (short games, their options set on the
page: these tests are about the home, tests/web/test_play.py plays whole games); Your games offers Replay,
Transcript and Forget (to the trash folder); bad input is one line on the page."""

from __future__ import annotations

import time
from pathlib import Path

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

from protocol import games, genesis as G, transcript
from protocol.verify import verify_bytes
from tests.games.pick import games_with, installed, short_game
from tests.helpers import timeout as scaled
from tests.web.conftest import console_errors
from tests.web.home_fixtures import start_home
from tests.web.test_play import play_by_clicking


def _closed_port() -> int:
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


GAME = next(g for g in games_with(players=3) if short_game(g)[1])
"""The first installed game for 3 whose hooks' short game sets options (Play again must keep them)."""
SHORT = {key: str(value).lower() if isinstance(value, bool) else str(value) for key, value in short_game(GAME)[1].items()}
"""Its short game's options as the page's controls show them."""
NUMBERED = next(g for g in installed() if any(o.kind == "number" for o in games.options_module(g).OPTIONS.values()))
"""An installed game with a number option (an empty number box is refused)."""


def _wait(driver, what, timeout: float = 60.0):
    """WebDriverWait for `what`, `timeout` s (scaled by CARAVAN_TEST_TIMEOUT_SCALE) at most."""
    return WebDriverWait(driver, scaled(timeout), poll_frequency=0.1).until(what)


def create_table(driver, url: str, game: str, players: int, seats: list[str], reload: bool = True,
                 options: dict[str, str] | None = None) -> None:
    """Fill New table and create it: seat 0 is the person, `seats` the others' choices,
    `options` typed into the game's option boxes."""
    if reload:
        driver.get(url)
    _wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#game option"))
    Select(driver.find_element(By.ID, "game")).select_by_value(game)
    _wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, f"#options[data-game='{game}'] [id^='opt-']"))
    Select(driver.find_element(By.ID, "players")).select_by_visible_text(str(players))
    _wait(driver, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#seats select")) == players - 1)
    for select, choice in zip(driver.find_elements(By.CSS_SELECTOR, "#seats select"), seats):
        Select(select).select_by_value(choice)
    options = options or {}
    _wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, f"#options[data-game='{game}'][data-players='{players}']")
          and all(d.find_elements(By.ID, f"opt-{k}") for k in options))
    # the option controls are drawn again when a fetch for the player count returns: filled in
    # the same script as the click, so no redrawing can come between (a box's text, a checkbox's
    # "true"/"false", a select's visible choice)
    driver.execute_script("for (const [k, v] of Object.entries(arguments[0])) {"
                          " const c = document.getElementById(`opt-${k}`);"
                          " if (c.type === 'checkbox') c.checked = v === 'true';"
                          " else if (c.tagName === 'SELECT') c.value = [...c.options].find((o) => o.text === v).value;"
                          " else c.value = v; }"
                          "document.getElementById('create').click();", options)


def _table_url(driver, home_url: str, timeout: float = 90.0) -> str:
    token = "/" + home_url.split("/")[3] + "/"
    _wait(driver, lambda d: token not in d.current_url, timeout=timeout)
    return driver.current_url


def test_a_table_with_two_bots_from_the_home_then_play_again(tmp_path: Path, browser):
    home, url = start_home(tmp_path)
    try:
        create_table(browser, url, GAME, 3, ["bot:heuristic", "bot:random"], options=SHORT)
        first = _table_url(browser, url)
        stats = play_by_clicking(browser, first, seed=3, timeout=300, reload_after=1000)
        # the person clicked moves (forced ones are taken for them, so how many varies: a
        # short game left only 3 open decisions to seat 0 once)
        assert stats["decisions"] > 0
        assert "Won by" in browser.find_element(By.ID, "result-text").text
        assert console_errors(browser) == []
        _wait(browser, lambda d: d.find_element(By.ID, "play-again").is_displayed())
        browser.find_element(By.ID, "play-again").click()
        second = _table_url(browser, url)                         # home#again=ID, then the new table
        assert second != first
        stats = play_by_clicking(browser, second, seed=4, timeout=300, reload_after=1000)
        assert "Won by" in browser.find_element(By.ID, "result-text").text
        browser.get(url)
        _wait(browser, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#game-list a.transcript")) == 2, timeout=60)
        ids = [r.get_attribute("data-game") for r in browser.find_elements(By.CSS_SELECTOR, "#game-list tr")]
        genesis, played = [], []
        for game_id in ids:
            data = (tmp_path / "home" / "games" / game_id / "transcript.caravan").read_bytes()
            report = verify_bytes(data)
            assert report.ok and not report.abandoned_by
            genesis.append((report.game, len(report.result["scores"])))
            played.append(G.parse(transcript.load(data)[0]).options)
        defaults = games.get(GAME).default_options(3)          # Play again keeps the options
        assert genesis == [(GAME, 3), (GAME, 3)]
        assert all(options == {**defaults, **short_game(GAME)[1]} for options in played)
        browser.find_element(By.CSS_SELECTOR, "#game-list a.replay").click()
        _wait(browser, lambda d: "replay" in d.current_url)
        assert games.get(GAME).title in browser.page_source
        browser.get(url)
        first_game = ids[1]                                      # the list is newest first
        forget = _wait(browser, lambda d: d.find_element(By.CSS_SELECTOR,
                                                         f"#game-list tr[data-game='{first_game}'] button.forget"))
        forget.click()
        browser.switch_to.alert.accept()
        _wait(browser, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#game-list tr[data-game]")) == 1)
        assert (tmp_path / "home" / "trash" / first_game / "transcript.caravan").exists()
    finally:
        home.proc.terminate()
        home.stop()


def test_bad_input_is_one_line_on_the_page(tmp_path: Path, browser):
    home, url = start_home(tmp_path)
    try:
        browser.get(url)
        _wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#game option"))
        box = browser.find_element(By.ID, "invite-in")
        box.send_keys("<b>not an invite</b>")
        box.submit()
        error = _wait(browser, lambda d: d.find_element(By.ID, "error") if d.find_element(By.ID, "error")
                      .is_displayed() else None)
        assert "<b>not an invite</b>" in error.text and not browser.find_elements(By.CSS_SELECTOR, "#error b")
        before = error.text
        box.clear()
        box.send_keys("caravan+mqtt://broker.example:1883/zz")
        box.submit()

        def the_new_error(d) -> bool:                          # not the first one, still on screen
            text = d.find_element(By.ID, "error").text
            return text != before and ("zz" in text or "lobby" in text.lower())
        _wait(browser, the_new_error)
        Select(browser.find_element(By.ID, "game")).select_by_value(NUMBERED)
        option = _wait(browser, lambda d: d.find_element(By.CSS_SELECTOR,
                                                         f"#options[data-game='{NUMBERED}'] input[type=number]"))
        key = option.get_attribute("id").removeprefix("opt-")
        option.clear()                                            # an empty number box: refused in words
        browser.find_element(By.ID, "create").click()
        _wait(browser, lambda d: key in d.find_element(By.ID, "error").text)
        browser.get(url)                                          # a broker no one answers at
        _wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#options [id^='opt-']"))
        browser.find_element(By.CSS_SELECTOR, "input[name=network][value=broker]").click()
        browser.find_element(By.ID, "relay").send_keys(f"mqtt://127.0.0.1:{_closed_port()}")
        browser.find_element(By.ID, "create").click()
        error = _wait(browser, lambda d: d.find_element(By.ID, "error").text, timeout=60)
        assert "\n" not in error and "127.0.0.1" in error, error
    finally:
        home.proc.terminate()
        home.stop()


def test_stop_the_home_then_continue_from_your_games(tmp_path: Path, browser):
    """The bots pause with their person when the home stops and come back with Continue."""
    from tests.web.test_play import _click_a_move, _open_decision
    import random

    home, url = start_home(tmp_path)
    again = None
    try:
        create_table(browser, url, GAME, 3, ["bot:random", "bot:random"], options=SHORT)
        table = _table_url(browser, url)
        browser.find_element(By.ID, "auto").click()
        rng, made = random.Random(5), 0
        deadline = time.monotonic() + scaled(120)
        while made < 2 and time.monotonic() < deadline:
            decision = _wait(browser, lambda d: _open_decision(d))
            if _click_a_move(browser, rng) != "none":
                made += 1
                _wait(browser, lambda d: _open_decision(d) != decision)
        home.proc.terminate()
        assert home.stop() == 0
        bot_log = tmp_path / "home" / "bots" / "bot1" / "node.log"
        _wait(browser, lambda d: "paused" in bot_log.read_text(), timeout=30)
        again, url = start_home(tmp_path)
        browser.get(url)
        _wait(browser, lambda d: d.find_element(By.CSS_SELECTOR, "#game-list button.continue")).click()
        assert _table_url(browser, url) == table                 # the same page, port and token
        stats = play_by_clicking(browser, table, seed=5, timeout=300, reload_after=1000)
        assert stats["decisions"] > 0
        game_id = next((tmp_path / "home" / "games").iterdir()).name
        report = verify_bytes((tmp_path / "home" / "games" / game_id / "transcript.caravan").read_bytes())
        assert report.ok and not report.abandoned_by
    finally:
        for node in (home, again):
            if node is not None and node.proc.poll() is None:
                node.proc.terminate()
                node.stop()
