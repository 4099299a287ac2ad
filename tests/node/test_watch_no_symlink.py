"""Issue 34 item 5b for spectators: `caravan watch` writes the transcript it ends with into
the data dir (`watched/GAME_ID.caravan`) without following a link planted at that name: the
link's target, a file of the user's outside the data dir, is left as it was."""

from __future__ import annotations

import sys

import trio

from node.net.frames import Connection
from node.net.handshake import handshake
from protocol import genesis as G, transcript
from protocol.identity import SigningKey
from tests.helpers import timeout
from tests.node.procs import ROOT, env
from tests.node.test_spectate import NORMAL


def honest_node(genesis_raw: bytes, messages: list[bytes]):
    """A player's node, as a spectator's TCP handler, that serves the whole game as it was
    signed, then closes the link as a node does once its game is over."""
    async def serve(stream) -> None:
        conn = Connection(stream, "spectator")
        await handshake(conn, SigningKey.generate(), G.parse(genesis_raw).game_id, dialer=False)
        await conn.send({"t": "genesis", "g": genesis_raw, "names": {}})
        for raw in messages:
            await conn.send({"t": "msg", "m": raw})
        await conn.aclose()
    return serve


async def test_the_watched_transcript_is_not_written_through_a_planted_link(tmp_path):
    data = (ROOT / "specs" / "vectors" / "fixture-2p.caravan").read_bytes()
    genesis_raw, messages = transcript.load(data)
    player = honest_node(genesis_raw, messages)
    victim = tmp_path / "victim.txt"
    victim.write_text("the user's own file\n")
    watched = tmp_path / "data" / "watched"
    watched.mkdir(parents=True)
    planted = watched / f"{G.parse(genesis_raw).game_id.hex()}.caravan"
    planted.symlink_to(victim)
    async with trio.open_nursery() as nursery:
        listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
        nursery.start_soon(trio.serve_listeners, player, listeners)
        port = listeners[0].socket.getsockname()[1]
        with trio.fail_after(timeout(60)):
            done = await trio.run_process([sys.executable, "-m", "node", "watch", f"127.0.0.1:{port}", "--json",
                                           *NORMAL, "--data-dir", str(tmp_path / "data")], capture_stdout=True,
                                          capture_stderr=True, check=False, env=env(), cwd=ROOT)
        nursery.cancel_scope.cancel()
    assert done.returncode == 0, (done.stdout.decode()[-2000:], done.stderr.decode()[-2000:])
    assert victim.read_bytes() == b"the user's own file\n", "the watch wrote through the planted link"
    assert not planted.is_symlink() and planted.read_bytes() == data
