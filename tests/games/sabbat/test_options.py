"""Every Sabbat Magica option is listed for `caravan options sabbat`, and every option combination
plays random games with test_random's invariants, copies, rejections and view checks (issue #15).
`peoples` is varied at random per game (a seeded sample of the 4 peoples). Always-run: QUICK games
per combination and player count; the full 200 with CARAVAN_SLOW=1."""

from __future__ import annotations

import multiprocessing
from concurrent.futures import ProcessPoolExecutor

import pytest

from protocol.games.sabbat import ENGINE
from protocol.games.sabbat.options import OPTION_HELP

from ..option_battery import FULL_GAMES, check_help, combinations, slow
from .test_random import play_checked

BATTERY = {"powers": [False, True], "leftovers": ["keep", "discard"], "magician_move": ["king", "literal"],
           "power_limit": ["round", "trigger"]}
QUICK = 4


def test_option_help_lists_every_option():
    check_help(ENGINE, OPTION_HELP, BATTERY, varied={"peoples"})


def _games(args):
    n, combo, seeds = args
    for seed in seeds:
        opts = {k: v for k, v in combo.items() if k != "powers"}
        play_checked(n, seed, combo["powers"], sample_every=97, options=opts)
    return len(seeds)


def _battery(games: int) -> None:
    jobs = []
    for i, combo in enumerate(combinations(BATTERY)):
        for n in (2, 3, 4):
            seeds = list(range(5_000_000 + 10_000 * i + 1000 * n, 5_000_000 + 10_000 * i + 1000 * n + games))
            jobs += [(n, combo, seeds[k::2]) for k in range(2)]
    with ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("fork")) as pool:
        assert sum(pool.map(_games, jobs)) == games * 3 * len(combinations(BATTERY))


def test_every_option_combination_quick():
    _battery(QUICK)


@pytest.mark.slow
@slow
def test_every_option_combination_200_games():
    _battery(FULL_GAMES)
