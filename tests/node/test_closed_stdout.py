"""A reader that closes stdout early (`caravan games | head -1`) ends a command quietly:
no BrokenPipeError, no traceback, and the exit code the command would have had."""

from __future__ import annotations

import os
import random
import subprocess
import sys

from protocol import transcript
from tests.fixture_game import ENGINE
from tests.games.pick import installed
from tests.helpers import new_table, play, timeout as scaled
from tests.node.procs import ROOT, env
from tests.node.test_one_process_per_game import _store


def _with_stdout_closed(args: list[str]) -> subprocess.CompletedProcess:
    r, w = os.pipe()
    os.close(r)                                   # nobody will ever read: the first write fails (EPIPE)
    try:
        return subprocess.run([sys.executable, "-m", "node", *args], stdout=w, stderr=subprocess.PIPE, text=True,
                              env=env(), cwd=ROOT, timeout=scaled(60))
    finally:
        os.close(w)


def test_every_command_tolerates_a_closed_stdout(tmp_path):
    table = new_table(ENGINE, 2, seed=random.Random(2).randrange(100))
    play(table, lambda seat, legal: legal[0])
    finished = tmp_path / "game.caravan"
    finished.write_bytes(transcript.dump(table.genesis.to_wire(), table.sessions[0].log))
    _store(tmp_path / "data").close()
    cases = {
        "games": (["games", "--data-dir", str(tmp_path / "data")], 0),
        "games --json": (["games", "--data-dir", str(tmp_path / "data"), "--json"], 0),
        "options": (["options", installed()[0]], 0),
        "verify": (["verify", str(finished)], 0),
        "verify --json": (["verify", str(finished), "--json"], 0),
        "simulate": (["simulate", "fixture", "--players", "2", "--games", "3"], 0),
        "help": (["--help"], 0),
    }
    for name, (args, code) in cases.items():
        r = _with_stdout_closed(args)
        assert r.returncode == code and r.stderr == "", (name, r.returncode, r.stderr)
