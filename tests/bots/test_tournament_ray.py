"""`caravan tournament --ray`: on a real local Ray cluster (a head that runs no games and a
worker node, each its own raylet, all on 127.0.0.1 with ports Ray picks, in a temp dir of its
own) the games give the
standings the local --jobs runner gives for the same seed, and a game lost with its worker's
node is played again. Ray is in the test extra: with CI=true a missing Ray fails the run."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from clients import tournament as T
from node.cli.main import main
from tests.games.pick import cli_options, longest_game, option_args, short_game, some_game
from tests.helpers import missing_system_package, timeout
from tests.node.procs import ROOT, env

pytestmark = pytest.mark.xdist_group("ray")          # one cluster per module, on one worker


@pytest.fixture(scope="module")
def ray_cluster():
    patch = pytest.MonkeyPatch()
    tmp = tempfile.mkdtemp(prefix="cvray", dir="/tmp")        # Ray's socket paths must stay short
    patch.setenv("RAY_TMPDIR", tmp)
    # every address 127.0.0.1 (Ray otherwise swaps loopback for the machine's own address): for
    # the processes Ray and the test start, and for this one, where ray may be imported already
    patch.setenv("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
    try:
        from ray._private import ray_constants
        from ray.cluster_utils import Cluster
    except ImportError:
        patch.undo()
        missing_system_package("Ray", "pip install -e '.[test]' installs it")
    patch.setattr(ray_constants, "ENABLE_RAY_CLUSTER", False)
    # a node is declared dead after 3 missed health checks 1 s apart (Ray's default: 5 at 3 s,
    # so a game resubmitted after its node was removed waited ~14 s for the head to notice)
    health = {"health_check_period_ms": 1000, "health_check_failure_threshold": 3, "health_check_initial_delay_ms": 0}
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 0, "node_ip_address": "127.0.0.1",
                                                            "include_dashboard": False, "_system_config": health})
    try:
        cluster.add_node(num_cpus=1, node_ip_address="127.0.0.1")
        yield cluster
    finally:
        cluster.shutdown()
        patch.undo()
        shutil.rmtree(tmp, ignore_errors=True)


def wait_for_game(node, within: float = 60.0) -> int | None:
    """The pid of the node's worker process playing a game (Ray titles it `ray::play_one`
    while it runs the task), waited for up to `within` seconds (scaled)."""
    raylet = node.all_processes["raylet"][0].process.pid
    deadline = time.monotonic() + timeout(within)
    while time.monotonic() < deadline:
        for proc in Path("/proc").iterdir():
            try:
                ppid = int((proc / "stat").read_text().rsplit(")", 1)[1].split()[1])
                title = (proc / "cmdline").read_bytes()
            except (OSError, ValueError, IndexError):
                continue
            if ppid == raylet and title.startswith(b"ray::play_one"):
                return int(proc.name)
        time.sleep(0.01)    # a poll's pause inside a bounded wait
    return None


GAME = some_game("heuristic", "sampler", players=3)
ARGS = ["tournament", GAME, "--players", "3", "--bots", "heuristic,random,search", "--iterations", "5",
        "--games", "6", "--seed", "4", *option_args(cli_options(short_game(GAME)[1])), "--json"]
"""Short games (the game's hooks' SHORT_GAME options) of a game the search bot can play: the runners
are compared, not the bots."""


def test_the_cluster_gives_the_standings_of_the_local_runner(ray_cluster, capsys):
    assert main([*ARGS, "--jobs", "2"]) == 0
    local = capsys.readouterr().out.splitlines()
    r = subprocess.run([sys.executable, "-m", "node", *ARGS, "--ray", ray_cluster.address], capture_output=True,
                       text=True, timeout=timeout(240), env=env(), cwd=ROOT)
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.splitlines() == local
    assert [json.loads(line)["games"] for line in local] == [6, 6, 6]
    assert "1 CPUs on 2 node(s); 6 games" in r.stderr and "Traceback" not in r.stderr


def test_a_game_lost_with_its_node_is_played_again(ray_cluster):
    [doomed] = ray_cluster.worker_nodes
    said, completed = [], []

    def progress(done: int, total: int) -> None:
        completed.append(done)
        if done == 1:     # once the only worker node plays another game: lose it, then bring another
            worker = wait_for_game(doomed)
            assert worker, "the worker node never started a second game"
            os.kill(worker, signal.SIGKILL)          # the game dies with its worker, then the machine
            ray_cluster.remove_node(doomed, allow_graceful=False)
            ray_cluster.add_node(num_cpus=1, node_ip_address="127.0.0.1")

    args = dict(game=longest_game(2, "heuristic", "sampler"), players=2, entries=["search", "heuristic"], count=8,
                seed=5, iterations=10)      # the longest: its second game is still being played when killed
    on_ray = T.run(**args, ray=ray_cluster.address, progress=progress, say=said.append)
    local = T.run(**args, jobs=2)
    assert [s.line() for s in on_ray.standings] == [s.line() for s in local.standings]
    assert completed == list(range(1, 9))
    lost = [text for text in said if "its worker was lost" in text]
    assert lost and all("playing it again" in text for text in lost), said


def test_an_unreachable_cluster_is_one_line(capsys):
    assert main([*ARGS, "--ray", "127.0.0.1:1"]) == 1
    err = capsys.readouterr().err
    assert "cannot reach the Ray cluster at 127.0.0.1:1" in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1
    assert main([*ARGS, "--ray", "nonsense"]) == 1
    assert "expected HOST:PORT" in capsys.readouterr().err


def test_jobs_and_ray_are_one_or_the_other(capsys):
    assert main([*ARGS, "--jobs", "2", "--ray"]) == 2
    assert "--ray: not allowed with argument --jobs" in capsys.readouterr().err
