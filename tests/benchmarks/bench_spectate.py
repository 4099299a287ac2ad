"""Spectators (issue 26): does watching slow the players? One 3-player game of random bots,
every node an OS process on loopback, played in the same run with no spectator; with 10
`caravan watch` processes spread over the three players' nodes (4 + 3 + 3, each node's cap
is 4); and with 10 in a tree (one on each player's node, relaying with --serve to the 7
others, so each player's node feeds one). Move latency (a message's signing to its
application on another player's node, from --trace), the players' nodes' CPU time and the
game's wall time, and their ratios (target: ≤ 1.2×). The spectators run as a user runs
them: `caravan watch` lowers its own CPU priority (SCHED_IDLE on Linux), so on this
machine's few shared cores their verifying takes only time the players leave. The kinds of
game alternate (ROUNDS of each, pooled, and each round's ratio), so that a burst of load
from the rest of the machine falls on all alike."""

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

from protocol import games as registry
from tests.benchmarks.bench_relay import _latencies, _line, _node, _verified, latency_game
from tests.games.pick import option_args

ROOT = Path(__file__).resolve().parents[2]
SPECTATORS = 10
ROUNDS = 2
DELAY = ["--bot-delay", "0.05"]
"""The bots think a little, so that the game lasts while the spectators start (latency is
measured from signing to applying, which the thinking is not part of)."""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _watch(work: Path, name: str, port: int, serve: bool = False) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "node", "watch", f"127.0.0.1:{port}", "--json",
                             "--out", str(work / f"{name}.caravan"), *(["--serve", "0"] if serve else [])],
                            stdout=(work / f"{name}.out").open("wb"), stderr=(work / f"{name}.log").open("wb"),
                            cwd=ROOT)


WAIT = 900.0
"""The longest a game's process may take (a node that never ends is killed, and the game fails)."""


def _wait(proc: subprocess.Popen, timeout: float = WAIT) -> float:
    """Wait (at most `timeout` s, then kill) for the process to end; its CPU seconds (user + system)."""
    deadline = time.monotonic() + timeout
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            proc.returncode = os.waitstatus_to_exitcode(status)
            return usage.ru_utime + usage.ru_stime
        if time.monotonic() > deadline:
            proc.kill()
            deadline = float("inf")                      # the next wait4 reaps it
        time.sleep(0.05)


def _play(work: Path, tag: str, spectators: int, tree: bool = False) -> tuple[list[float], float, float, bool, int]:
    """One game; (latencies in ms, wall seconds, the players' CPU seconds, players verified,
    spectators whose transcript equals the players'). `tree`: one spectator per player's node,
    each relaying (--serve) to the others."""
    game, players, options = latency_game()
    t0 = time.monotonic()
    ports = [_free_port() for _ in range(players)]
    host = _node(work, f"{tag}h", ["host", game, "--players", str(players), "--no-discovery", "--seed", "0",
                                   "--time-limit", "0", "--port", str(ports[0]), *DELAY,
                                   *option_args(options)], True)
    _line(work, f"{tag}h", "lobby")
    procs = [host] + [_node(work, f"{tag}j{i}", ["join", f"127.0.0.1:{ports[0]}", "--seed", str(i),
                                                 "--port", str(ports[i]), *DELAY], True) for i in range(1, players)]
    watchers = []
    if spectators and tree:
        watchers = [_watch(work, f"{tag}w0", ports[0], serve=True)]                             # from the lobby
        _line(work, f"{tag}h", "start")
        watchers += [_watch(work, f"{tag}w{k}", ports[k], serve=True) for k in range(1, players)]
        relays = [_line(work, f"{tag}w{k}", "serving")["port"] for k in range(players)]
        watchers += [_watch(work, f"{tag}w{k}", relays[k % players]) for k in range(players, spectators)]
    elif spectators:
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


KINDS = {"no spectator": (0, False), f"{SPECTATORS} spectators": (SPECTATORS, False),
         f"{SPECTATORS} in a tree": (SPECTATORS, True)}
"""Without spectators; 10 on the players' nodes (4 + 3 + 3); 10 of which 3 are on the players'
nodes and relay (--serve) to the 7 others."""


def run() -> list[str]:
    work = Path(tempfile.mkdtemp(prefix="caravan-bench-spectate-"))
    runs: dict[str, list] = {label: [] for label in KINDS}
    for r in range(ROUNDS):
        for k, (label, (spectators, tree)) in enumerate(KINDS.items()):
            runs[label].append(_play(work, f"{'abc'[k]}{r}", spectators, tree))
    game, players, _ = latency_game()
    lines = [f"{registry.get(game).title} with {players} nodes, random bots, {ROUNDS} games of each kind alternating, the same run "
             f"({os.cpu_count()} cores):"]
    for label, games in runs.items():
        lat = [x for g in games for x in g[0]]
        lines.append(f"  {label:17s} move latency mean {statistics.mean(lat):.2f} ms, median "
                     f"{statistics.median(lat):.2f} ms over {len(lat)} deliveries; players' CPU "
                     f"{sum(g[2] for g in games):.1f} s; games {sum(g[1] for g in games):.1f} s "
                     f"({'verified' if all(g[3] for g in games) else 'FAILED'})")
    base = runs["no spectator"]
    base_lat = [x for g in base for x in g[0]]
    for label, games in list(runs.items())[1:]:
        lat = [x for g in games for x in g[0]]
        each = ", ".join(f"{statistics.mean(b[0]) / statistics.mean(a[0]):.2f}×" for a, b in zip(base, games))
        lines.append(f"  {label} / none: latency mean {statistics.mean(lat) / statistics.mean(base_lat):.2f}× "
                     f"(each round: {each}), median {statistics.median(lat) / statistics.median(base_lat):.2f}×, "
                     f"players' CPU {sum(g[2] for g in games) / sum(g[2] for g in base):.2f}×, wall "
                     f"{sum(g[1] for g in games) / sum(g[1] for g in base):.2f}× (target ≤ 1.2×)")
    same = sum(g[4] for label, games in runs.items() for g in games)
    watched = SPECTATORS * ROUNDS * (len(KINDS) - 1)
    lines.append(f"  {same}/{watched} spectators' transcripts are byte-identical to the players'")
    if all(g[3] for games in runs.values() for g in games) and same == watched:
        shutil.rmtree(work, ignore_errors=True)
    else:
        lines.append(f"  logs kept in {work}")
    return lines
