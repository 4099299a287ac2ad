"""An abandoned game's record reaches its spectators (issue 26, specs/node.md "Spectators"):
the node's `end` frame carries the record and the frames it covers; the watcher checks
them as the transcript they make, ends with the players' transcript byte for byte and says
so in one line; a record that does not verify is named with its signer."""

from __future__ import annotations

import signal
import time

import trio
import trio.testing

from node.app import spectators
from node.net.frames import Connection
from node.app.watch import Replica
from protocol import abandon, transcript
from protocol.verify import verify_bytes
from tests.fixture_game import ENGINE
from tests.helpers import new_table, play, timeout
from tests.node.procs import node, read_until
from tests.node.stalls import collect, start
from tests.node.test_spectate import NORMAL

BOUND = 45.0
"""As tests/node/test_stalls.py: the time limit, the give-up bound and slack for a loaded machine."""


class StalledNode:
    """A player's node (what Spectators reads) whose game seat 2 stalled inside a joint step:
    seats 0 and 1 sent their parts (pending, not logged), and co-signed the record."""

    def __init__(self, forge: bool = False):
        table = new_table(ENGINE, 3, seed=5)
        assert play(table, lambda seat, legal: legal[0], stop=lambda seat, d: seat == 2 and d.kind == "commit")
        s = table.sessions[0]
        self.genesis_raw, self.session = table.genesis.to_wire(), s
        self.record_frames = abandon.state_frames(s)
        assert len(self.record_frames) == len(s.log) + 2          # the two pending parts
        digest = abandon.log_digest(self.record_frames)
        sigs = {i: abandon.sign(table.keys[i], s.game_id, [2], len(self.record_frames), digest) for i in (0, 1)}
        if forge:
            sigs[1] = sigs[0]                                     # seat 1's signature is not seat 1's
        self.abandon_record = abandon.record([2], len(self.record_frames), sigs)
        self.changed = trio.Event()
        self.outcome, self.outcome_text = "abandoned", "abandoned by seat 2"


async def _watch(player: StalledNode) -> Replica:
    """Serve `player`'s game to one spectator's Replica, to the end frame."""
    served = spectators.Spectators(player, True, names=lambda: {})
    ours, theirs = trio.testing.memory_stream_pair()
    reader = Connection(theirs, "spectator", max_frame=1 << 24)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(served.serve, Connection(ours, "spectator"), "spectator")
        replica = Replica((await reader.recv())["g"], {})
        while (frame := await reader.recv())["t"] == "msg":
            assert await replica.receive(frame["m"]) is not None
        assert frame["t"] == "end" and frame["logged"] == len(player.session.log) and len(frame["pending"]) == 2
        await replica.adopt_record(frame)
    return replica


async def test_the_record_and_its_pending_parts_reach_the_spectator():
    player = StalledNode()
    replica = await _watch(player)
    assert replica.error is None and replica.abandoned is not None
    players_copy = transcript.dump(player.genesis_raw, player.record_frames + [player.abandon_record])
    assert replica.transcript() == players_copy
    assert verify_bytes(players_copy).abandoned_by == [2]
    assert replica.abandon_line().startswith("game abandoned by seat 2: no message")
    assert replica.badge()[0] == "warn"


async def test_a_record_that_does_not_verify_is_named_with_its_signer():
    replica = await _watch(StalledNode(forge=True))
    assert replica.abandoned is None
    assert replica.error["seat"] == 1 and replica.error["code"] == "bad-signature", replica.error
    kind, text = replica.badge()
    assert kind == "bad" and "signed by seat 1" in text, text


def test_a_spectator_ends_an_abandoned_game_with_the_players_transcript(tmp_path):
    """Real processes: seat 2 is stopped for good (SIGSTOP) mid-game and the others abandon it;
    the spectator of seat 0's node says so in one line and holds their transcript."""
    game = start(tmp_path, delays=[0.02, 0.02, 0.3])              # a slow seat 2: it often stalls inside a joint step
    w = node(["watch", f"127.0.0.1:{game.port}", "--out", str(tmp_path / "w.caravan"), *NORMAL], tmp_path / "w",
             tmp_path / "w.log")
    try:
        read_until(w, "watching", timeout=30)
        read_until(w, "event", timeout=30, count=2)
        game.procs[2].send_signal(signal.SIGSTOP)
        deadline = time.monotonic() + timeout(BOUND)
        codes = [collect(p, deadline)[0] for p in game.procs[:2]]
        code, lines = collect(w, deadline)
        assert codes == [1, 1], (codes, game.tails())
        players_copy = game.transcript(0)
        assert game.transcript(1) == players_copy and verify_bytes(players_copy).abandoned_by == [2]
        said = [x for x in lines if x["type"] == "abandoned"]
        assert len(said) == 1 and said[0]["stalled"] == [2], (lines, (tmp_path / "w.log").read_text())
        assert "abandoned by seat 2" in said[0]["text"] and "verifies" in said[0]["text"], said
        assert [x["verified"] for x in lines if x["type"] == "transcript"] == [True], lines
        assert code == 1                                          # as the players': no result
        assert (tmp_path / "w.caravan").read_bytes() == players_copy
    finally:
        game.kill_all()
        w.kill()
        w.wait()
