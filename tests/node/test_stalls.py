"""Stalls (issue #10's table): a seat stopped with SIGSTOP for good, or for about the time
limit and then continued, and a partition longer than the time limit. Every game ends
with byte-identical transcripts that verify — complete, or abandoned by the stalled seat
with the same record on every node — never two outcomes, never a hang past the bound.

Several games run at once (threads drive them) to keep the wall time low."""

from __future__ import annotations

import random
import signal
import threading
import time

import trio

from node.app.game import GameNode
from node.storage.store import GameStore
from protocol import genesis as G, wire
from protocol.verify import verify_bytes
from tests.helpers import make_genesis, timeout
from tests.node.conftest import bot_decider
from tests.node.procs import read_until
from tests.node.stalls import collect, one_truth, start

LIMIT = 2
BOUND = 45.0
"""Seconds after the stall within which every live node must have exited: the time limit,
the give-up bound (max(10 s, 4 × limit)) for announcing the record, and slack for a loaded
machine."""


def _parallel(scenarios) -> list:
    results: list = [None] * len(scenarios)

    def run(i, fn):
        try:
            results[i] = fn()
        except BaseException as exc:          # reported by the main thread
            results[i] = exc
    threads = [threading.Thread(target=run, args=(i, fn)) for i, fn in enumerate(scenarios)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=timeout(BOUND + 120))
    for r in results:
        if isinstance(r, BaseException):
            raise r
    hung = [i for i, t in enumerate(threads) if t.is_alive()]
    assert not hung, f"scenarios {hung} still running after {timeout(BOUND + 120):g} s"
    return results


def _stop_for_good(tmp, events: int, delays):
    game = start(tmp, delays=delays)
    try:
        read_until(game.procs[0], "event", count=events)
        victim = game.procs[2]
        victim.send_signal(signal.SIGSTOP)
        deadline = time.monotonic() + timeout(BOUND)
        results = [collect(p, deadline) for p in game.procs[:2]]
        codes = [c for c, _ in results]
        outcome = one_truth(game, [0, 1], codes, stalled=2)
        assert outcome == "abandoned"
        for _, lines in results:
            assert any(x.get("type") == "abandoned" and "abandoned by seat 2" in x["text"] for x in lines), lines
            assert not any(x.get("type") == "result" for x in lines), "no 'won by' after an abandon"
        return outcome
    finally:
        game.kill_all()


def test_a_seat_stopped_for_good_is_abandoned_by_a_record_that_verifies(tmp_path):
    """Stops at different moments: early, mid-game, and a slow seat 2 (so the others have
    usually sent their parts of a joint step and wait for its part: the case where records
    did not verify)."""
    rng = random.Random(10)
    scenarios = [
        lambda: _stop_for_good(tmp_path / "early", 1, None),
        lambda: _stop_for_good(tmp_path / "mid", rng.randint(4, 9), None),
        lambda: _stop_for_good(tmp_path / "joint", rng.randint(2, 6), [0.02, 0.02, 0.4]),
    ]
    assert _parallel(scenarios) == ["abandoned"] * 3


def _stop_and_continue(tmp, events: int, pause: float):
    game = start(tmp, rounds=5)
    try:
        read_until(game.procs[0], "event", count=events)
        victim = game.procs[2]
        victim.send_signal(signal.SIGSTOP)
        time.sleep(pause)                     # the pause is what is tested (stays: see CONTRIBUTING)
        victim.send_signal(signal.SIGCONT)
        deadline = time.monotonic() + timeout(BOUND)
        codes = [collect(p, deadline)[0] for p in game.procs]
        return one_truth(game, [0, 1, 2], codes, stalled=2)
    finally:
        game.kill_all()


def test_a_seat_stopped_about_the_time_limit_then_continued(tmp_path):
    """Paused for a bit less, about, and a bit more than the limit: whatever each game's
    outcome, all three nodes (the late one too) end with the same one."""
    scenarios = [lambda p=pause, k=k: _stop_and_continue(tmp_path / f"p{k}", 2 + k, p)
                 for k, pause in enumerate([0.7 * LIMIT, 1.0 * LIMIT, 1.1 * LIMIT, 1.5 * LIMIT])]
    outcomes = _parallel(scenarios)
    assert set(outcomes) <= {"complete", "abandoned"}


def _timed_genesis(n: int, limit: int, seed: int):
    keys, secrets, genesis = make_genesis("fixture", {"rounds": 6}, n, random.Random(seed), beacon_length=512)
    body = G.make_body("fixture", {"rounds": 6}, genesis.seats, genesis.beacon_tips, genesis.nonce, 512,
                       time_limit=limit)
    raw = G.Genesis("fixture", {"rounds": 6}, genesis.seats, genesis.beacon_tips, 512, genesis.nonce, body,
                    [G.sign(k, body) for k in keys], limit).to_wire()
    return keys, secrets, raw, G.parse(raw)


