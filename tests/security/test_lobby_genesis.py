"""Issue 16, item 7: a malicious host asks a joiner to sign a genesis that differs from the
lobby it advertised (an extra seat, another beacon length, the joiner's key twice). The real
`join` runs against a fake host speaking raw frames on loopback; it must refuse and never
send its signature."""

from __future__ import annotations

import inspect
import os
from functools import partial

import pytest
import trio

from node.net.frames import Connection
from node.net.handshake import handshake
from node.app.lobby import LobbyError, join
from protocol import genesis as G
from protocol.identity import SigningKey
from tests.helpers import timeout

ROLE = "dialer" in inspect.signature(handshake).parameters
HOST = SigningKey.from_seed(b"\x10" * 32)
JOINER = SigningKey.from_seed(b"\x11" * 32)
OTHER = SigningKey.from_seed(b"\x12" * 32)
LOBBY_ID = b"\x42" * 32
LENGTH = 64


def bodies(players: int, me: bytes, tip: bytes, nonce: bytes) -> dict[str, bytes]:
    """The honest body for the lobby, and each forged variant the host might offer."""
    opts = {"rounds": 2}
    seats = [HOST.public, me] + [OTHER.public] * (players - 2)
    tips = [b"\x01" * 32, tip] + [b"\x02" * 32] * (players - 2)

    def body(seats=seats, tips=tips, length=LENGTH, pace=G.LIVE):
        return G.make_body("fixture", opts, seats, tips, nonce, length, 0, pace)
    return {
        "honest": body(),
        "extra seat": body(seats + [OTHER.public], tips + [b"\x03" * 32]),
        "beacon length": body(length=LENGTH * 2),
        "own key twice": body(seats[:2] + [me] * (players - 2)),
        "pace": body(pace=G.TURN_BASED),               # the lobby said nothing of a turn-based table
    }


async def fake_host(listener_port_box, variant: str, players: int, outcome: dict, task_status):
    nonce = os.urandom(16)

    async def serve(stream):
        conn = Connection(stream, "joiner")
        advert = {"t": "lobby", "lobby": LOBBY_ID.hex(), "game": "fixture", "title": "Fixture",
                  "players": players, "seated": 1, "port": 1, "options": {"rounds": 2}, "time_limit": 0}
        await conn.send(advert)
        await handshake(conn, HOST, LOBBY_ID, **({"dialer": False} if ROLE else {}))
        await conn.send(advert)                                       # again, sealed (issue 27)
        await conn.recv()                                             # join
        await conn.send({"t": "seated", "seat": 1, "nonce": nonce, "players": players,
                         "beacon_length": LENGTH})
        tip = (await conn.recv())["tip"]
        await conn.send({"t": "sign", "body": bodies(players, JOINER.public, tip, nonce)[variant]})
        answer = await conn.recv()
        outcome["signed"] = type(answer) is dict and answer.get("t") == "signature"
        await conn.aclose()
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    listener_port_box.append(listeners[0].socket.getsockname()[1])
    task_status.started()
    await trio.serve_listeners(serve, listeners)


@pytest.mark.parametrize("variant,players", [("extra seat", 2), ("beacon length", 2), ("own key twice", 3),
                                             ("pace", 2)])
async def test_a_joiner_refuses_to_sign_a_genesis_unlike_the_lobby(variant, players):
    outcome: dict = {}
    port: list[int] = []
    with trio.fail_after(timeout(20)):
        async with trio.open_nursery() as nursery:
            await nursery.start(partial(fake_host, port, variant, players, outcome))
            with pytest.raises(LobbyError, match="not the advertised game"):
                await join(JOINER, "127.0.0.1", port[0], 1, b"\x05" * 32)
            with trio.move_on_after(timeout(2)):     # ends early only if the joiner signed
                while "signed" not in outcome:
                    await trio.sleep(0.02)    # a poll's pause inside a bounded wait
            nursery.cancel_scope.cancel()
    assert not outcome.get("signed"), f"the joiner signed a genesis with a forged {variant}"


async def test_the_honest_genesis_is_signed():
    """The checks do not refuse the genesis a correct host offers (so they can fail)."""
    outcome: dict = {}
    port: list[int] = []
    with trio.fail_after(timeout(20)):
        async with trio.open_nursery() as nursery:
            await nursery.start(partial(fake_host, port, "honest", 2, outcome))
            with pytest.raises(LobbyError):    # the fake host closes instead of sending "start"
                await join(JOINER, "127.0.0.1", port[0], 1, b"\x05" * 32)
            with trio.move_on_after(timeout(5)):
                while "signed" not in outcome:
                    await trio.sleep(0.02)    # a poll's pause inside a bounded wait
            nursery.cancel_scope.cancel()
    assert outcome.get("signed")
