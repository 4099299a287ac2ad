"""Issue 34 item 5b for spectators: `caravan watch` writes the transcript it ends with into
the data dir (`watched/GAME_ID.caravan`) without following a link planted at that name: the
link's target, a file of the user's outside the data dir, is left as it was."""

from __future__ import annotations

import sys

import trio

from protocol import genesis as G, transcript
from tests.helpers import timeout
from tests.node.procs import ROOT, env
from tests.node.test_spectate import NORMAL, forging_node


async def test_the_watched_transcript_is_not_written_through_a_planted_link(tmp_path):
    data = (ROOT / "specs" / "vectors" / "fixture-2p.caravan").read_bytes()
    genesis_raw, messages = transcript.load(data)
    player, _ = forging_node(genesis_raw, messages, len(messages), linger=5)   # an honest node: no forgery
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
    assert done.returncode == 0, done.stderr
    assert victim.read_text() == "the user's own file\n", "the watch wrote through the planted link"
    assert not planted.is_symlink() and planted.read_bytes() == data
