"""Every Sabbat Magica option is listed for `caravan options sabbat`, and every option combination
plays random games with test_random's invariants, copies, rejections and view checks (issue #15).
`peoples` is varied at random per game (a seeded sample of the 4 peoples). Always-run: QUICK games
per combination and player count; the full 200 with CARAVAN_SLOW=1."""

from __future__ import annotations

import pytest

from protocol.games.sabbat import ENGINE
from protocol.games.sabbat.options import OPTION_HELP

from ..option_battery import FULL_GAMES, check_help, run_battery, slow
from .test_random import play_checked

BATTERY = {"powers": [False, True], "leftovers": ["keep", "discard"], "magician_move": ["king", "literal"],
           "power_limit": ["round", "trigger"]}
QUICK = 4


def test_option_help_lists_every_option():
    check_help(ENGINE, OPTION_HELP, BATTERY, varied={"peoples"})


def _play(n, seed, combo):
    opts = {k: v for k, v in combo.items() if k != "powers"}
    play_checked(n, seed, combo["powers"], sample_every=97, options=opts)


def test_every_option_combination_quick():
    run_battery(_play, BATTERY, (2, 3, 4), QUICK, 5_000_000)


@pytest.mark.slow
@slow
def test_every_option_combination_200_games():
    run_battery(_play, BATTERY, (2, 3, 4), FULL_GAMES, 5_000_000)
