"""Issue 16, item 8: in a 2-player game an abandon record carries one signature, the waiting
seat's. specs/protocol.md §11 says why that is sound: the record is an attestation, never a
win, and a record that the stalled seat, an outsider, or the waiting seat about a game that
does not wait for the other could sign is refused. Checked through `verify`."""

from __future__ import annotations

import random

import pytest

from protocol import abandon, transcript
from protocol.identity import SigningKey
from protocol.verify import verify_bytes
from tests.core.conftest import ENGINE  # noqa: F401  (registers the "fixture" game)
from tests.helpers import new_table, play


@pytest.fixture(scope="module")
def stalled():
    """A 2-player game stopped where it waits for one move of seat 1 alone (a Decide step)."""
    t = new_table(ENGINE, 2, seed=8)
    rng = random.Random(8)
    found = play(t, lambda seat, legal: rng.choice(legal),
                 stop=lambda seat, d: seat == 1 and t.sessions[0].need.kind == "act")
    assert found is not None and found[0] == 1
    s = t.sessions[0]
    assert s.waiting_for() == [1] and s.need.kind == "act", s.describe_need()
    return t


def record_by(t, stalled: list[int], signers: dict[int, SigningKey]) -> bytes:
    s = t.sessions[0]
    digest = abandon.log_digest(s.log)
    sigs = {seat: abandon.sign(k, s.game_id, stalled, len(s.log), digest) for seat, k in signers.items()}
    return transcript.dump(t.genesis.to_wire(), list(s.log) + [abandon.record(stalled, len(s.log), sigs)])


def test_the_waiting_seat_alone_attests_the_stall_and_nobody_wins(stalled):
    r = verify_bytes(record_by(stalled, [1], {0: stalled.keys[0]}))
    assert r.valid and not r.complete and r.abandoned_by == [1] and r.result is None
    assert r.error["code"] == "abandoned"


def test_the_stalled_seat_cannot_sign_for_the_waiting_one(stalled):
    r = verify_bytes(record_by(stalled, [1], {1: stalled.keys[1]}))
    assert not r.valid and r.error["code"] == "bad-abandon"


def test_an_outsider_signature_is_refused(stalled):
    r = verify_bytes(record_by(stalled, [1], {0: SigningKey.from_seed(b"\x66" * 32)}))
    assert not r.valid and r.error["code"] == "bad-signature" and r.error["seat"] == 0


def test_the_stalled_seat_cannot_blame_the_waiting_one(stalled):
    r = verify_bytes(record_by(stalled, [0], {1: stalled.keys[1]}))
    assert not r.valid and r.error["code"] == "bad-abandon"


def test_a_record_must_cover_the_whole_log(stalled):
    """The waiting seat cannot cut the log back to an earlier point and blame seat 1 there:
    the record is checked against the transcript it ends (its length and digest)."""
    s = stalled.sessions[0]
    digest = abandon.log_digest(s.log[:-1])
    sig = abandon.sign(stalled.keys[0], s.game_id, [1], len(s.log) - 1, digest)
    data = transcript.dump(stalled.genesis.to_wire(), list(s.log) + [abandon.record([1], len(s.log) - 1, {0: sig})])
    r = verify_bytes(data)
    assert not r.valid and r.error["code"] == "bad-abandon"
