"""Floods (issue #16, items 4 and 5): a seated peer sending abandon votes with bad
signatures, or many different messages for future sequence numbers, and an outsider
opening many connections that never finish the handshake. The node's memory (Python
allocations, measured with tracemalloc) stays under FLOOD_BOUND, nothing unapplied is
written to its log, and the game still works.

Bound: 24 MiB of growth for each flood below (each would add far more without the limits:
the votes were kept unchecked per (stalled, length) key, every buffered message was
appended to the log, and each unauthenticated connection could buffer 1 MiB)."""

from __future__ import annotations

import gc
import os
import struct
import tracemalloc

import trio
import trio.testing

from node.net.frames import Connection
from node.app.game import MAX_UNAUTHENTICATED
from node.net.handshake import handshake
from protocol import chain
from tests.helpers import timeout
from tests.node.conftest import Cluster

FLOOD_BOUND = 24 << 20


async def _settled() -> None:
    """Until every task of this run (the node's too) has been blocked for a moment: the node
    has done all it will with what it was sent (accepted, read, answered, closed)."""
    await trio.testing.wait_all_tasks_blocked(cushion=0.05)


async def _seated(cluster: Cluster, port: int, seat: int) -> Connection:
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    conn = Connection(stream, "attacker")
    await handshake(conn, cluster.keys[seat], cluster.genesis.game_id)
    return conn


def _grown(start: int) -> int:
    gc.collect()                                # what only awaits the cycle collector is not held
    return tracemalloc.get_traced_memory()[0] - start


async def test_floods_from_a_seated_peer_are_bounded(tmp_path):
    cluster = Cluster(tmp_path, 3)
    tracemalloc.start()
    try:
        with trio.fail_after(timeout(150)):
            async with trio.open_nursery() as nursery:
                node = await cluster.start(nursery, 0)
                port = cluster.ports[0][1]
                log_path = node.store.dir / "messages.log"
                conn = await _seated(cluster, port, 1)
                await _settled()
                gc.collect()
                base = tracemalloc.get_traced_memory()[0]
                size_before = log_path.stat().st_size if log_path.exists() else 0
                # 1. abandon votes: random statements with bad signatures, at most one kept per voter
                for i in range(500):
                    await conn.send({"t": "abandon", "stalled": [2], "length": 10_000 + i, "digest": os.urandom(32),
                                     "h": [0, 10_000 + i, 0], "sig": os.urandom(64), "by": 1})
                # ... and votes naming 100,000 "stalled seats" (each one closes its connection; kept,
                # as before, each would hold 3.6 MiB)
                for i in range(10):
                    extra = await _seated(cluster, port, 1)
                    await extra.send({"t": "abandon", "stalled": list(range(1000, 101_000)), "length": i,
                                      "digest": os.urandom(32), "h": [0, i, 0], "sig": os.urandom(64), "by": 1})
                    with trio.fail_after(timeout(60)):   # only a clearer failure than the 150 s one: a
                        while await extra.recv() is not None:   # loaded core took >10 s (tracemalloc is on)
                            pass
                    await extra.aclose()
                conn = await _seated(cluster, port, 1)
                # 2. many different messages for future seqs (and many for one seq), 32 KiB each
                gid = cluster.genesis.game_id
                for i in range(320):
                    seq = 50 + i if i < 290 else 400
                    msg = chain.seal(cluster.keys[1], gid, seq, os.urandom(32), [], "act",
                                     {"a": i, "o": [], "pad": os.urandom(32 << 10)})
                    await conn.send({"t": "msg", "m": msg.raw})
                await conn.send({"t": "heads", "h": [0, 0, 0]})
                with trio.fail_after(timeout(30)):
                    while True:                      # the node answers once it has read everything
                        frame = await conn.recv()
                        if type(frame) is dict and frame.get("t") == "heads":
                            break
                await _settled()
                grown = _grown(base)
                assert grown < FLOOD_BOUND, f"the node grew by {grown >> 20} MiB"
                assert len(node.ballot.unplaced_votes) <= 1 and not node.ballot.votes
                assert len(node.session.early) <= 256 + 1
                held = sum(len(m.raw) for m in node.session.early.values())
                assert held <= (8 << 20) + (64 << 10)
                size_after = log_path.stat().st_size if log_path.exists() else 0
                assert size_after == size_before, "nothing unapplied is written to the log"
                await conn.aclose()
                nursery.cancel_scope.cancel()
    finally:
        tracemalloc.stop()


async def test_unauthenticated_connections_are_capped(tmp_path):
    """200 links that never finish their handshake (half of them halfway through a 1 MiB
    frame), and more every few milliseconds while the game starts: the node holds at most
    MAX_UNAUTHENTICATED of them, its memory stays bounded, and its real peers still get in
    (a flood that filled the slots used to keep every later link out)."""
    cluster = Cluster(tmp_path, 3)
    tracemalloc.start()
    streams: list[trio.SocketStream] = []
    try:
        with trio.fail_after(timeout(90)):
            async with trio.open_nursery() as nursery:
                node = await cluster.start(nursery, 2)        # the last seat is dialled by the others
                port = cluster.ports[2][1]
                await _settled()
                gc.collect()
                base = tracemalloc.get_traced_memory()[0]

                async def half_open(i: int) -> None:
                    s = await trio.open_tcp_stream("127.0.0.1", port)
                    streams.append(s)
                    if i % 2:                        # half announce a 1 MiB frame and send 64 KiB of it
                        with trio.move_on_after(1):
                            try:
                                await s.send_all(struct.pack(">I", 1 << 20) + b"\0" * (64 << 10))
                            except (trio.BrokenResourceError, trio.ClosedResourceError):
                                pass
                for i in range(200):
                    await half_open(i)
                    await trio.sleep(0)              # a checkpoint between connections, not a wait
                await _settled()
                grown = _grown(base)
                assert node.handshakes.most <= MAX_UNAUTHENTICATED
                assert grown < FLOOD_BOUND, f"the node grew by {grown >> 20} MiB"

                async def keep_a_slot() -> None:
                    for _ in range(100_000):         # bounded by the test's deadline
                        s = await trio.open_tcp_stream("127.0.0.1", port)
                        streams.append(s)
                        try:                         # until the node closes it, then at once another
                            while await s.receive_some(4096):
                                pass
                        except (trio.BrokenResourceError, trio.ClosedResourceError):
                            pass
                        streams.remove(s)
                        await s.aclose()
                        await trio.sleep(0.02)       # stays (CONTRIBUTING): the flood's pace
                async with trio.open_nursery() as flood:
                    for _ in range(2 * MAX_UNAUTHENTICATED):
                        flood.start_soon(keep_a_slot)
                    await cluster.start(nursery, 0)
                    await cluster.start(nursery, 1)
                    with trio.fail_after(timeout(45)):
                        while len(node.session.log) < 10:
                            await trio.sleep(0.1)    # a poll's pause inside a bounded wait
                    flood.cancel_scope.cancel()
                assert node.handshakes.most <= MAX_UNAUTHENTICATED
                nursery.cancel_scope.cancel()
    finally:
        tracemalloc.stop()
        for s in streams:
            with trio.move_on_after(1):
                await s.aclose()
