"""Issue 27, item 1 on a LAN: `caravan join HOST:PORT/KEY` accepts no other host. Someone
else answering at that address (here a real lobby under another key) is refused right after
the handshake, before the joiner sends `join` or signs anything; the right key joins."""

from __future__ import annotations

import os

import pytest
import trio
import trio.testing

from node.app import operations as app, lobby, output, runner
from node.net.handshake import key_pin
from protocol.identity import SigningKey
from tests.helpers import timeout
from tests.node.conftest import games  # noqa: F401  (registers the fixture game)


async def _hosting(the_lobby: lobby.Lobby, hosted: dict, task_status=trio.TASK_STATUS_IGNORED):
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    task_status.started(listeners[0].socket.getsockname()[1])
    hosted["setup"] = await the_lobby.run(listeners, os.urandom(32))


async def test_a_joiner_refuses_a_host_with_another_key_before_sending_anything(tmp_path):
    impostor = lobby.Lobby(SigningKey.generate(), "fixture", 2, {"rounds": 1})
    expected = key_pin(SigningKey.generate().public)
    seat = runner.Seat(tmp_path / "j", bind="127.0.0.1", bot="random", status=output.Status(quiet=True))
    with trio.fail_after(timeout(30)):
        async with trio.open_nursery() as nursery:
            port = await nursery.start(_hosting, impostor, {})
            with pytest.raises(lobby.LobbyError, match="not .* the one you were given: nothing was sent or signed"):
                await app.join(f"127.0.0.1:{port}/{expected.hex()}", seat)
            await trio.testing.wait_all_tasks_blocked(cushion=0.05)   # the lobby handled whatever came
            assert impostor.joiners == [], "the joiner took a seat with a host it was told not to trust"
            nursery.cancel_scope.cancel()
    assert not (tmp_path / "j" / "games").exists()


async def test_the_right_host_key_joins(tmp_path):
    host = lobby.Lobby(SigningKey.generate(), "fixture", 2, {"rounds": 1})
    hosted: dict = {}
    with trio.fail_after(timeout(30)):
        async with trio.open_nursery() as nursery:
            port = await nursery.start(_hosting, host, hosted)
            setup = await lobby.join(SigningKey.generate(), "127.0.0.1", port, 9, os.urandom(32),
                                     host_pin=lobby.split_host_key(f"127.0.0.1:{port}/{host.pin.hex().upper()}")[1])
            while "setup" not in hosted:
                await trio.sleep(0.05)    # a poll's pause inside a bounded wait
    assert setup.game_id == hosted["setup"].game_id and setup.seat == 1
