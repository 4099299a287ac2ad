"""A person plays a whole game of each game in a real browser, by clicking, against bots."""

from __future__ import annotations

import random
import time
from pathlib import Path

import pytest
from selenium.common.exceptions import (ElementClickInterceptedException, ElementNotInteractableException,
                                        StaleElementReferenceException)
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By

from protocol.verify import verify_bytes
from tests.games.pick import cli_options, installed, option_args, quick, short_game
from tests.helpers import timeout as scaled, wait_until
from tests.web.conftest import console_errors, web_game

GAMES = [(game, players, cli_options(options)) for game in installed() for players, options in [short_game(game)]]
"""Each installed game, its hooks' short game."""
STALE = (StaleElementReferenceException, ElementClickInterceptedException, ElementNotInteractableException)


_PAGE_STATE = """const shown = (id) => document.getElementById(id).checkVisibility();
return [shown("result"), shown("decide") ? document.getElementById("decide").getAttribute("data-decision") : null];"""
"""[is the result shown, the open decision's id or null]: one round trip to the browser, where
find_element, is_displayed and get_attribute took five (a third of a game's time in polling)."""


def _page_state(driver) -> tuple[bool, str | None]:
    finished, decision = driver.execute_script(_PAGE_STATE)
    return finished, decision


def _open_decision(driver) -> str | None:
    return _page_state(driver)[1]


def _click_a_move(driver, rng: random.Random, prefer_board: bool = False) -> str:
    """Pick one legal move as a person would: on the board where it has a place, else a button
    (choosing its kind first when the moves are grouped). Returns how it was chosen."""
    decision = _open_decision(driver)
    places = driver.find_elements(By.CSS_SELECTOR, "#board [data-target].legal")
    if places and (prefer_board or rng.random() < 0.5):
        place = rng.choice(places)
        driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", place)
        # a person clicks the middle of the place, whatever label is drawn on it (the pointer
        # jumps there: selenium's default 250 ms glide was a fifth of a browser game)
        ActionChains(driver, duration=0).move_to_element(place).click().perform()
        if not _still_open(driver, decision):
            return "board"
        listed = driver.find_elements(By.CSS_SELECTOR, "#moves button.move")
        if listed:                        # a place with several moves lists just those: pick one
            rng.choice(listed).click()
            return "board"
    groups = driver.find_elements(By.CSS_SELECTOR, "#groups button.group")
    if groups and not driver.find_elements(By.CSS_SELECTOR, "#moves button.move"):
        rng.choice(groups).click()
    moves = driver.find_elements(By.CSS_SELECTOR, "#moves button.move")
    if moves:
        rng.choice(moves).click()
        return "button"
    return "none"


def _still_open(driver, decision: str | None, wait: float = 0.3) -> bool:
    """Is the same decision still open `wait` seconds (scaled) after the click (a place with
    several moves lists them to choose)? False as soon as it is not."""
    deadline = time.monotonic() + scaled(wait)
    while _open_decision(driver) == decision:
        if time.monotonic() >= deadline:
            return True
        time.sleep(0.02)                  # a poll's pause inside the bounded wait above
    return False


def play_by_clicking(driver, url: str, seed: int, timeout: float, reload_after: int = 5) -> dict:
    rng = random.Random(seed)
    driver.get(url)
    driver.find_element(By.ID, "auto").click()          # forced moves are taken for the player
    stats = {"decisions": 0, "board": 0, "button": 0, "reloaded": False}
    last = None
    deadline = time.monotonic() + scaled(timeout)
    while time.monotonic() < deadline:
        finished, decision = _page_state(driver)
        if finished:
            return stats
        try:
            if decision is None or decision == last:
                time.sleep(0.05)          # a poll's pause inside the bounded wait above
                continue
            how = _click_a_move(driver, rng, prefer_board=stats["board"] == 0)
        except STALE:
            continue
        if how == "none":
            continue
        last = decision
        stats["decisions"] += 1
        stats[how] = stats.get(how, 0) + 1
        if stats["decisions"] == reload_after:
            driver.refresh()                                  # the page survives a reload
            stats["reloaded"] = True
            last = None
    conn = driver.find_element(By.ID, "conn").text
    status = driver.find_element(By.ID, "status").text
    raise AssertionError(f"no result within {scaled(timeout):g} s after {stats}; page says {conn!r}, {status!r}")


