"""Issue 34 item 2, through a broker: a joiner killed after its genesis signature left it and
before it stored the game (CARAVAN_TEST_DIE_BEFORE_STORE kills it with SIGKILL at that moment)
keeps its seat: what it needs, the broker's address included, was stored before it signed, and
`caravan resume ID` takes the signed genesis back from another seat's node through the broker
and finishes the game with the others."""

from __future__ import annotations

from pathlib import Path

from protocol import games
from protocol.verify import verify_bytes
from tests.fixture_game import ENGINE
from tests.helpers import wait_exit
from tests.node.procs import finish, node, read_until

games.register(ENGINE)                       # the nodes' game, for the verification at the end
GAME = ["fixture", "--players", "3", "-o", "rounds=2"]


def test_a_relayed_joiner_killed_right_after_the_genesis_resumes_and_the_game_finishes(tmp_path: Path, broker):
    a, b, c = (tmp_path / n for n in "abc")
    host = node(["host", *GAME, "--bot", "random", "--relay", broker.url], a, tmp_path / "a.log")
    procs = [host]
    try:
        invite = read_until(host, "invite", timeout=60)["invite"]
        joiner = node(["join", invite, "--bot", "random"], b, tmp_path / "b.log")
        procs.append(joiner)
        killed = node(["join", invite, "--bot", "random"], c, tmp_path / "c.log",
                      prefix=["env", "CARAVAN_TEST_DIE_BEFORE_STORE=1"])
        procs.append(killed)
        game_id = read_until(host, "genesis", timeout=60)["game_id"]
        assert wait_exit(killed, 60, "the node killed at the start") == -9     # it signed, got the start, and died
        assert not (c / "games" / game_id / "genesis.bin").exists()

        resumed = node(["resume", game_id[:16]], c, tmp_path / "c.log")
        procs.append(resumed)
        assert "through the broker" in read_until(resumed, "resume", timeout=30)["text"]
        assert finish([resumed, host, joiner], timeout=120) == [0, 0, 0], (tmp_path / "c.log").read_text()[-3000:]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
    for data in (a, b, c):
        report = verify_bytes((data / "games" / game_id / "transcript.caravan").read_bytes())
        assert report.ok and not report.abandoned_by, report.error
