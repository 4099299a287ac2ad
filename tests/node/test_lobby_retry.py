"""The joiner's side of the lobby on a slow host: a handshake that times out is tried again
on a fresh connection; `join` pointed at a running game's port says to use `caravan resume`."""

import pytest
import trio

from node.net import handshake as H
from node.app import lobby
from node.storage.store import load_identity
from tests.helpers import timeout
from tests.node.conftest import Cluster


async def test_a_slow_first_handshake_is_retried(tmp_path, monkeypatch):
    monkeypatch.setattr(H, "HANDSHAKE_TIMEOUT", timeout(0.5))
    host_key = load_identity(tmp_path / "h")
    the_lobby = lobby.Lobby(host_key, "fixture", 2, {"rounds": 1})
    real = lobby.handshake
    calls = {"n": 0}

    async def slow_once(conn, key, scope, dialer=True, **kw):
        if key is host_key:
            calls["n"] += 1
            if calls["n"] == 1:
                await trio.sleep(timeout(1.5))   # stays (CONTRIBUTING): the late handshake is the scenario
        return await real(conn, key, scope, dialer=dialer, **kw)
    monkeypatch.setattr(lobby, "handshake", slow_once)
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    port = listeners[0].socket.getsockname()[1]
    with trio.fail_after(timeout(30)):
        async with trio.open_nursery() as nursery:
            hosted = {}

            async def host():
                hosted["setup"] = await the_lobby.run(listeners, b"\1" * 32)
            nursery.start_soon(host)
            setup = await lobby.join(load_identity(tmp_path / "j"), "127.0.0.1", port, 9999, b"\2" * 32)
    assert calls["n"] >= 2 and setup.seat == 1 and setup.game_id == hosted["setup"].game_id


async def test_join_pointed_at_a_running_game_says_resume(tmp_path):
    cluster = Cluster(tmp_path, 3)
    with trio.fail_after(timeout(30)):
        async with trio.open_nursery() as nursery:
            await cluster.start(nursery, 0)
            with pytest.raises(lobby.LobbyError, match="game in progress.*caravan resume"):
                await lobby.join(load_identity(tmp_path / "j"), "127.0.0.1", cluster.ports[0][1], 9999, b"\2" * 32)
            nursery.cancel_scope.cancel()
