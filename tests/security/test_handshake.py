"""Issue 16, item 3: an outsider with no key relays each node's handshake to the other and
would be accepted by seat 0 as seat 1 and by seat 1 as seat 0; after the handshake it could
also inject frames into a link it merely forwards. Both are tried against live nodes on
loopback, with raw frames; and a weak (identity) key is refused in the handshake."""

from __future__ import annotations

import inspect
import random
from functools import partial

import trio
import trio.testing

from node.net.frames import Connection, FrameError
from node.net.handshake import HandshakeError, handshake
from protocol.deck.group import L, SMALL_ORDER_POINTS, mul_base, scalar_bytes
from tests.helpers import timeout
from tests.node.conftest import Cluster

TIMEOUT = timeout(20)
# the role argument is part of the fix; without it (the code before) the attacks still run
ROLE = "dialer" in inspect.signature(handshake).parameters


def role(dialer: bool) -> dict:
    return {"dialer": dialer} if ROLE else {}


async def serve(nursery, node) -> int:
    """Accept connections for `node` the way GameNode.run does, on a free loopback port."""
    listeners = await nursery.start(partial(trio.serve_tcp, node._incoming, 0, host="127.0.0.1"))
    return listeners[0].socket.getsockname()[1]


async def pipe_frames(src: Connection, dst: Connection, count: int) -> None:
    for _ in range(count):
        frame = await src.recv()
        if frame is None:
            return
        await dst.send(frame)


async def test_a_relayed_handshake_is_refused_by_both_nodes(tmp_path):
    c = Cluster(tmp_path, 2, seed=16)
    a, b = c.make(0), c.make(1)
    with trio.fail_after(TIMEOUT):
        async with trio.open_nursery() as nursery:
            pa, pb = await serve(nursery, a), await serve(nursery, b)
            ca = Connection(await trio.open_tcp_stream("127.0.0.1", pa), "a")
            cb = Connection(await trio.open_tcp_stream("127.0.0.1", pb), "b")
            # the outsider passes hello and auth of each node to the other, verbatim
            async with trio.open_nursery() as relay:
                relay.start_soon(pipe_frames, ca, cb, 2)
                relay.start_soon(pipe_frames, cb, ca, 2)
                with trio.move_on_after(timeout(3)):     # ends early only if a seat is taken
                    while 1 not in a.conns or 0 not in b.conns:
                        await trio.sleep(0.05)    # a poll's pause inside a bounded wait
                relay.cancel_scope.cancel()
            accepted = (1 in a.conns, 0 in b.conns)
            nursery.cancel_scope.cancel()
    assert accepted == (False, False), "the relay was accepted as a seat"


class _Tap:
    """A TCP proxy between a dialer and a node that forwards bytes and can inject a frame."""

    def __init__(self, node_port: int):
        self.node_port = node_port
        self.upstream: trio.SocketStream | None = None

    async def run(self, nursery, task_status=trio.TASK_STATUS_IGNORED):
        async def handle(down: trio.SocketStream) -> None:
            up = await trio.open_tcp_stream("127.0.0.1", self.node_port)
            self.upstream = up

            async def copy(x, y):
                while data := await x.receive_some(65536):
                    await y.send_all(data)
            async with trio.open_nursery() as n:
                n.start_soon(copy, down, up)
                n.start_soon(copy, up, down)
        listeners = await nursery.start(partial(trio.serve_tcp, handle, 0, host="127.0.0.1"))
        task_status.started(listeners[0].socket.getsockname()[1])


async def test_a_frame_injected_into_an_authenticated_link_drops_the_link(tmp_path):
    """Seat 1 dials seat 0 through a tap; once the link is up, the tap injects a frame (the
    outsider's takeover). Seat 0 must refuse it and drop the link."""
    c = Cluster(tmp_path, 2, seed=17)
    a = c.make(0)
    with trio.fail_after(TIMEOUT):
        async with trio.open_nursery() as nursery:
            port = await serve(nursery, a)
            tap = _Tap(port)
            tap_port = await nursery.start(tap.run, nursery)
            conn = Connection(await trio.open_tcp_stream("127.0.0.1", tap_port), "seat1")
            await handshake(conn, c.keys[1], c.genesis.game_id, **role(True))
            while 1 not in a.conns:
                await trio.sleep(0.02)    # a poll's pause inside a bounded wait
            frame = Connection(tap.upstream, "tap")
            await frame.send({"t": "heads", "h": [0, 0]})         # a plain frame, as on main
            with trio.move_on_after(timeout(3)):
                while 1 in a.conns:
                    await trio.sleep(0.02)    # a poll's pause inside a bounded wait
            still_up = 1 in a.conns
            nursery.cancel_scope.cancel()
    assert not still_up, "an injected frame was taken as seat 1's"


async def test_honest_ends_talk_over_the_sealed_link():
    """Two honest ends: each learns the other's key and frames go through both ways, sealed."""
    from protocol.identity import SigningKey
    ka, kb = SigningKey.from_seed(b"\x01" * 32), SigningKey.from_seed(b"\x02" * 32)
    left, right = trio.testing.memory_stream_pair()
    ca, cb = Connection(left, "a"), Connection(right, "b")
    got = {}

    async def side(conn, key, peer, dialer):
        got[dialer] = await handshake(conn, key, b"s" * 32, **role(dialer))
        await conn.send({"t": "heads", "h": [1, 2]} if dialer else {"t": "x"})
        got[(dialer, "frame")] = await conn.recv()
    with trio.fail_after(TIMEOUT):
        async with trio.open_nursery() as n:
            n.start_soon(side, ca, ka, kb, True)
            n.start_soon(side, cb, kb, ka, False)
    assert got[True] == kb.public and got[False] == ka.public
    assert got[(False, "frame")] == {"t": "heads", "h": [1, 2]} and got[(True, "frame")] == {"t": "x"}


class IdentityKey:
    """An outsider claiming the identity point as its key, forging signatures for it."""
    public = SMALL_ORDER_POINTS[0]

    def sign(self, data: bytes) -> bytes:
        s = random.Random(data).randrange(1, L)
        return bytes(mul_base(s)) + scalar_bytes(s)


async def test_a_weak_key_is_refused_in_the_handshake():
    from protocol.identity import SigningKey
    honest = SigningKey.from_seed(b"\x03" * 32)
    left, right = trio.testing.memory_stream_pair()
    outcome = {}

    async def honest_side():
        try:
            outcome["peer"] = await handshake(Connection(left, "h"), honest, b"g" * 32, **role(False))
        except (HandshakeError, FrameError) as exc:
            outcome["error"] = str(exc)
        await left.aclose()

    async def outsider():
        try:
            await handshake(Connection(right, "o"), IdentityKey(), b"g" * 32, **role(True))
        except Exception:
            pass
    with trio.fail_after(TIMEOUT):
        async with trio.open_nursery() as n:
            n.start_soon(honest_side)
            n.start_soon(outsider)
    assert "peer" not in outcome, "the identity key was accepted"
    assert "not a valid Ed25519 key" in outcome["error"]
