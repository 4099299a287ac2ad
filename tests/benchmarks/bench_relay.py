"""Games through a local Mosquitto (issue 14), every node an OS process:

* move latency (a message's signing to its application on another node) through the
  broker vs direct TCP, the same game and bots in the same run (target ratio ≤ 2×);
* load: LOAD_GAMES concurrent 3-player games of random bots through one broker, all of
  which must complete and verify; the broker's message rate and the node CPU per game.

Skipped (one line) when Mosquitto is not installed."""

from __future__ import annotations

import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from protocol import games as registry
from tests.benchmarks.common import local_broker
from tests.games.pick import cli_options, quick, short_game, some_game

ROOT = Path(__file__).resolve().parents[2]


def latency_game() -> tuple[str, int, list[str]]:
    """The game whose hops are timed: the installed game quickest over real nodes for 3 players
    (no deck if any: a deck's proofs would be most of the latency, not the links)."""
    game, options = quick(3)
    return game, 3, options


def load_game() -> tuple[str, int, list[str]]:
    """The game played LOAD_GAMES times at once: a short game with a deck and dice (the most
    messages per turn: shuffles, decryption shares, beacons)."""
    game = some_game("deck", "dice", players=3)
    return game, 3, cli_options(short_game(game)[1])
LOAD_GAMES = 10


def _node(work: Path, name: str, args: list[str], trace: bool) -> subprocess.Popen:
    extra = ["--trace", str(work / f"{name}.trace")] if trace else []
    return subprocess.Popen([sys.executable, "-m", "node", *args, "--bot", "random", "--bind", "127.0.0.1", "--json",
                             "-q", "--data-dir", str(work / name), *extra],
                            stdout=(work / f"{name}.out").open("wb"), stderr=(work / f"{name}.log").open("wb"),
                            env=dict(os.environ, PYTHONPATH=str(ROOT)), cwd=ROOT)


def _line(work: Path, name: str, kind: str, timeout: float = 60) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for line in (work / f"{name}.out").read_text().splitlines():
            msg = json.loads(line)
            if msg.get("type") == kind:
                return msg
        time.sleep(0.05)
    raise RuntimeError(f"{name}: no {kind!r} line within {timeout} s (log: {work / name}.log)")


def _game(work: Path, tag: str, spec: tuple, relay: str | None, trace: bool = False) -> list[subprocess.Popen]:
    """Start one game (host, then joiners once it is open); returns its processes."""
    game, players, options = spec
    opts = [a for o in options for a in ("-o", o)]
    via = ["--relay", relay] if relay else []
    host = _node(work, f"{tag}h", ["host", game, "--players", str(players), "--no-discovery", *opts, *via,
                                   "--seed", "0"], trace)
    target = _line(work, f"{tag}h", "invite")["invite"] if relay else f"127.0.0.1:{_line(work, f'{tag}h', 'lobby')['port']}"
    return [host] + [_node(work, f"{tag}j{i}", ["join", target, "--seed", str(i)], trace) for i in range(1, players)]


def _verified(work: Path, name: str) -> bool:
    try:
        return bool(_line(work, name, "transcript", timeout=1)["verified"])
    except RuntimeError:
        return False


def _latencies(work: Path, names: list[str]) -> list[float]:
    signed: dict[str, tuple[str, int]] = {}
    applied: list[tuple[str, str, int]] = []
    for name in names:
        for line in (work / f"{name}.trace").read_text().splitlines():
            kind, mid, t = line.split()[:3]          # (the node's trace: kind, id, ns, cpu)
            if kind == "sign":
                signed[mid] = (name, int(t))
            elif kind == "apply":
                applied.append((name, mid, int(t)))
    return sorted((t - signed[mid][1]) / 1e6 for who, mid, t in applied if mid in signed and signed[mid][0] != who)


def _latency(work: Path, relay: str | None) -> tuple[list[float], bool]:
    tag = "r" if relay else "t"
    spec = latency_game()
    procs = _game(work, tag, spec, relay, trace=True)
    for p in procs:
        p.wait(timeout=600)
    names = [f"{tag}h"] + [f"{tag}j{i}" for i in range(1, spec[1])]
    ok = all(p.returncode == 0 for p in procs) and all(_verified(work, n) for n in names)
    return _latencies(work, names), ok


def _load(work: Path, broker) -> list[str]:
    from tests.relay.broker import Traffic
    counter = Traffic(broker.host, broker.port)
    cpu0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    spec = load_game()
    games = [_game(work, f"L{g}_", spec, broker.url) for g in range(LOAD_GAMES)]
    for procs in games:
        for p in procs:
            p.wait(timeout=900)
    wall = time.monotonic() - t0
    cpu1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    counter.close()
    cpu = (cpu1.ru_utime + cpu1.ru_stime) - (cpu0.ru_utime + cpu0.ru_stime)
    done = sum(all(p.returncode == 0 for p in procs) and _verified(work, f"L{g}_h") for g, procs in enumerate(games))
    game, players, options = spec
    return [
        f"load: {LOAD_GAMES} concurrent {players}-player games of {registry.get(game).title} ({', '.join(options) or 'default options'}) through one broker: "
        f"{done}/{LOAD_GAMES} completed and verified in {wall:.1f} s",
        f"  broker carried {counter.messages} messages ({counter.messages / LOAD_GAMES:.0f} per game): "
        f"{counter.messages / max(1e-9, counter.last - counter.first):.0f} messages/s from the first to the last",
        f"  node CPU {cpu / LOAD_GAMES:.1f} s per game ({cpu / LOAD_GAMES / players:.1f} s per node, process "
        f"start-up included), on {os.cpu_count()} cores",
    ]


def run() -> list[str]:
    started = local_broker("caravan-bench-relay-")
    if isinstance(started, str):
        return [started]
    broker, work = started
    try:
        tcp, tcp_ok = _latency(work, None)
        mqtt, mqtt_ok = _latency(work, broker.url)
        game, players, _ = latency_game()
        lines = [f"latency sign -> applied on another node, {registry.get(game).title} with {players} nodes, same run:"]
        for label, lat, ok in (("direct TCP", tcp, tcp_ok), ("through the broker", mqtt, mqtt_ok)):
            p99 = lat[min(len(lat) - 1, int(0.99 * len(lat)))] if lat else float("nan")
            lines.append(f"  {label:19s} mean {statistics.mean(lat) if lat else float('nan'):.2f} ms, "
                         f"p99 {p99:.2f} ms over {len(lat)} deliveries ({'verified' if ok else 'FAILED'})")
        if tcp and mqtt:
            lines.append(f"  ratio broker / TCP: mean {statistics.mean(mqtt) / statistics.mean(tcp):.2f}×, "
                         f"median {statistics.median(mqtt) / statistics.median(tcp):.2f}× (target ≤ 2×)")
        lines += _load(work, broker)
    finally:
        broker.stop()
    everything_verified = f"{LOAD_GAMES}/{LOAD_GAMES} completed" in "".join(lines) and "FAILED" not in "".join(lines)
    if not everything_verified:
        lines.append(f"  logs kept in {work}")
    else:
        shutil.rmtree(work, ignore_errors=True)
    return lines
