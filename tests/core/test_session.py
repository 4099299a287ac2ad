"""The replica: fixture games among 2-6 in-process replicas, and every kind of bad input."""

import random

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from protocol import chain, engine as E, errors, wire
from protocol.identity import SigningKey
from protocol.session import Session
from protocol.verify import verify_bytes
from tests.core.conftest import finished_table
from tests.fixture_game import ENGINE


@pytest.mark.parametrize("n", [2, 3, 4, 6])
def test_fixture_game_plays_to_the_end_and_verifies(n):
    t = finished_table(n, seed=n)
    logs = {tuple(s.log) for s in t.sessions}
    assert len(logs) == 1, "every replica must hold the same log, in the same order"
    assert all(s.complete for s in t.sessions)
    result = t.sessions[0].result()
    assert len(result["scores"]) == n and result["winners"]
    report = verify_bytes(t.transcript())
    assert report.ok, report.error
    assert report.result == result
    # every seat revealed its committed bonus, and the bonus matches what it committed
    for seat, p in enumerate(t.players):
        state = t.sessions[0].state
        assert state.revealed[seat] == p.knowledge[state.bonus[seat]]


def test_delivery_order_does_not_change_the_outcome():
    a = finished_table(4, seed=11, shuffle=True)
    b = finished_table(4, seed=11, shuffle=False)
    assert a.sessions[0].log == b.sessions[0].log


def snapshot(s: Session):
    return (wire.encode(s.engine.encode(s.state)), tuple(s.log), tuple(len(a) for a in s.accepted),
            tuple(sorted(s.pending)), tuple(sorted(s.early)), s.step_no, s.draw_no, s.complete)


def replay(t, upto: int) -> Session:
    """A fresh replica that has applied the first `upto` messages of seat 0's log."""
    s = Session(t.genesis, ENGINE)
    for raw in t.sessions[0].log[:upto]:
        s.receive(raw)
    return s


def resign(t, raw: bytes, **changes) -> bytes:
    """The same message with some fields changed, validly signed by its author."""
    m = chain.parse(raw)
    key = t.keys[t.genesis.seats.index(m.author)]
    f = {"seq": m.seq, "prev": m.prev, "refs": m.refs, "kind": m.kind, "body": m.body, "game_id": m.game_id}
    f.update(changes)
    return chain.seal(key, f["game_id"], f["seq"], f["prev"], f["refs"], f["kind"], f["body"]).raw


def first_index(t, kind: str, pred=lambda m: True) -> int:
    for i, raw in enumerate(t.sessions[0].log):
        m = chain.parse(raw)
        if m.kind == kind and pred(m):
            return i
    raise LookupError(kind)


def assert_rejected(s: Session, raw: bytes, error: type, seat: int | None = None):
    before = snapshot(s)
    with pytest.raises(error) as info:
        s.receive(raw)
    assert snapshot(s) == before, "a rejected message must not change the replica"
    if seat is not None:
        assert info.value.seat == seat
        assert info.value.author == s.seats[seat]
    return info.value


def test_bad_inputs_are_rejected_with_specific_errors_and_change_nothing(table3):
    t = table3
    log = t.sessions[0].log
    i_act = first_index(t, "act")
    s = replay(t, i_act)
    raw = log[i_act]
    m = chain.parse(raw)
    seat = t.genesis.seats.index(m.author)

    assert_rejected(s, b"\x00garbage", errors.Malformed)
    assert_rejected(s, raw[:-3], errors.Malformed)
    flipped = bytearray(raw)
    flipped[-10] ^= 1                                     # inside the signature
    assert_rejected(s, bytes(flipped), errors.BadSignature, seat)
    outsider = SigningKey.from_seed(b"\x09" * 32)
    assert_rejected(s, chain.seal(outsider, t.genesis.game_id, 0, t.genesis.game_id, [], "act",
                                  m.body).raw, errors.UnknownAuthor)
    assert_rejected(s, resign(t, raw, game_id=b"\x01" * 32), errors.WrongGame, seat)
    assert_rejected(s, resign(t, raw, prev=b"\x02" * 32), errors.BadChain, seat)
    assert_rejected(s, resign(t, raw, body={"a": "fly", "o": []}), errors.IllegalMove, seat)
    assert_rejected(s, resign(t, raw, body={"a": "keep"}), errors.BadBody, seat)
    assert_rejected(s, resign(t, raw, kind="commit", body={"c": b"\x00" * 32}), errors.Unexpected, seat)
    # out of turn: the same move signed by another seat that is not expected now
    other = (seat + 1) % 3
    o_seq, o_prev = s.head(other)
    bad = chain.seal(t.keys[other], t.genesis.game_id, o_seq + 1, o_prev, s.refs_for(other), "act",
                     m.body).raw
    strict = replay(t, i_act)
    strict.strict = True
    assert_rejected(strict, bad, errors.Unexpected, other)
    # finally the genuine message still applies
    assert s.receive(raw).status == "applied"


