"""Spectators (issue 26): does watching slow the players? One 3-player game of random bots,
every node an OS process on loopback, played twice in the same run: with no spectator, and
with 10 `caravan watch` processes spread over the three players' nodes (4 + 3 + 3, each
node's cap is 4). Move latency (a message's signing to its application on another player's
node, from --trace), the players' nodes' CPU time and the game's wall time, and their ratios
(target: ≤ 1.2×). The spectators run as a user runs them: `caravan watch` lowers its own CPU
priority (SCHED_IDLE on Linux), so on this machine's few shared cores their verifying takes
only time the players leave. The two kinds of game alternate (ROUNDS of each, pooled), so
that a burst of load from the rest of the machine falls on both alike."""

from __future__ import annotations

import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tests.benchmarks.bench_relay import _latencies, _line, _node, _verified

ROOT = Path(__file__).resolve().parents[2]
GAME = ("sabbat", 3)
SPECTATORS = 10
ROUNDS = 2
DELAY = ["--bot-delay", "0.05"]
"""The bots think a little, so that the game lasts while the spectators start (latency is
measured from signing to applying, which the thinking is not part of)."""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _watch(work: Path, name: str, port: int) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "node", "watch", f"127.0.0.1:{port}", "--json",
                             "--out", str(work / f"{name}.caravan")],
                            stdout=(work / f"{name}.out").open("wb"), stderr=(work / f"{name}.log").open("wb"),
                            cwd=ROOT)


def _wait(proc: subprocess.Popen) -> float:
    """Wait for the process to end; its CPU seconds (user + system)."""
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return usage.ru_utime + usage.ru_stime


def _play(work: Path, tag: str, spectators: int) -> tuple[list[float], float, float, bool, int]:
    """One game; (latencies in ms, wall seconds, the players' CPU seconds, players verified,
    spectators whose transcript equals the players')."""
    game, players = GAME
    t0 = time.monotonic()
    ports = [_free_port() for _ in range(players)]
    host = _node(work, f"{tag}h", ["host", game, "--players", str(players), "--no-discovery", "--seed", "0",
                                   "--time-limit", "0", "--port", str(ports[0]), *DELAY], True)
    _line(work, f"{tag}h", "lobby")
    procs = [host] + [_node(work, f"{tag}j{i}", ["join", f"127.0.0.1:{ports[0]}", "--seed", str(i),
                                                 "--port", str(ports[i]), *DELAY], True) for i in range(1, players)]
    watchers = []
    if spectators:
        watchers = [_watch(work, f"{tag}w{k}", ports[0]) for k in range(min(4, spectators))]   # from the lobby
        _line(work, f"{tag}h", "start")
        watchers += [_watch(work, f"{tag}w{k}", ports[1 + (k % (players - 1))]) for k in range(len(watchers), spectators)]
    cpu = sum(_wait(p) for p in procs)
    wall = time.monotonic() - t0
    for p in watchers:
        p.wait(timeout=900)
    names = [f"{tag}h"] + [f"{tag}j{i}" for i in range(1, players)]
    ok = all(p.returncode == 0 for p in procs) and all(_verified(work, n) for n in names)
    [path] = (work / f"{tag}h" / "games").glob("*/transcript.caravan")
    same = sum((work / f"{tag}w{k}.caravan").exists() and (work / f"{tag}w{k}.caravan").read_bytes() == path.read_bytes()
               for k in range(spectators))
    return _latencies(work, names), wall, cpu, ok, same


def run() -> list[str]:
    work = Path(tempfile.mkdtemp(prefix="caravan-bench-spectate-"))
    runs: dict[int, list] = {0: [], SPECTATORS: []}
    for r in range(ROUNDS):
        for spectators in runs:
            runs[spectators].append(_play(work, f"{'ab'[bool(spectators)]}{r}", spectators))
    game, players = GAME
    lines = [f"{game} with {players} nodes, random bots, {ROUNDS} games of each alternating, the same run "
             f"({os.cpu_count()} cores):"]
    pooled = {}
    for spectators, games in runs.items():
        lat = [x for g in games for x in g[0]]
        wall, cpu = sum(g[1] for g in games), sum(g[2] for g in games)
        ok = all(g[3] for g in games)
        pooled[spectators] = lat, wall, cpu
        label = f"{spectators} spectators" if spectators else "no spectator"
        lines.append(f"  {label:15s} move latency mean {statistics.mean(lat):.2f} ms, median "
                     f"{statistics.median(lat):.2f} ms over {len(lat)} deliveries; players' CPU {cpu:.1f} s; "
                     f"games {wall:.1f} s ({'verified' if ok else 'FAILED'})")
    (base, base_wall, base_cpu), (watched, wall, cpu) = pooled[0], pooled[SPECTATORS]
    each = ", ".join(f"{statistics.mean(b[0]) / statistics.mean(a[0]):.2f}×" for a, b in zip(runs[0], runs[SPECTATORS]))
    lines.append(f"  ratio with / without: latency mean {statistics.mean(watched) / statistics.mean(base):.2f}× "
                 f"(each round: {each}), median {statistics.median(watched) / statistics.median(base):.2f}×, "
                 f"players' CPU {cpu / base_cpu:.2f}×, wall {wall / base_wall:.2f}× (target ≤ 1.2×)")
    same = sum(g[4] for g in runs[SPECTATORS])
    lines.append(f"  {same}/{SPECTATORS * ROUNDS} spectators' transcripts are byte-identical to the players'")
    if all(g[3] for gs in runs.values() for g in gs) and same == SPECTATORS * ROUNDS:
        shutil.rmtree(work, ignore_errors=True)
    else:
        lines.append(f"  logs kept in {work}")
    return lines
