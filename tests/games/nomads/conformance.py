"""Nomads of Arabia's hooks for the shared conformance battery (tests/games/conformance.py)."""

from __future__ import annotations

import random

from protocol.games.nomads import data as D
from protocol.games.nomads.options import OPTION_HELP  # noqa: F401 (a hook)
from tests.present.test_nomads import hidden_names

from .test_simulation import BAD_ACTIONS, play_one  # noqa: F401 (a hook)
from .util import check_invariants

invariants = check_invariants


def random_options(rng: random.Random, n: int) -> dict:
    return {"yellow_tiles": rng.randint(0, D.YELLOW_BOARD_SPACES), "short_blue": rng.random() < 0.5,
            "full_market": rng.choice(("stack", "gamebox")), "lost_turns": rng.choice((1, 2)),
            "second_sale": rng.random() < 0.5}


def hidden_words(ref, viewer: int | None) -> set[str]:
    """The names of the yellow tiles the viewer may not know."""
    return hidden_names(ref, viewer)


# the option battery (tests/games/option_battery.py): `max_turns` keeps its default (it only
# bounds a game; random games end by Mecca)
OPTION_BATTERY = {"yellow_tiles": list(range(D.YELLOW_BOARD_SPACES + 1)), "short_blue": [False, True],
                  "full_market": ["stack", "gamebox"], "lost_turns": [2, 1], "second_sale": [False, True]}
OPTION_VARIED = {"max_turns"}
OPTION_COUNTS = range(D.MIN_PLAYERS, D.MAX_PLAYERS + 1)
OPTION_QUICK = 1
OPTION_BASE = 3_000_000


def play_options(n: int, seed: int, combo: dict) -> None:
    """One random game of an option combination, with test_simulation's checks."""
    play_one(n, seed, combo, sample=400)