def test_equivocation_yields_a_checkable_proof(table3):
    t = table3
    i = first_index(t, "act")
    s = replay(t, i + 1)
    raw = t.sessions[0].log[i]
    m = chain.parse(raw)
    twin = resign(t, raw, body={"a": "reroll" if m.body["a"] == "keep" else "keep", "o": []})
    exc = assert_rejected(s, twin, errors.Equivocation, t.genesis.seats.index(m.author))
    proof = chain.EquivocationProof.from_wire(exc.evidence["proof"])
    assert proof.check() == (t.genesis.game_id, m.author, m.seq)
    assert s.receive(raw).status == "duplicate"


def test_wrong_opening_and_wrong_beacon(table3):
    t = table3
    i = first_index(t, "reveal")
    s = replay(t, i)
    raw = t.sessions[0].log[i]
    m = chain.parse(raw)
    seat = t.genesis.seats.index(m.author)
    assert_rejected(s, resign(t, raw, body={"v": m.body["v"] % 3 + 1, "s": m.body["s"]}), errors.BadOpening, seat)
    assert_rejected(s, resign(t, raw, body={"v": m.body["v"], "s": b"\x00" * 32}), errors.BadOpening, seat)
    j = first_index(t, "beacon")
    s = replay(t, j)
    raw = t.sessions[0].log[j]
    m = chain.parse(raw)
    seat = t.genesis.seats.index(m.author)
    assert_rejected(s, resign(t, raw, body={"k": 1, "x": b"\x03" * 32}), errors.BadBeacon, seat)
    assert_rejected(s, resign(t, raw, body={"k": 2, "x": m.body["x"]}), errors.BadBeacon, seat)


def test_committed_value_that_is_illegal_is_caught_at_reveal():
    from protocol.commit import commitment, derive_salt
    from tests.helpers import new_table
    t = new_table(ENGINE, 2, seed=8)
    p0, p1 = t.players
    s0, s1 = t.sessions
    rng = random.Random(0)
    # play (both players on replica pairs) until the first simultaneous bet
    at_bet = lambda s: isinstance(s.need.step, E.Simultaneous)
    while not (at_bet(s0) and at_bet(s1)):
        for p, other in ((p0, s1), (p1, s0)):
            if at_bet(p.session):
                continue
            out = p.automatic()
            d = p.decision()
            if d is not None:
                out.append(p.decide(rng.choice(d.legal)))
            for raw in out:
                other.receive(raw)
    ctx = s0.need.context
    p0.committed[wire.encode(ctx)] = 7                       # not a legal bet
    raw0 = p0._send("commit", {"c": commitment(s0.game_id, 0, ctx, 7, derive_salt(p0.secret, s0.game_id, ctx))})
    s1.receive(raw0)
    s0.receive(p1.decide(2))
    with pytest.raises(errors.IllegalMove, match="not a legal choice") as info:
        p0.automatic()
    assert info.value.seat == 0


def test_early_messages_are_buffered_then_applied(table3):
    t = table3
    log = list(t.sessions[0].log)
    s = Session(t.genesis, ENGINE)
    rng = random.Random(4)
    pending = log[:]
    rng.shuffle(pending)
    # deliver in random order, redelivering what was buffered; must converge to the same log
    for raw in pending:
        s.receive(raw)
    assert s.log == log and s.complete


def test_a_flood_of_early_messages_is_bounded(table3):
    from protocol import session as S
    t = table3
    s = Session(t.genesis, ENGINE)
    key = t.keys[0]
    gid = t.genesis.game_id
    for q in range(1, S.MAX_EARLY + 1):
        s.receive(chain.seal(key, gid, q, gid, [], "act", q).raw)
    with pytest.raises(errors.Unexpected, match="ahead"):
        s.receive(chain.seal(key, gid, S.MAX_EARLY + 5, gid, [], "act", 0).raw)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.data())
def test_fuzzed_messages_never_crash_or_corrupt(table3, data):
    t = table3
    log = t.sessions[0].log
    k = data.draw(st.integers(0, len(log) - 1))
    s = replay(t, k)
    raw = log[k]
    choice = data.draw(st.sampled_from(["flip", "truncate", "random", "resign-body", "resign-seq"]))
    if choice == "flip":
        b = bytearray(raw)
        b[data.draw(st.integers(0, len(b) - 1))] ^= data.draw(st.integers(1, 255))
        bad = bytes(b)
    elif choice == "truncate":
        bad = raw[: data.draw(st.integers(0, len(raw) - 1))]
    elif choice == "random":
        bad = data.draw(st.binary(max_size=300))
    elif choice == "resign-body":
        body = data.draw(st.recursive(st.none() | st.integers(-5, 300) | st.binary(max_size=33) | st.text(max_size=5),
                                      lambda i: st.lists(i, max_size=3) | st.dictionaries(st.sampled_from("aocvskx"), i, max_size=3),
                                      max_leaves=8))
        bad = resign(t, raw, body=body)
    else:
        bad = resign(t, raw, seq=data.draw(st.integers(0, 40)))
    before = snapshot(s)
    try:
        receipt = s.receive(bad)
    except errors.Rejected as exc:
        assert snapshot(s) == before
        assert str(exc)
        return
    # accepted: only possible if it is the genuine message, a harmless buffer, or equal content
    assert receipt.status in ("applied", "buffered", "duplicate")
    if receipt.status == "applied":
        assert chain.parse(bad).id == chain.parse(raw).id or chain.parse(bad).body == chain.parse(raw).body
