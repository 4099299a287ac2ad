"""A spectator who waited in the lobby but is slower than the whole game (issue 31: a CI run
on a busy machine): the lobby told it the game id, the game was over before it dialled, and
the host's node had already left, so the watcher failed with "no player's node answered".
The host's node now waits after the game (node/app/spectators.py LOBBY_WATCHERS_DUE) for the
spectators its lobby told of the game, and no longer than until each came."""

from __future__ import annotations

from functools import partial

import pytest
import trio

from node.app import game as game_mod
from node.net.frames import Connection
from node.app.spectators import Spectators
from node.app.watch import Replica, WatchError, open_feed
from protocol import transcript
from tests.helpers import timeout
from tests.node.conftest import Cluster


async def _start(c: Cluster, nursery, ended: dict[int, float], left: dict[int, trio.Event]) -> list:
    """Both nodes of the fixture game running; seat 0's lobby told one spectator of it. When
    a node's run returns, `ended` gets the time and `left` its event is set."""
    nodes = []
    for i in range(2):
        node = c.make(i)
        node.spectators = Spectators(node, True, names=lambda: {}, expected=1 if i == 0 else 0)

        async def run(node=node, i=i, task_status=trio.TASK_STATUS_IGNORED):
            await node.run(task_status=task_status)
            ended[i] = trio.current_time()
            left[i].set()
        c.ports[i] = ("127.0.0.1", await nursery.start(run))
        nodes.append(node)
    return nodes


async def test_the_host_waits_after_the_game_for_the_spectator_its_lobby_told(tmp_path, monkeypatch):
    monkeypatch.setattr(game_mod, "LINGER", 0.0)        # no grace beyond the wait under test
    c = Cluster(tmp_path, 2)
    ended: dict[int, float] = {}
    left = {0: trio.Event(), 1: trio.Event()}
    with trio.fail_after(timeout(60)):
        async with trio.open_nursery() as nursery:
            host = (await _start(c, nursery, ended, left))[0]
            await host.finished.wait()
            await left[1].wait()                           # the other seat's node left (nothing awaited it)
            assert 0 not in ended, "the host's node left before the spectator its lobby told came"
            conn, game_id = await open_feed(f"127.0.0.1:{c.ports[0][1]}", lambda *a, **k: None)
            assert game_id == c.genesis.game_id
            replica = Replica((await conn.recv())["g"], {})
            while (frame := await conn.recv())["t"] == "msg":
                assert await replica.receive(frame["m"]) is not None
            assert frame["t"] == "end" and frame["outcome"] == "complete"
            await conn.aclose()
            nursery.cancel_scope.cancel()
    assert replica.transcript() == transcript.dump(c.genesis.to_wire(), host.session.log)


async def test_the_wait_for_a_told_spectator_who_never_comes_is_bounded(tmp_path, monkeypatch):
    monkeypatch.setattr(game_mod, "LINGER", 0.0)
    monkeypatch.setattr(game_mod, "LOBBY_WATCHERS_DUE", 1.0)
    c = Cluster(tmp_path, 2)
    ended: dict[int, float] = {}
    left = {0: trio.Event(), 1: trio.Event()}
    with trio.fail_after(timeout(60)):
        async with trio.open_nursery() as nursery:
            host = (await _start(c, nursery, ended, left))[0]
            await host.finished.wait()
            over = trio.current_time()
            await left[0].wait()
    assert 1.0 <= ended[0] - over < 1.0 + timeout(5)


async def test_a_watcher_meeting_the_lobby_as_it_closes_dials_again():
    """Seen on a one-core run: a watcher reached the host's port just as its lobby closed (the
    game opens on the same port a moment later) and stopped with "closed the connection
    without a word". It now dials again; here the second answer is no Caravan node at all,
    which it then names."""
    calls = []

    async def handler(stream):
        calls.append(stream)
        if len(calls) > 1:                               # the port answers again
            await Connection(stream, "test").send({"t": "nope"})
        await stream.aclose()

    with trio.fail_after(timeout(30)):
        async with trio.open_nursery() as nursery:
            [listener] = await nursery.start(partial(trio.serve_tcp, handler, 0, host="127.0.0.1"))
            port = listener.socket.getsockname()[1]
            with pytest.raises(WatchError, match="is not a Caravan game or lobby"):
                await open_feed(f"127.0.0.1:{port}", lambda *a, **k: None)
            nursery.cancel_scope.cancel()
    assert len(calls) == 2
