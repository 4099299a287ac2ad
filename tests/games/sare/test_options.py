"""Every Sa-Rê option is listed for `caravan options sare`, and every option combination plays
random games with the invariants of util.check_invariants checked after every step (issue #15).
Always-run: QUICK games per combination and player count; the full 200 with CARAVAN_SLOW=1."""

from __future__ import annotations

import multiprocessing
from concurrent.futures import ProcessPoolExecutor

import pytest

from protocol.games.sare import ENGINE
from protocol.games.sare.options import OPTION_HELP

from ..option_battery import FULL_GAMES, check_help, combinations, slow
from .util import play_random

BATTERY = {"scenario": ["scribe", "priest", "pharaoh"], "architect": [False, True], "pyramid_pick": ["top", "free"],
           "shoe": ["down", "up"]}
TURNS = 4          # random play never reaches a goal: the turn limit ends every game (test_random.py)
QUICK = 12


def test_option_help_lists_every_option():
    check_help(ENGINE, OPTION_HELP, BATTERY, varied={"turn_limit"})


def _games(args):
    n, combo, seeds = args
    for seed in seeds:
        ref, result = play_random(n, seed, dict(combo, turn_limit=TURNS), sample=0.01)
        assert result is not None and result["winners"], (combo, seed)
    return len(seeds)


def _battery(games: int) -> None:
    jobs = []
    for i, combo in enumerate(combinations(BATTERY)):
        for n in (2, 3, 4):
            seeds = range(7_000_000 + 10_000 * i + 1000 * n, 7_000_000 + 10_000 * i + 1000 * n + games)
            jobs += [(n, combo, list(seeds)[k::2]) for k in range(2)]
    with ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("fork")) as pool:
        assert sum(pool.map(_games, jobs)) == games * 3 * len(combinations(BATTERY))


def test_every_option_combination_quick():
    _battery(QUICK)


@pytest.mark.slow
@slow
def test_every_option_combination_200_games():
    _battery(FULL_GAMES)