FILES = """const box = document.getElementById("result-files");
const badge = box.querySelector(".badge.ok");
const links = [...box.querySelectorAll("a")].map((a) => a.textContent);
return badge && links.includes("download the transcript") ? {badge: badge.textContent, links} : null;"""
"""The game-over box's verify badge and links, read in one go (null until both are there)."""

@pytest.mark.parametrize("game,players,options", GAMES, ids=[g[0] for g in GAMES])
def test_a_whole_game_in_the_browser(tmp_path: Path, browser, game: str, players: int, options: list[str]):
    host, bots, url = web_game(tmp_path, game, players, options)
    try:
        stats = play_by_clicking(browser, url, seed=7, timeout=240)
        assert stats["decisions"] > 3 and stats["reloaded"]
        assert stats["board"] > 0                             # a move was chosen by clicking the board
        log = browser.find_elements(By.CSS_SELECTOR, "#log li")
        assert len(log) > 10                                  # narration reached the page
        assert "Won by" in browser.find_element(By.ID, "result-text").text
        # game over: the score table, the verify badge and the transcript to keep
        assert browser.find_elements(By.CSS_SELECTOR, "#result-table tbody tr")
        # they follow the result, each as it is ready (the box is drawn again each time: read it in one go)
        files = wait_until(lambda: browser.execute_script(FILES), 15, "the verify badge and the transcript link",
                           why=lambda: browser.execute_script(FILES))
        assert files["badge"].startswith("Verified") and "download the transcript" in files["links"], files
        transcript = host.wait_for("transcript", timeout=60)
        assert transcript["verified"] is True
        assert verify_bytes(Path(transcript["path"]).read_bytes()).ok
        assert console_errors(browser) == []
    finally:
        for node in (host, *bots):
            node.stop()


def test_the_page_shows_the_lobby_before_the_game(tmp_path: Path, browser):
    """--client web serves the page as soon as the node starts: the player watches the lobby fill."""
    from tests.web.conftest import Node

    game, options = quick(2)
    host = Node(["host", game, "--players", "2", *option_args(options), "--client", "web", "--no-browser",
                 "--no-discovery", "--bind", "127.0.0.1"], tmp_path / "seat0", tmp_path / "seat0.log")
    try:
        url = host.wait_for("web")["url"]
        lobby = host.wait_for("lobby")
        browser.get(url)
        deadline = time.monotonic() + scaled(30)
        while "Lobby" not in browser.find_element(By.ID, "board").text and time.monotonic() < deadline:
            time.sleep(0.1)                                   # a poll's pause inside the bounded wait
        board = browser.find_element(By.ID, "board").text
        assert "Lobby" in board and f"on port {lobby['port']}" in board and "caravan join" in board
        assert console_errors(browser) == []
    finally:
        host.proc.kill()
        host.stop()


def test_a_relayed_lobby_page_shows_the_invite(tmp_path: Path, browser):
    """`host --relay URL --client web`: the page shows the invite a friend needs to join."""
    from tests.relay.broker import Broker
    from tests.web.conftest import Node

    broker = Broker(tmp_path).start()
    game, options = quick(2)
    host = Node(["host", game, "--players", "2", *option_args(options), "--client", "web", "--no-browser",
                 "--no-discovery", "--bind", "127.0.0.1", "--relay", broker.url], tmp_path / "seat0", tmp_path / "seat0.log")
    try:
        url = host.wait_for("web")["url"]
        invite = host.wait_for("invite")["invite"]
        browser.get(url)
        deadline = time.monotonic() + scaled(30)
        while invite not in browser.find_element(By.ID, "board").text and time.monotonic() < deadline:
            time.sleep(0.1)                                   # a poll's pause inside the bounded wait
        assert f"caravan join {invite}" in browser.find_element(By.ID, "board").text
        assert console_errors(browser) == []
    finally:
        host.proc.kill()
        host.stop()
        broker.stop()
