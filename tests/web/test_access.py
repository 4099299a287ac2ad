"""Accessibility and phone-size windows, measured in real Chromium.

axe-core (axe-selenium-python) finds no serious or critical violation on the home (New table with
each game's option controls), the table page of
every game (in the light and the dark theme), the lobby page and the replay of every game;
at 390×844 the board's smallest text is at least 12 CSS px at the default zoom and every
button and field is at least 44 CSS px both ways; number keys choose moves and Esc goes back."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from selenium.webdriver.common.by import By

from clients import games as presentations
from tests.games.pick import cli_options, installed, option_args, quick_game, short_game
from tests.helpers import timeout as scaled, wait_until
from tests.node.procs import ROOT, env
from tests.web.conftest import Node, console_errors, web_game

GAMES = [(game, players, cli_options(options)) for game in installed() for players, options in [short_game(game)]]
"""Each installed game, its hooks' short game."""
SHOWN = presentations.first(installed())
"""The game the house shows first (its board is the README's phone picture)."""
SERIOUS = ("serious", "critical")


def _until(predicate, timeout: float, what: str):
    return wait_until(predicate, timeout, what, interval=0.1)


def axe_problems(driver) -> list[str]:
    from axe_selenium_python import Axe

    axe = Axe(driver)
    axe.inject()
    found = axe.run()
    return [f"{v['id']} ({v['impact']}): {v['help']} — {[n['target'] for n in v['nodes']][:3]}"
            for v in found["violations"] if v["impact"] in SERIOUS]


def _theme(driver, theme: str) -> None:
    driver.execute_script("localStorage.setItem('caravan.theme', arguments[0]);"
                          "document.documentElement.classList.remove('light', 'dark');"
                          "document.documentElement.classList.add(arguments[0]);", theme)


@pytest.mark.parametrize("game,players,options", GAMES, ids=[g[0] for g in GAMES])
def test_the_table_page_passes_axe_and_plays_by_keyboard(tmp_path: Path, browser, game, players, options):
    host, bots, url = web_game(tmp_path, game, players, options)
    try:
        browser.get(url)
        _until(lambda: browser.find_element(By.ID, "decide").is_displayed(), 90, "a decision opens")
        for theme in ("light", "dark"):
            _theme(browser, theme)
            assert axe_problems(browser) == [], theme
        # board places that can be chosen are reachable by Tab, with a name
        for place in browser.find_elements(By.CSS_SELECTOR, "#board [data-target].legal"):
            assert place.get_attribute("tabindex") == "0" and place.get_attribute("role") == "button"
            assert place.get_attribute("aria-label")
        assert all(p.get_attribute("aria-label") for p in browser.find_elements(By.CSS_SELECTOR, "#board [data-target]"))
        # number keys choose, Esc goes back
        decision = browser.find_element(By.ID, "decide").get_attribute("data-decision")
        groups = browser.find_elements(By.CSS_SELECTOR, "#groups button.group")
        body = browser.find_element(By.TAG_NAME, "body")
        several = [i for i, g in enumerate(groups[:9]) if g.get_attribute("title").endswith("moves of this kind")]
        if several:
            body.send_keys(str(several[0] + 1))
            assert browser.find_elements(By.CSS_SELECTOR, "#moves button.move")
            body.send_keys("\ue00c")                                  # Esc
            assert not browser.find_elements(By.CSS_SELECTOR, "#moves button.move")
        def answered() -> bool:                                   # "1" until the decision is taken
            decide = browser.find_element(By.ID, "decide")
            if decide.get_attribute("data-decision") == decision and decide.is_displayed():
                body.send_keys("1")
                return False
            return True
        wait_until(answered, 30, "the decision answered from the keyboard", interval=0.3)
        assert console_errors(browser) == []
    finally:
        for node in (host, *bots):
            node.proc.kill()
            node.stop()


def test_the_lobby_page_passes_axe(tmp_path: Path, browser):
    host = Node(["host", quick_game(3), "--players", "3", "--client", "web", "--no-browser", "--no-discovery",
                 "--bind", "127.0.0.1"], tmp_path / "seat0", tmp_path / "seat0.log")
    try:
        browser.get(host.wait_for("web")["url"])
        _until(lambda: "Lobby" in browser.find_element(By.ID, "board").text, 30, "the lobby shows")
        for theme in ("light", "dark"):
            _theme(browser, theme)
            assert axe_problems(browser) == [], theme
    finally:
        host.proc.kill()
        host.stop()


