"""The node on loopback: a 4-player bot game in 4 OS processes. Reports the latency from a
message's signing to its application on every other node, and the game's wall time as a
ratio to its cryptographic floor (the signatures and verifications it strictly needs,
unit costs measured in this run, divided by the cores)."""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from protocol import games
from protocol.identity import SigningKey, verify
from protocol.verify import verify_bytes

ROOT = Path(__file__).resolve().parents[2]
PLAYERS = 4


def _unit(fn, n: int = 2000) -> float:
    best = float("inf")
    for _ in range(3):
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        best = min(best, (time.perf_counter() - t0) / n)
    return best


def _game() -> str:
    available = games.names()
    return next(g for g in ("sabbat", "sare", "nomads", "fixture") if g in available)


def run() -> list[str]:
    game = _game()
    work = Path(tempfile.mkdtemp(prefix="caravan-bench-"))
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    base = [sys.executable, "-m", "node"]
    common = ["--bot", "random", "--bind", "127.0.0.1", "--json", "-q"]

    def start(i: int, args: list[str]) -> subprocess.Popen:
        out = subprocess.PIPE if i == 0 else (work / f"n{i}.out").open("wb")   # a full pipe would stall a node
        return subprocess.Popen([*base, *args, *common, "--data-dir", str(work / f"n{i}"),
                                 "--trace", str(work / f"trace{i}"), "--seed", str(i)],
                                stdout=out, stderr=(work / f"n{i}.log").open("wb"), text=True, env=env)

    host = start(0, ["host", game, "--players", str(PLAYERS), "--no-discovery", "--out", str(work / "game.caravan")])
    import json
    port = next(json.loads(line)["port"] for line in host.stdout if '"lobby"' in line)
    procs = [host] + [start(i, ["join", f"127.0.0.1:{port}"]) for i in range(1, PLAYERS)]
    host.stdout.read()
    for p in procs:
        p.wait(timeout=600)
    if any(p.returncode for p in procs):
        return [f"a node failed; logs in {work}"]

    signed: dict[str, tuple[int, int]] = {}
    applied: list[tuple[int, str, int]] = []
    for i in range(PLAYERS):
        for line in (work / f"trace{i}").read_text().splitlines():
            kind, mid, t = line.split()
            if kind == "sign":
                signed[mid] = (i, int(t))
            else:
                applied.append((i, mid, int(t)))
    lat = sorted((t - signed[mid][1]) / 1e6 for i, mid, t in applied if mid in signed and signed[mid][0] != i)
    first = min(t for _, t in signed.values())
    last = max(t for _, _, t in applied)
    wall = (last - first) / 1e9
    report = verify_bytes((work / "game.caravan").read_bytes())
    messages = report.messages
    key = SigningKey.from_seed(b"\x01" * 32)
    payload = b"caravan/sig/v1" + bytes(32)
    sig = key.sign(payload)
    sign_s = _unit(lambda: key.sign(payload))
    verify_s = _unit(lambda: verify(key.public, sig, payload))
    cores = os.cpu_count() or 1
    floor = (messages * sign_s + messages * (PLAYERS - 1) * verify_s) / cores
    p99 = lat[min(len(lat) - 1, int(0.99 * len(lat)))]
    return [
        f"{game}, {PLAYERS} nodes on loopback: {messages} messages, transcript {'verified' if report.ok else 'INVALID'}",
        f"latency sign -> applied on another node: mean {statistics.mean(lat):.2f} ms, p99 {p99:.2f} ms "
        f"over {len(lat)} deliveries (target mean ≤ 5 ms)",
        f"game wall time {wall:.2f} s; floor {floor * 1e3:.0f} ms ({messages} signs + {messages * (PLAYERS - 1)} "
        f"verifies at {sign_s * 1e6:.0f}/{verify_s * 1e6:.0f} µs on {cores} cores); ratio {wall / floor:.1f}× (target ≤ 2×)",
    ]
