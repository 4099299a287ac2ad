"""Every Nomads of Arabia option is listed for `caravan options nomads`, and every option combination
plays random games to the end with test_simulation's invariants (80 animals, money, cards; with
full_market "stack" no animal leaves play) and sampled deep checks (issue #15). `max_turns` keeps its
default (it only bounds a game; random games end by Mecca). Always-run: QUICK games per combination
and player count; the full 200 with CARAVAN_SLOW=1."""

from __future__ import annotations

import multiprocessing
from concurrent.futures import ProcessPoolExecutor

import pytest

from protocol.games.nomads import ENGINE
from protocol.games.nomads import data as D
from protocol.games.nomads.options import OPTION_HELP

from ..option_battery import FULL_GAMES, check_help, combinations, slow
from .test_simulation import play_one

BATTERY = {"yellow_tiles": list(range(D.YELLOW_BOARD_SPACES + 1)), "short_blue": [False, True],
           "full_market": ["stack", "gamebox"], "lost_turns": [2, 1]}
QUICK = 1
COUNTS = range(D.MIN_PLAYERS, D.MAX_PLAYERS + 1)


def test_option_help_lists_every_option():
    check_help(ENGINE, OPTION_HELP, BATTERY, varied={"max_turns"})


def _games(args):
    n, combo, seeds = args
    for seed in seeds:
        play_one(n, seed, combo, sample=400)
    return len(seeds)


def _battery(games: int) -> None:
    jobs = []
    for i, combo in enumerate(combinations(BATTERY)):
        for n in COUNTS:
            seeds = list(range(3_000_000 + 10_000 * i + 1000 * n, 3_000_000 + 10_000 * i + 1000 * n + games))
            jobs += [(n, combo, seeds[k::2]) for k in range(2)]
    with ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("fork")) as pool:
        assert sum(pool.map(_games, jobs)) == games * len(COUNTS) * len(combinations(BATTERY))


def test_every_option_combination_quick():
    _battery(QUICK)


@pytest.mark.slow
@slow
def test_every_option_combination_200_games():
    _battery(FULL_GAMES)