@pytest.mark.parametrize("game,players,options", GAMES, ids=[g[0] for g in GAMES])
def test_the_replay_of_every_game_passes_axe(tmp_path: Path, browser, game, players, options):
    out = tmp_path / "game.caravan"
    subprocess.run([sys.executable, "-m", "node", "demo", game, "--players", str(players), "--bot", "random",
                    *option_args(options), "--out", str(out)], cwd=ROOT, env=env(), check=True,
                   timeout=scaled(300), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    page = tmp_path / "game.html"
    subprocess.run([sys.executable, "-m", "node", "replay", str(out), "--html", str(page), "--no-browser"],
                   cwd=ROOT, env=env(), check=True, timeout=scaled(300), capture_output=True)
    browser.get(page.as_uri())
    _until(lambda: browser.find_element(By.ID, "stepno").text, 30, "the replay opens")
    for theme in ("light", "dark"):
        _theme(browser, theme)
        assert axe_problems(browser) == [], theme


def test_phone_width_board_text_and_tap_targets(tmp_path: Path, browser):
    host, bots, url = web_game(tmp_path, SHOWN, 2, cli_options(short_game(SHOWN)[1]))
    try:
        browser.set_window_size(390, 844)
        browser.get(url)
        _until(lambda: browser.find_element(By.ID, "decide").is_displayed(), 90, "a decision opens")
        inner = browser.execute_script("return window.innerWidth")
        assert inner < 700
        smallest = browser.execute_script("""
            const svg = document.querySelector('#board svg');
            const scale = svg.getBoundingClientRect().width / Number(svg.getAttribute('width'));
            let min = Infinity;
            for (const t of svg.querySelectorAll('text')) {
              const f = parseFloat(getComputedStyle(t).fontSize);
              if (f > 0 && t.getBoundingClientRect().width > 0) min = Math.min(min, f * scale);
            }
            return min;""")
        assert smallest >= 12 - 0.01, smallest
        small = browser.execute_script("""
            const out = [];
            for (const el of document.querySelectorAll('button, input, header label, summary')) {
              const r = el.getBoundingClientRect();
              if (r.width === 0 && r.height === 0) continue;                 // not shown
              if (el.closest('label') && el.tagName === 'INPUT') continue;     // its label is the target
              if (r.width < 44 || r.height < 44) out.push(`${el.id || el.textContent.trim()}: ${r.width}x${r.height}`);
            }
            return out;""")
        assert small == []
        places = browser.execute_script(
            "return [...document.querySelectorAll('#board [data-target].legal')].map(e => {"
            "const r = e.getBoundingClientRect(); return Math.min(r.width, r.height)})")
        assert places and min(places) >= 44, places              # the places to tap, at the default zoom
        # the board pans: it is wider than the window and its box scrolls
        assert browser.execute_script("const w = document.getElementById('board-wrap');"
                                      "return w.scrollWidth > w.clientWidth")
        before = browser.execute_script("return document.querySelector('#board svg').getBoundingClientRect().width")
        browser.find_element(By.ID, "zoom-in").click()
        after = browser.execute_script("return document.querySelector('#board svg').getBoundingClientRect().width")
        assert after > before * 1.2
        assert console_errors(browser) == []
    finally:
        for node in (host, *bots):
            node.proc.kill()
            node.stop()


def test_the_home_with_the_option_controls_passes_axe(tmp_path: Path, browser):
    """The home with New table showing each game's option controls (selects, checkboxes, number
    fields, the per-seat group, the presets): no serious or critical violation, light and dark."""
    from tests.web.home_fixtures import api, start_home
    from tests.web.test_home_options import GAMES as HOME_GAMES, _show

    home, url = start_home(tmp_path)
    try:
        for theme in ("light", "dark"):
            api(url, "settings", {"theme": theme})
            browser.get(url)
            _until(lambda: browser.execute_script("return document.documentElement.classList.contains(arguments[0])",
                                                  theme), 30, f"the {theme} theme")
            for game in HOME_GAMES:
                _show(browser, game, 3)
                problems = axe_problems(browser)
                assert problems == [], (theme, game, problems)
    finally:
        home.proc.terminate()
        home.stop()


def test_the_home_with_its_lobby_open_passes_axe(tmp_path: Path, browser):
    """The home while its table waits for a friend (issue 36: the lobby as a table: the game
    and its options, the seats, the invite with Copy, Cancel): no serious or critical
    violation, light and dark."""
    from selenium.webdriver.support.ui import Select

    from tests.web.home_fixtures import api, start_home
    from tests.web.test_home_options import _show

    home, url = start_home(tmp_path)
    try:
        browser.get(url)
        _show(browser, SHOWN, 2)
        Select(browser.find_element(By.CSS_SELECTOR, "#seats select")).select_by_value("friend")
        browser.find_element(By.ID, "create").click()
        _until(lambda: browser.find_element(By.ID, "cancel").is_displayed(), 60, "the lobby with Cancel")
        for theme in ("light", "dark"):
            _theme(browser, theme)
            problems = axe_problems(browser)
            assert problems == [], (theme, problems)
    finally:
        home.proc.terminate()
        home.stop()
