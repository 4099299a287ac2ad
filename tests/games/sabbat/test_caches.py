"""What the engine keeps between calls for speed (issue #17) equals what it would work out
afresh: the gate fees per location and the cached legal actions, after every step of random
games; and apply's shortcut for the action objects legal_actions made still refuses an equal
action of the wrong types (True for 1) coming from elsewhere."""

from __future__ import annotations

import copy
import random

import pytest

from protocol import engine as E
from protocol.games.sabbat import ENGINE
from protocol.games.sabbat.engine import _region_fees
from protocol.referee import Referee

OPTIONS = [{}, {"powers": True}, {"powers": True, "power_limit": "trigger", "magician_move": "literal"}]


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("options", OPTIONS, ids=["plain", "powers", "powers-trigger"])
def test_kept_facts_equal_fresh_ones_after_random_play(players, options):
    for seed in range(3):
        rng = random.Random(seed)
        ref = Referee(ENGINE, players, {**ENGINE.default_options(players), **options}, seed=seed)

        def choose(seat, legal, r):
            st = r.state
            assert st._fees == _region_fees(st.gates)
            fresh = ENGINE.decode(ENGINE.encode(st))            # no cache, nothing kept
            assert legal == ENGINE.legal_actions(fresh, seat, r.knowledge[seat])
            assert ENGINE.legal_actions(st, seat, r.knowledge[seat]) == legal   # from the cache
            return legal[rng.randrange(len(legal))]

        for _ in range(3000):
            if ref.step(choose) is None:
                break
        assert ENGINE.result(ref.state) is not None


def _a_move(seed: int = 3):
    """A state in phase B where the actor may move a ghost from the drawbridge, and that move."""
    rng = random.Random(seed)
    ref = Referee(ENGINE, 3, None, seed=seed)
    for _ in range(3000):
        st = ref.state
        if isinstance(ENGINE.expected(st), E.Decide) and st.stage == "turn":
            legal = ENGINE.legal_actions(st, st.actor)
            moves = [a for a in legal if isinstance(a, list) and a[0] == "move" and a[2] == 0]
            if moves:
                return st, moves[0]
        ref.step(lambda seat, legal, r: legal[rng.randrange(len(legal))])
    raise AssertionError("no drawbridge move in the game")


def test_an_equal_action_with_a_bool_for_an_int_is_refused():
    st, move = _a_move()
    forged = move[:2] + [False] + move[3:]                       # False == 0, but not an int
    assert forged == move
    before = ENGINE.encode(st)
    with pytest.raises(E.IllegalAction, match="list of ints and strings"):
        ENGINE.apply(st, E.Act(st.actor, forged))
    assert ENGINE.encode(st) == before


def test_a_copy_of_a_legal_action_is_accepted():
    st, move = _a_move()
    ENGINE.apply(st, E.Act(st.actor, copy.deepcopy(move)))       # equal, not the listed object
    assert st.sub in ("b2", "pay")
