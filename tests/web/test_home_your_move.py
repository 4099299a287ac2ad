"""Your games on the home (issue 33, "waiting, visibly"): a game that waits for your move comes
first and says so; one that waits for a friend says whom and for what, by name."""

from __future__ import annotations

import os
import random
import time
from pathlib import Path

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from clients.bot import RandomBot
from node.storage.store import GameStore, write_private
from protocol import games, wire
from protocol.identity import SigningKey
from tests.games.pick import some_game
from tests.helpers import new_table, play, timeout as scaled
from tests.web.home_fixtures import start_home

KEYS = [SigningKey.from_seed(bytes([c]) * 32) for c in b"mbc"]
"""Me, Bea and Cy."""


def _stored_midgame(data_dir: Path, seed: int, stop_at: int, age: float) -> str:
    """A 3-seat game of mine (seat 0) with Bea and Cy, stored as my node holds it when the game
    stops at seat `stop_at`'s third decision, its files `age` seconds old."""
    table = new_table(games.get(some_game(players=3)), 3, seed=seed, keys=KEYS)
    bots, asked = [RandomBot(seed + s) for s in range(3)], {0: 0, 1: 0, 2: 0}

    def stop(seat, decision) -> bool:
        asked[seat] += 1
        return seat == stop_at and asked[seat] == 3
    assert play(table, lambda seat, legal: bots[seat].choose(None, legal), stop=stop) is not None
    g = table.genesis
    store = GameStore.create(data_dir, g.to_wire(), g.game_id, {"secret": table.secrets[0], "committed": wire.encode([])},
                             {"peers": {}, "names": {"1": "Bea", "2": "Cy"}})
    for raw in table.sessions[0].log:
        store.append(raw)
    store.close()
    when = time.time() - age
    for path in store.dir.iterdir():
        os.utime(path, (when, when))
    return g.game_id.hex()


def test_the_game_waiting_for_your_move_comes_first(tmp_path: Path, browser):
    data_dir = tmp_path / "home"
    data_dir.mkdir()
    write_private(data_dir / "identity.key", KEYS[0].seed())
    mine = _stored_midgame(data_dir, seed=1, stop_at=0, age=3 * 3600)      # the older one
    theirs = _stored_midgame(data_dir, seed=2, stop_at=1, age=60)
    home, url = start_home(tmp_path)
    try:
        browser.get(url)
        rows = WebDriverWait(browser, scaled(30), 0.1).until(
            lambda d: len(d.find_elements(By.CSS_SELECTOR, "#game-list tr[data-game]")) == 2
            and d.find_elements(By.CSS_SELECTOR, "#game-list tr[data-game]"))
        assert [r.get_attribute("data-game") for r in rows] == [mine, theirs], "your move first, though older"
        first, second = (r.text for r in rows)
        assert "your move" in first and "waiting for you: a move" in first and "last move 3 h ago" in first, first
        assert "your move" not in second and "waiting for Bea: a move" in second, second
    finally:
        home.proc.terminate()
        home.stop()
