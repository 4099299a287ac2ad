"""A node checks deck proofs in a worker thread (issue #17 item 2): its event loop keeps
running while a shuffle is verified, each proof is checked once, and what is refused is
refused as before."""

from __future__ import annotations

import threading
import time

import pytest
import trio

from node.app.game import GameNode, Progress
from node.storage.store import GameStore
from protocol import errors, wire
from protocol.deck import ops
from tests.deck.deck_game import deck_table, messages, resign, seat_of, snapshot
from tests.helpers import timeout

N = 3
SLOW = timeout(0.5)        # a long proof check (scaled: the loop's tick must beat SLOW / 2)
"""Seconds a slowed shuffle verification takes."""


async def no_decider(view, legal, kind):
    raise AssertionError("the node does not play in these tests")


def shuffle_and_node(tmp_path):
    """The game's first shuffle message, and a node of another seat holding everything before it."""
    t, _ = deck_table(N, seed=N)
    i, m = messages(t, "shuffle")[0]
    author = seat_of(t, m)
    seat = (author + 1) % N
    GameStore.create(tmp_path, t.genesis.to_wire(), t.genesis.game_id,
                     {"secret": t.secrets[seat], "committed": wire.encode([])}, {})
    node = GameNode(GameStore(tmp_path, t.genesis.game_id), t.keys[seat], no_decider, ("127.0.0.1", 0), {},
                    Progress())
    for raw in t.sessions[0].log[:i]:
        node.session.receive(raw)
    return t, m, author, node


def slowed_shuffle_check(monkeypatch) -> list[int]:
    """Make each shuffle verification take SLOW seconds (a blocking wait, like a long proof);
    returns the ids of the threads that ran one."""
    threads: list[int] = []
    real = ops.verify_shuffle

    def slow(*args, **kwargs):
        threads.append(threading.get_ident())
        time.sleep(SLOW)                  # stays (CONTRIBUTING): the slow check is the scenario
        return real(*args, **kwargs)
    monkeypatch.setattr(ops, "verify_shuffle", slow)
    return threads


async def test_the_loop_runs_while_a_shuffle_proof_is_verified(tmp_path, monkeypatch):
    t, m, author, node = shuffle_and_node(tmp_path)
    threads = slowed_shuffle_check(monkeypatch)
    done: dict[str, float] = {}

    async def ingest() -> None:
        await node._ingest(m.raw, author, "test")
        done["ingest"] = time.perf_counter()

    async def tick() -> None:
        await trio.sleep(0.02)            # stays (CONTRIBUTING): the loop's tick is what is measured
        done["tick"] = time.perf_counter()

    start = time.perf_counter()
    with trio.fail_after(timeout(10)):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(ingest)
            nursery.start_soon(tick)
    assert done["tick"] - start < SLOW / 2, "the event loop stalled behind the proof check"
    assert done["tick"] < done["ingest"]
    assert node.session.accepted[author][-1].id == m.id, "the shuffle was not applied"
    assert len(threads) == 1, "the proof must be checked once, not again on the loop"
    assert threads[0] != threading.get_ident(), "the proof was checked on the event loop's thread"


async def test_a_bad_shuffle_proof_is_refused_and_the_genuine_one_applies(tmp_path):
    t, m, author, node = shuffle_and_node(tmp_path)
    body = dict(m.body)
    body["deck"] = body["deck"][1:] + body["deck"][:1]      # validly signed, the proof no longer holds
    bad = resign(t, m, body=body)
    refused: list[errors.Rejected] = []
    node.progress.on_reject = lambda exc, source: refused.append(exc)
    before = snapshot(node.session)
    with trio.fail_after(timeout(10)):
        await node._ingest(bad, author, "test")
    assert [type(e) for e in refused] == [errors.BadProof] and refused[0].seat == author
    assert snapshot(node.session) == before
    with trio.fail_after(timeout(10)):
        await node._ingest(m.raw, author, "test")
    assert node.session.accepted[author][-1].id == m.id


def test_a_passed_proof_job_vouches_only_for_its_message_and_state(tmp_path):
    t, m, author, node = shuffle_and_node(tmp_path)
    s = node.session
    body = dict(m.body)
    body["deck"] = body["deck"][1:] + body["deck"][:1]
    bad = resign(t, m, body=body)
    before = snapshot(s)
    job = s.proof_checks(m.raw)
    assert snapshot(s) == before, "collecting the checks must not change the replica"
    assert job is not None and job.run() and job.passed
    bad_job = s.proof_checks(bad)
    assert bad_job is not None and not bad_job.run()
    with pytest.raises(errors.BadProof):
        s.receive(bad, job)                 # the genuine message's job does not cover another one
    with pytest.raises(errors.BadProof):
        s.receive(bad, bad_job)             # a failed job is checked again
    stale = type(job)(tuple(x + 1 for x in job.version), job.message, job.checks, passed=True)
    threads: list[int] = []
    real = ops.verify_shuffle
    ops_patch = pytest.MonkeyPatch()
    ops_patch.setattr(ops, "verify_shuffle", lambda *a: threads.append(1) or real(*a))
    try:
        assert s.receive(m.raw, stale).status == "applied"
    finally:
        ops_patch.undo()
    assert threads == [1], "a job taken in another state must not spare the check"


def test_a_proof_message_signature_is_checked_once_and_only_for_those_bytes(tmp_path, monkeypatch):
    """`proof_checks` verifies the message's signature before it makes the job; `receive`
    given that job does not verify it again, but does for other bytes of the same message
    (the same envelope with another signature)."""
    from protocol import chain

    t, m, author, node = shuffle_and_node(tmp_path)
    calls = []
    real = chain.Message.signature_ok
    monkeypatch.setattr(chain.Message, "signature_ok", lambda self: calls.append(self.id) or real(self))
    session = node.session
    envelope, _ = wire.decode(m.raw)
    forged = wire.encode([envelope, bytes(64)])
    job = session.proof_checks(m.raw)
    assert job is not None and job.run() and calls == [m.id]
    with pytest.raises(errors.BadSignature):
        session.receive(forged, job)
    assert calls == [m.id, m.id]
    session.receive(m.raw, job)
    assert calls == [m.id, m.id], "the signature proof_checks verified was verified again"
    assert session.accepted[author][-1].id == m.id
