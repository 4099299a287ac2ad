"""A watcher never takes a core from a player (issue 26, bench_spectate): `caravan watch`
runs at the lowest CPU priority (Linux SCHED_IDLE) unless `--priority normal`, every thread of
it, including the workers that check proofs. Real processes."""

from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest

from tests.web.conftest import Node

pytestmark = pytest.mark.skipif(not hasattr(os, "SCHED_IDLE"), reason="SCHED_IDLE is Linux only")


def policies(pid: int) -> set[int]:
    """The scheduling policy of every thread of process `pid`."""
    return {os.sched_getscheduler(int(tid)) for tid in os.listdir(f"/proc/{pid}/task")}


@pytest.mark.parametrize("extra, policy", [((), "SCHED_IDLE"), (("--priority", "normal"), "SCHED_OTHER")])
def test_a_watcher_runs_at_the_lowest_priority_unless_told(tmp_path: Path, extra, policy):
    with socket.create_server(("127.0.0.1", 0)) as server:     # a "node" that accepts and says nothing
        server.settimeout(30)
        w = Node(["watch", f"127.0.0.1:{server.getsockname()[1]}", *extra], tmp_path / "w", tmp_path / "w.log")
        try:
            conn, _ = server.accept()                             # it dials only after setting its priority
            with conn:
                assert policies(w.proc.pid) == {getattr(os, policy)}
        finally:
            w.proc.kill()
            w.proc.wait()
