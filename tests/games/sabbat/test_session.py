"""Sabbat Magica over the protocol session (signed messages, commit-reveal, beacon), in
process: games finish and verify, and a peer's illegal or false POWER claim is rejected and
attributed to its signer."""

from __future__ import annotations

import random

import pytest

from protocol import chain, errors
from protocol.commit import derive_salt
from protocol.games.sabbat import ENGINE
from protocol.games.sabbat import data as D
from protocol.verify import verify_bytes
from tests.helpers import new_table, play


def options(n: int, powers: bool) -> dict:
    return {"powers": powers, "peoples": list(range(n)), "leftovers": "keep"}


@pytest.mark.parametrize("n,powers", [(2, True), (3, False), (4, True)])
def test_game_over_sessions_verifies(n, powers):
    rng = random.Random(n)
    table = new_table(ENGINE, n, seed=10 + n, options=options(n, powers))
    play(table, lambda seat, legal: rng.choice(legal), rng=random.Random(n))
    report = verify_bytes(table.transcript(0))
    assert report.ok, report.error
    assert report.result == ENGINE.result(table.sessions[0].state)
    states = [ENGINE.encode(s.state) for s in table.sessions]
    assert all(x == states[0] for x in states)
    if powers:
        assert any(c is not None for c in table.sessions[0].state.pcard)   # a POWER was revealed


def _deliver(table, author: int, raw: bytes) -> None:
    for seat, s in enumerate(table.sessions):
        if seat != author:
            s.receive(raw)


def _forge(player, body) -> bytes:
    """A validly signed act message from this player that its own node never applied."""
    s = player.session
    seq, prev = s.head(player.seat)
    return chain.seal(player.key, s.game_id, seq + 1, prev, s.refs_for(player.seat), "act", body).raw


def _advance_to_b(table, rng) -> None:
    """Play (delivering every message at once) until the first B-phase decision of round 1."""
    for _ in range(10_000):
        st = table.sessions[0].state
        if st.stage == "turn":
            return
        for seat, p in enumerate(table.players):
            for raw in p.automatic():
                _deliver(table, seat, raw)
            d = p.decision()
            if d is not None:
                _deliver(table, seat, p.decide(rng.choice(d.legal)))
                for raw in p.automatic():
                    _deliver(table, seat, raw)
    raise AssertionError("never reached phase B")


def test_false_power_claim_and_illegal_move_are_attributed():
    n = 3
    rng = random.Random(1)
    table = new_table(ENGINE, n, seed=3, options=options(n, True))
    _advance_to_b(table, rng)
    st = table.sessions[0].state
    seat = st.actor
    p = table.players[seat]
    mine = p.knowledge[st.phandle[seat]]
    other = next(c for c in D.PEOPLE_POWERS[st.people[seat]] if c != mine)
    victim = table.sessions[(seat + 1) % n]
    before = ENGINE.encode(victim.state)
    # a claim of a card the seat did not commit to: the opening does not match
    salt = derive_salt(p.secret, victim.game_id, victim.commitments[st.phandle[seat]][1])
    raw = _forge(p, {"a": ["power", other, 0, 0] if other == D.LUXURIANCE else ["power", other],
                          "o": [[st.phandle[seat], salt]]})
    with pytest.raises(errors.Rejected) as exc:
        victim.receive(raw)
    assert exc.value.seat == seat
    assert ENGINE.encode(victim.state) == before
    # a plain illegal move, validly signed, is rejected and names its signer
    table2 = new_table(ENGINE, n, seed=4, options=options(n, False))
    _advance_to_b(table2, random.Random(2))
    st2 = table2.sessions[0].state
    seat2 = st2.actor
    raw2 = _forge(table2.players[seat2], {"a": ["magician", 99], "o": []})
    victim2 = table2.sessions[(seat2 + 1) % n]
    with pytest.raises(errors.Rejected) as exc2:
        victim2.receive(raw2)
    assert exc2.value.seat == seat2
    assert "(rule B" in str(exc2.value)           # the rule it breaks (B or B.1)
