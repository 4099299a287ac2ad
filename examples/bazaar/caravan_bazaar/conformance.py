"""Bazaar's hooks for the shared conformance battery (the house's tests/games/conformance.py finds
them beside the engine): the rules' invariants, actions worth trying where they are illegal, random
options, the words a seat's picture must not show, the option battery, and the game the node
tests play over real nodes."""

from __future__ import annotations

import random
from typing import Any

from protocol.referee import Referee

from .engine import CARDS, ENGINE, HAND_LIMIT, number
from .options import OPTION_HELP  # noqa: F401 (a hook)

BAD_ACTIONS = ("draw", "pass", "bid", 0, 10_000, ["draw"])


def invariants(s: Any) -> None:
    """Every card is in exactly one place; hands stay within the limit; the scores are what the
    revealed rounds give (R5: at most 2 a round, one winner a round)."""
    held = [h for hand in s.hands for h in hand]
    places = s.deck + held + (s.bids if s.phase == "reveal" else [])
    revealed = sum(len(r) for r in s.played)
    assert len(places) == len(set(places)), "a card is in two places"
    if s.phase != "shuffle":
        assert len(places) + revealed == CARDS, (len(places), revealed)
    assert all(len(h) <= HAND_LIMIT for h in s.hands)
    assert len(s.played) == s.round <= s.rounds
    assert all(len(set(r)) == s.n for r in s.played)
    assert s.round <= sum(s.scores) <= (2 if s.pass_bonus else 1) * s.round
    if s.phase == "bid":
        assert all(s.hands), "a seat bids with an empty hand"


def random_options(rng: random.Random, n: int) -> dict:
    return {"rounds": rng.randint(1, 5), "pass_bonus": rng.random() < 0.7}


def hidden_words(ref: Referee, viewer: int | None) -> set[str]:
    """Every card the viewer has not seen: the deck's and the other seats' hands."""
    known = ref.knowledge[viewer] if viewer is not None else {}
    s = ref.state
    unseen = s.deck + [h for seat, hand in enumerate(s.hands) if seat != viewer for h in hand]
    return {number(ref.truth[h]) for h in unseen if h not in known and h in ref.truth}


# the option battery (the house's tests/games/option_battery.py)
OPTION_BATTERY = {"pass_bonus": [False, True]}
OPTION_VARIED = {"rounds"}
OPTION_COUNTS = (2, 3, 4)
OPTION_QUICK = 20
OPTION_BASE = 9_000_000


def play_options(n: int, seed: int, combo: dict) -> None:
    """One random game of an option combination: the invariants after every step, and each round
    scored as R5 says (the highest card; 2 points after a pass with the pass bonus, else 1)."""
    rng = random.Random(seed)
    ref = Referee(ENGINE, n, dict(combo, rounds=1 + seed % 5), seed=seed)
    s = ref.state
    while True:
        drew, before = list(s.drew), list(s.scores)
        if ref.step(lambda seat, legal, r: legal[rng.randrange(len(legal))]) is None:
            break
        invariants(s)
        if s.scores != before:
            winner = s.played[-1].index(max(s.played[-1]))
            gained = [after - was for after, was in zip(s.scores, before)]
            assert gained == [(2 if s.pass_bonus and not drew[winner] else 1) * (seat == winner)
                              for seat in range(n)], (combo, seed, s.played[-1], drew)
    assert ENGINE.result(s)["winners"], combo


NODE_GAME = (3, {"rounds": 2})
"""(players, options) of the game the node tests play over real nodes (tests/node)."""

# the determinization samplers (tests/bots/test_sampling.py): long enough for a few positions
SAMPLER_CASES = [(4, {"rounds": 5})]
SAMPLER_EVERY = 1                       # a short game: every step (a bid waits for its reveal one step only)

# a game long enough for a spectator to join mid-game (tests/node/test_spectate.py)
WATCH_GAME = (3, {"rounds": 5}, 0.2)

# a turn-based table whose seats' nodes never run together (tests/relay/test_turn_based_mail.py): a short game
TURN_BASED_OPTIONS = {"rounds": 1}
