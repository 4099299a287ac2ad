"""Nomads of Arabia's hooks for the shared conformance battery (tests/games/conformance.py)."""

from __future__ import annotations

import random

from protocol.games.nomads import data as D
from protocol.games.nomads.options import OPTION_HELP  # noqa: F401 (a hook)
from tests.games.nomads.test_narrate import hidden_names

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


# ---------------------------------------------------------------- the conformance vectors (tests/games/vectors_gen.py)

SPEC = "nomads-of-arabia.md"
VECTOR_GAMES = [
    # (players, options on top of the defaults, seed): every player count, every option value at
    # least once, and (seeds picked for it) every kind of decision point at least once
    (3, {}, 100),
    (4, {"yellow_tiles": 0, "short_blue": True, "full_market": "gamebox", "lost_turns": 1}, 101),
    (5, {"yellow_tiles": 2, "max_turns": 20}, 102),
    (6, {}, 103),
    (3, {"second_sale": True}, 132),
    (4, {"yellow_tiles": 0, "short_blue": True, "full_market": "gamebox", "lost_turns": 1}, 155),
]
# what they must cover (tests/games/vectors_coverage.py): every value the phase field takes between
# steps, every decision point, every enumerated option value (numbers with a range are not enumerated)
STAGE_KEY = "phase"
STAGES = ("s_layout", "s_shuffle", "s_ldie", "s_lthrow", "s_rthrow", "s_reroll", "s_start", "move", "hire",
          "dest", "winds", "action", "catch_pick", "expert", "tie", "keep", "window", "abdul", "r_land",
          "r_animal", "r_random", "roll_catch", "roll_lure", "draw_card", "draw_blue", "show", "final", "over")
DECISIONS = ("move", "hire", "dest", "winds", "action", "catch_pick", "expert", "tie", "keep", "window", "abdul")
VECTOR_OPTIONS = {"short_blue": [False, True], "full_market": ["stack", "gamebox"], "lost_turns": [2, 1],
                  "second_sale": [False, True]}


# the recorded games (tests/games/recorded_games.py)
RECORDED_OPTIONS = [{"max_turns": 200}, {"yellow_tiles": 2, "short_blue": True, "full_market": "gamebox",
                                         "lost_turns": 1, "second_sale": True, "max_turns": 200}]

# a short game over real nodes, for tests of the plumbing (tests/games/pick.py)
SHORT_GAME = (3, {"max_turns": 9})

# the determinization samplers (tests/bots/test_sampling.py)
SAMPLER_CASES = [(4, None)]

# a game long enough for a spectator to join mid-game (tests/node/test_spectate.py)
WATCH_GAME = (3, {}, 0.1)

# the board picture's pieces that carry a tooltip saying whose they are (tests/web/test_table_bugs.py)
PIECES = ("nomad",)

# a turn-based table whose seats' nodes never run together (tests/relay/test_turn_based_mail.py): a short game
TURN_BASED_OPTIONS = {"max_turns": 2, "yellow_tiles": 1}
