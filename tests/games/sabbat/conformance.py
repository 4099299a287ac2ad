"""Sabbat Magica's hooks for the shared conformance battery (tests/games/conformance.py)."""

from __future__ import annotations

import random

from protocol.games.sabbat import data as D
from protocol.games.sabbat.options import OPTION_HELP  # noqa: F401 (a hook)
from tests.present.test_sabbat import hidden_titles

from .test_random import BAD_ACTIONS, check_invariants, play_checked  # noqa: F401 (hooks)

invariants = check_invariants


def random_options(rng: random.Random, n: int) -> dict:
    return {"powers": rng.random() < 0.7, "peoples": rng.sample(range(4), n),
            "leftovers": rng.choice(("keep", "discard")), "magician_move": rng.choice(D.MAGICIAN_MOVES),
            "power_limit": rng.choice(("round", "trigger"))}


def hidden_words(ref, viewer: int | None) -> list[str]:
    """The titles of the POWER cards still sealed in other seats' hands."""
    return hidden_titles(ref, viewer)


# the option battery (tests/games/option_battery.py): `peoples` is varied at random per game
OPTION_BATTERY = {"powers": [False, True], "leftovers": ["keep", "discard"], "magician_move": ["king", "literal"],
                  "power_limit": ["round", "trigger"]}
OPTION_VARIED = {"peoples"}
OPTION_COUNTS = (2, 3, 4)
OPTION_QUICK = 4
OPTION_BASE = 5_000_000


def play_options(n: int, seed: int, combo: dict) -> None:
    """One random game of an option combination, with test_random's checks."""
    opts = {k: v for k, v in combo.items() if k != "powers"}
    play_checked(n, seed, combo["powers"], sample_every=97, options=opts)
