"""Run caravan nodes as OS processes (with the fixture game available to them)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def env() -> dict[str, str]:
    e = dict(os.environ)
    e["CARAVAN_ENGINES"] = "tests.fixture_game"
    e["PYTHONPATH"] = str(ROOT) + os.pathsep + e.get("PYTHONPATH", "")
    return e


def node(args: list[str], data_dir: Path, log: Path, prefix: list[str] | None = None) -> subprocess.Popen:
    return subprocess.Popen([*(prefix or []), sys.executable, "-m", "node", *args, "--data-dir", str(data_dir),
                             "--json"], stdout=subprocess.PIPE, stderr=log.open("ab"), text=True, env=env(),
                            cwd=ROOT)


def read_until(proc: subprocess.Popen, kind: str, timeout: float = 30.0, count: int = 1) -> dict:
    """Read JSON lines until the `count`-th line of type `kind` (bounded by `timeout`)."""
    deadline = time.monotonic() + timeout
    seen = 0
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            raise AssertionError(f"process ended before a {kind!r} line (exit {proc.wait()})")
        msg = json.loads(line)
        if msg.get("type") == kind:
            seen += 1
            if seen >= count:
                return msg
    raise AssertionError(f"no {kind!r} line within {timeout} s")


def finish(procs: list[subprocess.Popen], timeout: float = 60.0) -> list[int]:
    codes = []
    for p in procs:
        try:
            p.stdout.read()
            codes.append(p.wait(timeout=timeout))
        except subprocess.TimeoutExpired:
            p.kill()
            codes.append(-9)
    return codes
