"""Every Sa-Rê option is listed for `caravan options sare`, and every option combination plays
random games with the invariants of util.check_invariants checked after every step (issue #15).
Always-run: QUICK games per combination and player count; the full 200 with CARAVAN_SLOW=1."""

from __future__ import annotations

import pytest

from protocol.games.sare import ENGINE
from protocol.games.sare.options import OPTION_HELP

from ..option_battery import FULL_GAMES, check_help, run_battery, slow
from .util import play_random

BATTERY = {"scenario": ["scribe", "priest", "pharaoh"], "architect": [False, True], "pyramid_pick": ["top", "free"],
           "shoe": ["down", "up"]}
TURNS = 4          # random play never reaches a goal: the turn limit ends every game (test_random.py)
QUICK = 6


def test_option_help_lists_every_option():
    check_help(ENGINE, OPTION_HELP, BATTERY, varied={"turn_limit"})


def _play(n, seed, combo):
    ref, result = play_random(n, seed, dict(combo, turn_limit=TURNS), sample=0.01)
    assert result is not None and result["winners"], (combo, seed)


def test_every_option_combination_quick():
    run_battery(_play, BATTERY, (2, 3, 4), QUICK, 7_000_000)


@pytest.mark.slow
@slow
def test_every_option_combination_200_games():
    run_battery(_play, BATTERY, (2, 3, 4), FULL_GAMES, 7_000_000)
