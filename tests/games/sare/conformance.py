"""Sa-Rê's hooks for the shared conformance battery (tests/games/conformance.py)."""

from __future__ import annotations

import random

from protocol.games.sare.options import OPTION_HELP  # noqa: F401 (a hook)

from .util import BAD_ACTIONS, check_invariants, play_random  # noqa: F401 (a hook)

invariants = check_invariants


def random_options(rng: random.Random, n: int) -> dict:
    """Random play never reaches a scenario goal: a short turn limit ends every game (test_random.py)."""
    return {"scenario": rng.choice(("scribe", "priest", "pharaoh")), "architect": rng.random() < 0.5,
            "shoe": rng.choice(("down", "up")), "pyramid_pick": rng.choice(("top", "free")),
            "turn_limit": rng.choice((2, 4, 6))}


# the option battery (tests/games/option_battery.py)
OPTION_BATTERY = {"scenario": ["scribe", "priest", "pharaoh"], "architect": [False, True],
                  "pyramid_pick": ["top", "free"], "shoe": ["down", "up"]}
OPTION_VARIED = {"turn_limit"}
OPTION_COUNTS = (2, 3, 4)
OPTION_QUICK = 6
OPTION_TURNS = 4          # random play never reaches a goal: the turn limit ends every game (test_random.py)
OPTION_BASE = 7_000_000


def play_options(n: int, seed: int, combo: dict) -> None:
    """One random game of an option combination, with util.check_invariants after every step."""
    ref, result = play_random(n, seed, dict(combo, turn_limit=OPTION_TURNS), sample=0.01)
    assert result is not None and result["winners"], (combo, seed)


# ---------------------------------------------------------------- the conformance vectors (tests/games/vectors_gen.py)

SPEC = "sa-re.md"
VECTOR_GAMES = [
    # (players, options on top of the defaults, seed): every player count, every option value at
    # least once, and (seeds picked for it) every kind of decision point at least once
    (2, {"turn_limit": 12}, 100),
    (3, {"scenario": "scribe", "architect": True, "shoe": "up"}, 101),
    (4, {"scenario": "pharaoh", "pyramid_pick": "free"}, 102),
]
# what they must cover (tests/games/vectors_coverage.py): every value the stage field takes between
# steps (the pass-through stages are left out: no step ever waits in them), every decision point,
# every enumerated option value
STAGE_KEY = "stage"
STAGES = ("order", "setup", "dbl", "shuffle", "dark_shuffle", "draw", "temple_show", "oracle_show",
          "temple_ret", "temple_pos", "market", "p1", "poll", "palace", "tw", "market_final", "p3", "store", "over")
DECISIONS = ("setup", "p1", "poll", "palace", "tw", "market", "market_final", "temple_pos", "p3", "store")
VECTOR_OPTIONS = {"scenario": ["scribe", "priest", "pharaoh"], "architect": [False, True],
                  "pyramid_pick": ["top", "free"], "shoe": ["down", "up"]}


# the recorded games (tests/games/recorded_games.py)
RECORDED_OPTIONS = [{"turn_limit": 30},
                    {"scenario": "priest", "architect": True, "pyramid_pick": "free", "shoe": "up", "turn_limit": 30},
                    {"scenario": "pharaoh", "turn_limit": 30}]

# a short game over real nodes, for tests of the plumbing (tests/games/pick.py)
SHORT_GAME = (2, {"turn_limit": 2})

# the determinization samplers (tests/bots/test_sampling.py)
SAMPLER_CASES = [(3, None), (4, None)]

# a game long enough for a spectator to join mid-game (tests/node/test_spectate.py): cut to 10 turns,
# its 30 cost three times the CPU and check the same
WATCH_GAME = (2, {"turn_limit": 10}, 0.05)

# an end reason the table page says in words (tests/web/test_home_bugs36.py): (players, options,
# the words, the raw key they must replace)
END_REASON = (2, {"turn_limit": 1}, "the last turn was played (the turn limit)", "turn_limit")

# a turn-based table whose seats' nodes never run together (tests/relay/test_turn_based_mail.py): a short game
TURN_BASED_OPTIONS = {"turn_limit": 1}
