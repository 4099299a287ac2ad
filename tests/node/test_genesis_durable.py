"""Issue 34 item 2: a joiner killed after its genesis signature left it and before it stored
the game (real processes: CARAVAN_TEST_DIE_BEFORE_STORE kills it with SIGKILL at the moment
its store would be written) keeps its seat: what it needs was stored (fsync'd) before it
signed, `caravan games` lists the game, and `caravan resume ID` takes the signed genesis back
from the host's node and finishes the game with the others."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from protocol.verify import verify_bytes
from tests.helpers import timeout as scaled, wait_exit
from tests.node.procs import ROOT, env, finish, node, read_until

GAME = ["fixture", "--players", "3", "-o", "rounds=2"]


def _caravan(args: list[str], data: Path, log: Path) -> subprocess.CompletedProcess:
    with log.open("ab") as errors:
        return subprocess.run([sys.executable, "-m", "node", *args, "--data-dir", str(data)], stdout=subprocess.PIPE,
                              stderr=errors, text=True, env=env(), cwd=ROOT, timeout=scaled(120))


def test_a_joiner_killed_right_after_the_genesis_resumes_and_the_game_finishes(tmp_path: Path):
    a, b, c = (tmp_path / n for n in "abc")
    host = node(["host", *GAME, "--bot", "random", "--no-discovery", "--bind", "127.0.0.1"], a, tmp_path / "a.log")
    procs = [host]
    try:
        port = read_until(host, "lobby", timeout=60)["port"]
        target = f"127.0.0.1:{port}"
        joiner = node(["join", target, "--bot", "random", "--bind", "127.0.0.1"], b, tmp_path / "b.log")
        procs.append(joiner)
        killed = node(["join", target, "--bot", "random", "--bind", "127.0.0.1"], c, tmp_path / "c.log",
                      prefix=["env", "CARAVAN_TEST_DIE_BEFORE_STORE=1"])
        procs.append(killed)
        game_id = read_until(host, "genesis", timeout=60)["game_id"]
        assert wait_exit(killed, 60, "the node killed at the start") == -9                 # it signed, got the start, and died
        assert not (c / "games" / game_id / "genesis.bin").exists()

        listed = _caravan(["games", "--json"], c, tmp_path / "c.log")
        rows = [json.loads(line) for line in listed.stdout.splitlines() if line.strip()]
        assert [r["game_id"] for r in rows if r.get("type") == "game"] == [game_id], listed.stdout
        assert f"caravan resume {game_id[:16]}" in rows[0]["detail"], rows[0]

        resumed = node(["resume", game_id[:16]], c, tmp_path / "c.log")
        procs.append(resumed)
        assert finish([resumed, host, joiner], timeout=120) == [0, 0, 0], (tmp_path / "c.log").read_text()[-3000:]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
    for data in (a, b, c):
        report = verify_bytes((data / "games" / game_id / "transcript.caravan").read_bytes())
        assert report.ok and not report.abandoned_by, report.error
