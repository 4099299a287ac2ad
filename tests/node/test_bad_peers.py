"""Garbage, oversized frames, silent peers, unseated keys, foreign games and torn frames:
each is logged with the peer's address and dropped; the game goes on and ends intact."""

import logging
import struct

import trio

from node.net.frames import Connection
from node.net.handshake import handshake
from protocol import chain
from protocol.identity import SigningKey
from protocol.verify import verify_bytes
from tests.helpers import timeout, wait_until_async
from tests.node.conftest import Cluster


async def attack(port: int, cluster: Cluster, caplog) -> None:
    addr = ("127.0.0.1", port)
    gid = cluster.genesis.game_id

    async def logged(what: str, *words: str) -> None:
        """Until the node has logged (and so read) the bad input: only then is it closed."""
        await wait_until_async(lambda: any(w in caplog.text for w in words), 10, f"the node to log {what}")
    # 1. garbage bytes
    s = await trio.open_tcp_stream(*addr)
    await s.send_all(b"\x00\x00\x00\x05hello-not-msgpack")
    await logged("the garbage", "undecodable frame", "not a valid hello")
    await s.aclose()
    # 2. an oversized frame header
    s = await trio.open_tcp_stream(*addr)
    await s.send_all(struct.pack(">I", 1 << 31))
    await logged("the oversized frame", "over the")
    await s.aclose()
    # 3. a handshake from a key that holds no seat
    s = await trio.open_tcp_stream(*addr)
    await handshake(Connection(s, "x"), SigningKey.from_seed(b"\x77" * 32), gid)
    await logged("the unseated key", "holds no other seat")
    await s.aclose()
    # 4. a handshake for another game
    s = await trio.open_tcp_stream(*addr)
    try:
        await handshake(Connection(s, "x"), cluster.keys[1], b"\x01" * 32)
    except Exception:
        pass
    await s.aclose()
    # 5. a seated peer (seat 2's key) sends a valid message of another game, then a torn frame
    s = await trio.open_tcp_stream(*addr)
    conn = Connection(s, "x")
    await handshake(conn, cluster.keys[2], gid)
    foreign = chain.seal(cluster.keys[2], b"\x09" * 32, 0, b"\x09" * 32, [], "act", {"a": "keep", "o": []})
    await conn.send({"t": "msg", "m": foreign.raw})
    await s.send_all(struct.pack(">I", 100) + b"\x92")
    await logged("the other game's message", "wrong-game")
    await s.aclose()


async def test_bad_peers_are_dropped_and_the_game_goes_on(tmp_path, caplog):
    caplog.set_level(logging.WARNING)
    c = Cluster(tmp_path, 3, seed=5, options={"rounds": 5}, delay=0.01)
    with trio.fail_after(timeout(60)):
        async with trio.open_nursery() as nursery:
            nodes = [await c.start(nursery, i) for i in range(3)]
            # 6. a silent peer (slowloris) holds a connection open the whole time
            silent = await trio.open_tcp_stream("127.0.0.1", c.ports[0][1])
            await attack(c.ports[0][1], c, caplog)
    await silent.aclose()
    text = caplog.text
    assert "127.0.0.1:" in text
    assert "holds no other seat" in text                       # unseated key
    assert "another lobby or game" in text                     # foreign handshake
    assert "wrong-game" in text                                # foreign game message
    assert "over the" in text and "limit" in text              # oversized frame
    assert "undecodable frame" in text or "not a valid hello" in text   # garbage
    files = [(d / "games" / c.genesis.game_id.hex() / "transcript.caravan").read_bytes() for d in c.dirs]
    assert len(set(files)) == 1
    assert verify_bytes(files[0]).ok
    assert all(n.session.complete for n in nodes)


async def test_silent_and_slow_peers_time_out(tmp_path, caplog, monkeypatch):
    import node.net.frames
    import node.net.handshake
    monkeypatch.setattr(node.net.handshake, "HANDSHAKE_TIMEOUT", 0.3)
    monkeypatch.setattr(node.net.frames, "FRAME_TIMEOUT", 0.3)
    caplog.set_level(logging.WARNING)
    c = Cluster(tmp_path, 2, seed=1)
    with trio.fail_after(timeout(20)):
        async with trio.open_nursery() as nursery:
            n0 = c.make(0)
            port = await nursery.start(lambda task_status: n0.run(task_status=task_status))
            silent = await trio.open_tcp_stream("127.0.0.1", port)          # says nothing at all
            slow = await trio.open_tcp_stream("127.0.0.1", port)            # starts a frame, never ends it
            await slow.send_all(b"\x00\x00\x00\x40\x81")
            with trio.fail_after(timeout(3)):                              # the node closes both
                for stream in (silent, slow):
                    while await stream.receive_some(1 << 16):
                        pass
            nursery.cancel_scope.cancel()
    assert "no handshake within" in caplog.text
    assert "did not arrive whole" in caplog.text or "no handshake within" in caplog.text
    assert caplog.text.count("handshake with 127.0.0.1:") >= 2