def _summary(nodes, files) -> str:
    out = []
    for n, f in zip(nodes, files):
        r = verify_bytes(f)
        out.append(f"seat {n.seat}: {n.outcome} ({n.outcome_text}) transcript {r.messages} msgs "
                   f"{(r.error or {}).get('code')} {r.abandoned_by} log {len(n.session.log)} vote {n.ballot.vote and (n.ballot.vote.stalled, n.ballot.vote.length)}")
    return "\n".join(out)


def _nodes(tmp_path, limit: int, seed: int, delay: float, ports: dict) -> tuple[list, G.Genesis, list[GameNode]]:
    """Three in-process nodes of a fixture game with a time limit (not started)."""
    keys, secrets, raw, gen = _timed_genesis(3, limit, seed)
    nodes = []
    for i in range(3):
        store = GameStore.create(tmp_path / f"n{i}", raw, gen.game_id,
                                 {"secret": secrets[i], "committed": wire.encode([])}, {})
        nodes.append(GameNode(store, keys[i], bot_decider(i, delay), ("127.0.0.1", 0), ports))
    return keys, gen, nodes


async def test_a_partition_longer_than_the_time_limit(tmp_path):
    """Seat 2 is cut off from both others for 2.5 × the limit, then the links come back:
    the game ends one way on every node (the majority abandons seat 2, and seat 2 adopts
    that record once it hears of it)."""
    ports: dict[int, tuple[str, int]] = {}
    keys, gen, nodes = _nodes(tmp_path, LIMIT, 3, 0.03, ports)
    with trio.fail_after(timeout(BOUND + 20)):
        async with trio.open_nursery() as nursery:
            for i, node in enumerate(nodes):
                ports[i] = ("127.0.0.1", await nursery.start(lambda task_status, n=node: n.run(task_status=task_status)))
            while len(nodes[0].session.log) < 12:
                await trio.sleep(0.05)    # a poll's pause inside a bounded wait
            for a, b in ((0, 2), (1, 2), (2, 0), (2, 1)):
                nodes[a].cut(b)
            await trio.sleep(2.5 * LIMIT)          # the partition's length is what is tested
            for a, b in ((0, 2), (1, 2), (2, 0), (2, 1)):
                nodes[a].restore(b)
    files = [(tmp_path / f"n{i}" / "games" / gen.game_id.hex() / "transcript.caravan").read_bytes() for i in range(3)]
    assert len(set(files)) == 1, _summary(nodes, files)
    report = verify_bytes(files[0])
    assert report.valid, report.error
    assert [n.outcome for n in nodes] == ["abandoned"] * 3 and report.abandoned_by == [2], \
        ([n.outcome for n in nodes], report.error)


async def test_a_stranded_node_signs_once_backs_off_and_gives_up(tmp_path, monkeypatch):
    """Both other nodes vanish: node 0 signs at most one statement (not one per tick),
    sends it with back-off, and exits as given up within the stated bound, its transcript
    unfinished but valid."""
    import node.app.game as game_mod
    from protocol import abandon
    monkeypatch.setattr(game_mod, "MIN_GIVE_UP", 3.0)
    signed = []
    real_sign = abandon.sign
    monkeypatch.setattr(abandon, "sign", lambda *a: signed.append(a[0].public) or real_sign(*a))
    ports: dict[int, tuple[str, int]] = {}
    keys, gen, nodes = _nodes(tmp_path, 1, 4, 0.02, ports)
    scopes = [trio.CancelScope() for _ in range(3)]
    with trio.fail_after(timeout(40)):
        async with trio.open_nursery() as nursery:
            for i, node in enumerate(nodes):

                async def run(task_status, n=node, scope=scopes[i]):
                    with scope:
                        await n.run(task_status=task_status)
                ports[i] = ("127.0.0.1", await nursery.start(run))
            while len(nodes[0].session.log) < 10:
                await trio.sleep(0.05)    # a poll's pause inside a bounded wait
            scopes[1].cancel()
            scopes[2].cancel()
            t0 = trio.current_time()
            await nodes[0].finished.wait()
            took = trio.current_time() - t0
    assert nodes[0].outcome == "gave-up", nodes[0].outcome_text
    assert took <= 1 + nodes[0].give_up_after() + timeout(2), took    # the limit, the give-up bound, slack
    assert signed.count(keys[0].public) <= 1
    report = verify_bytes((tmp_path / "n0" / "games" / gen.game_id.hex() / "transcript.caravan").read_bytes())
    assert report.valid and not report.complete and report.error["code"] == "incomplete"
