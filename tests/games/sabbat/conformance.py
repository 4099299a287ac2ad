"""Sabbat Magica's hooks for the shared conformance battery (tests/games/conformance.py)."""

from __future__ import annotations

import random

from protocol.games.sabbat import data as D
from protocol.games.sabbat.options import OPTION_HELP  # noqa: F401 (a hook)
from tests.games.sabbat.test_narrate import hidden_titles

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


# ---------------------------------------------------------------- the conformance vectors (tests/games/vectors_gen.py)

SPEC = "sabbat-magica.md"
VECTOR_GAMES = [
    # (players, options on top of the defaults, seed): every player count, every option value at
    # least once, and (seeds picked for it) every kind of decision point at least once
    (2, {}, 100),
    (3, {"powers": True, "peoples": [3, 2, 1], "leftovers": "discard"}, 101),
    (4, {"powers": True, "magician_move": "literal", "power_limit": "trigger"}, 102),
    (3, {"powers": True, "peoples": [1, 2, 3]}, 116),      # (picked once for rare points; what each
    (3, {"powers": True, "peoples": [1, 2, 3]}, 123),      # game covers is in coverage.md)
]
# what they must cover (tests/games/vectors_coverage.py): every value the stage field takes between
# steps, every decision point (in stage `turn`: its `sub`), every enumerated option value, every
# POWER card used
STAGE_KEY = "stage"
STAGES = ("setup", "commit", "secret", "time", "invoke", "canteen", "bonus", "turn", "food", "alch", "end")
DECISIONS = ("secret", "canteen", "bonus", "turn/", "turn/b1", "turn/tt", "turn/b1end", "turn/victims",
             "turn/b2", "turn/pay", "turn/immortal", "food", "alch")
VECTOR_OPTIONS = {"powers": [False, True], "leftovers": ["keep", "discard"], "magician_move": ["king", "literal"],
                  "power_limit": ["round", "trigger"]}


def coverage_extra() -> dict[str, list[str]]:
    """Categories to cover besides stages, decisions and options."""
    return {"POWER card": [D.POWER_TITLES[c] for c in range(len(D.POWER_IDS))]}


def decision_point(state: dict) -> str:
    """Where a seat is asked, from the encoded state."""
    return "turn/" + state["sub"] if state["stage"] == "turn" else state["stage"]


def covered_by_action(action) -> tuple[str, str] | None:
    """(category, item) an action covers besides its decision point."""
    if isinstance(action, list) and action and action[0] == "power":
        return "POWER card", D.POWER_TITLES[action[1]]
    return None


# the recorded games (tests/games/recorded_games.py)
RECORDED_OPTIONS = [{}, {"powers": True}, {"powers": True, "leftovers": "discard", "magician_move": "king",
                                           "power_limit": "round"}]      # the non-default options (issue 24)

# a short game over real nodes, for tests of the plumbing (tests/games/pick.py)
SHORT_GAME = (2, {})

# the RL environment's tests (tests/bots/test_rl.py): the POWER cards, so their actions are in play
RL_GAME = (3, {"powers": True})

# the determinization samplers (tests/bots/test_sampling.py, tests/bots/worlds.py)
SAMPLER_CASES = [(3, {"powers": True}), (2, None)]


def sampled_truth(ref, world) -> None:
    """Each POWER card a sampled world deals is one of its people's."""
    for seat, handle in enumerate(world.state.phandle):
        if handle in ref.truth:
            assert world.truth[handle] in D.PEOPLE_POWERS[world.state.people[seat]]


def vary_hidden(ref, truth: dict, hidden: list, rng: random.Random) -> None:
    """Where shuffling the unknown values changed nothing (one POWER card each): pick others."""
    for seat, handle in enumerate(ref.state.phandle):
        if handle in hidden:
            others = [c for c in D.PEOPLE_POWERS[ref.state.people[seat]] if c != ref.truth[handle]]
            truth[handle] = others[rng.randrange(len(others))]

# a game long enough for a spectator to join mid-game (tests/node/test_spectate.py)
WATCH_GAME = (3, {}, 0.05)

# the board picture's pieces that carry a tooltip saying whose they are (tests/web/test_table_bugs.py)
PIECES = ("ghost", "magician")

# a turn-based table whose seats' nodes never run together (tests/relay/test_turn_based_mail.py): a short game
TURN_BASED_OPTIONS = {}
