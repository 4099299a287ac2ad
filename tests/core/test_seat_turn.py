"""The signing steps of a seat's game loop (protocol/seat/turn.py), shared by the trio node and
the tab's driver: nothing is signed before the gate opens, after the shell stopped, or for a
question the replica has moved past; otherwise the decider's answer is signed and applied."""

from __future__ import annotations

import dataclasses
import random

from protocol import chain, games
from protocol.local_table import new_table, play
from protocol.seat.core import SeatCore
from protocol.seat.turn import Turn
from tests.games.pick import quick_game, short_game

N = 3


def at_a_decision() -> tuple[Turn, int]:
    """A seat's Turn on a replica that waits for that seat's decision (every replica up to date)."""
    game = quick_game(N)
    engine = games.get(game)
    t = new_table(engine, N, seed=4, options={**engine.default_options(N), **short_game(game)[1]})
    rng = random.Random(4)
    found = play(t, lambda seat, legal: legal[rng.randrange(len(legal))], stop=lambda seat, d: True)
    assert found is not None
    seat = found[0]
    return Turn(SeatCore(t.sessions[seat], seat, t.keys[seat]), t.players[seat]), seat


def test_the_answer_is_signed_only_through_an_open_gate_and_for_the_current_state():
    turn, seat = at_a_decision()
    question = turn.question()
    assert question is not None and question.legal and question.view is not None
    assert turn.question(wants_view=False).view is None
    assert not turn.may_sign(), "the gate is shut until every peer reported its heads"
    assert turn.answer(question, question.legal[0]) is None
    turn.core.mesh.recovered = True
    assert turn.may_sign() and not turn.may_sign(stopped=True)
    assert turn.answer(question, question.legal[0], stopped=True) is None
    stale = dataclasses.replace(question, version=tuple(c - 1 for c in question.version))
    assert turn.answer(stale, question.legal[0]) is None, "the replica moved on since it asked"
    before = len(turn.session.accepted[seat])
    raw = turn.answer(question, question.legal[0])
    assert raw is not None and chain.parse(raw).author == turn.player.key.public
    assert len(turn.session.accepted[seat]) == before + 1, "signed and applied"
    assert turn.question() is None or turn.question().version != question.version
