"""The disk behind the game (issue #25 item 6): a node's own message is written, then sent,
without waiting for an fsync, which a worker thread does behind the game; spectators get
only what the disk holds; a failing fsync stops the node as a failing write does. (What a
crash may lose — the tail of the log — is fetched back before the node signs again:
tests/node/test_crash.py kills nodes and cuts their logs at any byte.)"""

from __future__ import annotations

import errno
import random
import threading
from types import SimpleNamespace

import msgpack
import trio
import trio.testing

from node.storage import store as S
from node.app.game import GameNode, Progress
from node.app.spectators import Spectators
from node.storage.store import GameStore
from protocol import games, wire
from tests.helpers import make_genesis, timeout


async def no_decider(view, legal, kind):
    raise AssertionError("the node does not play in these tests")


class Link:
    """A peer link that keeps what is sent on it."""
    address = "test"

    def __init__(self) -> None:
        self.frames: list = []

    async def send(self, frame) -> None:
        self.frames.append(msgpack.unpackb(frame.data) if hasattr(frame, "data") else frame)


def a_node(tmp_path) -> GameNode:
    engine = games.get("fixture")
    keys, secrets, genesis = make_genesis("fixture", engine.default_options(2), 2, random.Random(5))
    GameStore.create(tmp_path, genesis.to_wire(), genesis.game_id,
                     {"secret": secrets[0], "committed": wire.encode([])}, {})
    return GameNode(GameStore(tmp_path, genesis.game_id), keys[0], no_decider, ("127.0.0.1", 0), {}, Progress())


def first_own_messages(node: GameNode) -> list[bytes]:
    raws = node.player.automatic()
    if not raws:
        decision = node.player.decision()
        raws = [node.player.decide(decision.legal[0])]
    return raws


async def test_an_own_message_is_sent_before_it_is_fsyncd_and_fsyncd_behind_the_game(tmp_path, monkeypatch):
    node = a_node(tmp_path)
    link = Link()
    node.conns[1] = link
    disk = threading.Event()                     # the disk answers only when the test says so
    synced: list[int] = []

    def slow_fsync(fd: int) -> None:
        assert disk.wait(timeout(10)), "the test never let the disk answer"
        synced.append(fd)
    monkeypatch.setattr(S.os, "fsync", slow_fsync)
    raws = first_own_messages(node)
    with trio.fail_after(timeout(10)):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(node._flush)
            assert await node._publish(*raws)
            assert [f["m"] for f in link.frames] == raws, "sent at once, the fsync still pending"
            assert synced == [] and node.durable_log_len == 0
            written = GameStore(tmp_path, node.genesis.game_id).messages(repair=False)
            assert written == raws, "written (a killed process loses nothing) before it is sent"
            disk.set()
            while not synced:
                await trio.sleep(0.01)    # a poll's pause inside a bounded wait
            nursery.cancel_scope.cancel()
    assert node.durable_log_len == len(node.session.log)
    assert GameStore(tmp_path, node.genesis.game_id).messages() == raws


async def test_a_failing_fsync_stops_the_node_with_one_line(tmp_path, monkeypatch):
    node = a_node(tmp_path)

    def broken(fd: int) -> None:
        raise OSError(errno.EIO, "Input/output error")
    monkeypatch.setattr(S.os, "fsync", broken)
    assert await node._publish(*first_own_messages(node))
    with trio.fail_after(timeout(10)):
        await node._flush()                      # returns: the node stops
    assert node.outcome == "store-failed" and node.finished.is_set()
    assert "messages.log" in node.outcome_text and "Input/output error" in node.outcome_text
    assert node.durable_log_len == 0, "nothing counts as durable after a failed fsync"
    monkeypatch.undo()
    node.store.close()


async def test_spectators_get_only_what_the_disk_holds():
    """A spectator that kept a message a machine crash then took from every player could
    show the seat's re-signed one beside it as an equivocation: only durable messages go out."""
    node = SimpleNamespace(genesis_raw=b"genesis", session=SimpleNamespace(log=[b"a", b"b", b"c"]),
                           changed=trio.Event(), outcome=None, outcome_text="", durable_log_len=1)
    link = Link()
    spectators = Spectators(node, True, names=lambda: {})
    spectators.sent[0] = 0

    def wake() -> None:
        node.changed.set()
        node.changed = trio.Event()
    with trio.fail_after(timeout(10)):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(spectators._feed, link, 0)
            await trio.testing.wait_all_tasks_blocked()     # the feeder sent what it may, and waits
            assert [f.get("m") for f in link.frames] == [None, b"a"]
            node.outcome = "complete"            # over, but two messages not durable yet: no end
            wake()
            await trio.testing.wait_all_tasks_blocked()     # the feeder saw the outcome, and waits again
            assert [f["t"] for f in link.frames] == ["genesis", "msg"]
            node.durable_log_len = 3
            wake()
    assert [f.get("m") for f in link.frames[1:4]] == [b"a", b"b", b"c"]
    assert link.frames[-1]["t"] == "end"
