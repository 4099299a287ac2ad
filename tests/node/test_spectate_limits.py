"""node/app/spectators.py in one process: a spectator that stops reading is cut off after
SEND_TIMEOUT and costs nothing more (nothing is queued for it)."""

from __future__ import annotations

import trio
import trio.testing

from node.app import spectators
from node.net.frames import Connection


class FakeNode:
    """What Spectators reads from a GameNode: the genesis, the log, a change event, the outcome."""

    def __init__(self, log: list[bytes]):
        self.genesis_raw = b"genesis"
        self.session = type("S", (), {"log": log})()
        self.changed = trio.Event()
        self.outcome: str | None = None
        self.outcome_text = ""


async def test_a_spectator_that_stops_reading_is_cut_off(monkeypatch, autojump_clock):
    monkeypatch.setattr(spectators, "SEND_TIMEOUT", 2.0)
    node = FakeNode([bytes([i]) * 100 for i in range(50)])
    served = spectators.Spectators(node, True, names=lambda: {})
    ours, theirs = trio.testing.lockstep_stream_pair()      # a send waits until the other side reads
    reader = Connection(theirs, "spectator")
    async with trio.open_nursery() as nursery:
        nursery.start_soon(served.serve, Connection(ours, "spectator"), "spectator")
        assert (await reader.recv())["t"] == "genesis"
        assert (await reader.recv())["m"] == node.session.log[0]
        await trio.sleep(1.0)                               # virtual time (autojump_clock): within SEND_TIMEOUT
        assert served.sent                                  # still served: within SEND_TIMEOUT
        await trio.sleep(2.0)                               # ...then it stops reading for longer
        assert not served.sent, "a spectator that does not read is cut off"
        assert served.caught_up()                           # and the node does not linger for it


async def test_the_feed_follows_the_log_and_ends(autojump_clock):
    node = FakeNode([b"a", b"b"])
    served = spectators.Spectators(node, True, names=lambda: {"0": "Amira"})
    ours, theirs = trio.testing.memory_stream_pair()
    reader = Connection(theirs, "spectator")
    async with trio.open_nursery() as nursery:
        nursery.start_soon(served.serve, Connection(ours, "spectator"), "spectator")
        hello = await reader.recv()
        assert hello == {"t": "genesis", "g": b"genesis", "names": {"0": "Amira"}}
        assert [(await reader.recv())["m"] for _ in range(2)] == [b"a", b"b"]
        node.session.log.append(b"c")                       # a new message is logged: sent at once
        changed, node.changed = node.changed, trio.Event()
        changed.set()
        assert (await reader.recv())["m"] == b"c"
        node.outcome, node.outcome_text = "complete", "the game is complete"
        changed, node.changed = node.changed, trio.Event()
        changed.set()
        assert await reader.recv() == {"t": "end", "outcome": "complete", "text": "the game is complete"}
    assert served.caught_up()
