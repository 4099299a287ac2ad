"""A watcher never takes a core from a player (issue 26, bench_spectate): `caravan watch`
runs at the lowest CPU priority (Linux SCHED_IDLE) unless `--priority normal`, every thread of
it, including the workers that check proofs. Real processes."""

from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest

from tests.helpers import timeout, wait_until
from tests.web.conftest import Node

pytestmark = pytest.mark.skipif(not hasattr(os, "SCHED_IDLE"), reason="SCHED_IDLE is Linux only")


def policies(pid: int) -> set[int]:
    """The scheduling policy of every thread of process `pid`."""
    return {os.sched_getscheduler(int(tid)) for tid in os.listdir(f"/proc/{pid}/task")}


@pytest.mark.parametrize("extra, policy", [((), "SCHED_IDLE"), (("--priority", "normal"), "SCHED_OTHER")])
def test_a_watcher_runs_at_the_lowest_priority_unless_told(tmp_path: Path, extra, policy):
    with socket.create_server(("127.0.0.1", 0)) as server:     # a "node" that accepts and says nothing
        server.settimeout(timeout(30))
        w = Node(["watch", f"127.0.0.1:{server.getsockname()[1]}", *extra], tmp_path / "w", tmp_path / "w.log")
        try:
            conn, _ = server.accept()                             # it dials only after setting its priority
            with conn:
                assert policies(w.proc.pid) == {getattr(os, policy)}
        finally:
            w.proc.kill()
            w.proc.wait()


def test_the_browser_is_opened_from_a_thread_of_normal_priority(tmp_path: Path, monkeypatch):
    """A browser the watcher starts must not inherit SCHED_IDLE (nor could it leave it)."""
    with socket.create_server(("127.0.0.1", 0)) as server:
        server.settimeout(timeout(30))
        script = tmp_path / "browser"
        script.write_text("#!/bin/sh\nsleep 30\n")                   # a "browser" that stays a while
        script.chmod(0o755)
        monkeypatch.setenv("BROWSER", str(script))
        w = Node(["watch", f"127.0.0.1:{server.getsockname()[1]}", "--client", "web"], tmp_path / "w",
                 tmp_path / "w.log")
        try:
            conn, _ = server.accept()
            with conn:
                children = wait_until(lambda: _children(w.proc.pid), 20, "the watcher to start a browser")
                assert {os.sched_getscheduler(c) for c in children} == {os.SCHED_OTHER}
                assert os.sched_getscheduler(w.proc.pid) == os.SCHED_IDLE
        finally:
            for c in _children(w.proc.pid):
                os.kill(c, 9)
            w.proc.kill()
            w.proc.wait()


def _children(pid: int) -> list[int]:
    found = []
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            found += [int(c) for c in Path(f"/proc/{pid}/task/{tid}/children").read_text().split()]
        except OSError:
            pass
    return found
