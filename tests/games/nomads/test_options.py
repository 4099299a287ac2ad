"""Every Nomads of Arabia option is listed for `caravan options nomads`, and every option combination
plays random games to the end with test_simulation's invariants (80 animals, money, cards; with
full_market "stack" no animal leaves play) and sampled deep checks (issue #15). `max_turns` keeps its
default (it only bounds a game; random games end by Mecca). Always-run: QUICK games per combination
and player count; the full 200 with CARAVAN_SLOW=1."""

from __future__ import annotations

import pytest

from protocol.games.nomads import ENGINE
from protocol.games.nomads import data as D
from protocol.games.nomads.options import OPTION_HELP

from ..option_battery import FULL_GAMES, check_help, run_battery, slow
from .test_simulation import play_one

BATTERY = {"yellow_tiles": list(range(D.YELLOW_BOARD_SPACES + 1)), "short_blue": [False, True],
           "full_market": ["stack", "gamebox"], "lost_turns": [2, 1],
           "second_sale": [False, True]}
QUICK = 1
COUNTS = range(D.MIN_PLAYERS, D.MAX_PLAYERS + 1)


def test_option_help_lists_every_option():
    check_help(ENGINE, OPTION_HELP, BATTERY, varied={"max_turns"})


def _play(n, seed, combo):
    play_one(n, seed, combo, sample=400)


def test_every_option_combination_quick():
    run_battery(_play, BATTERY, COUNTS, QUICK, 3_000_000)


@pytest.mark.slow
@slow
def test_every_option_combination_200_games():
    run_battery(_play, BATTERY, COUNTS, FULL_GAMES, 3_000_000)
