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
from tests.benchmarks.common import best_per_call

ROOT = Path(__file__).resolve().parents[2]
PLAYERS = 4


def _crypto_cpu(data: bytes) -> tuple[float, float, object]:
    """Verify the transcript once, timing only the signature and proof checks inside it.

    Returns (crypto CPU s, total CPU s, report)."""
    from protocol.deck import ops
    spent = [0.0]
    patched = []

    def timed(module, name):
        fn = getattr(module, name)

        def wrapper(*a, **k):
            t0 = time.process_time()
            try:
                return fn(*a, **k)
            finally:
                spent[0] += time.process_time() - t0
        setattr(module, name, wrapper)
        patched.append((module, name, fn))

    import protocol.chain as chain_mod
    timed(chain_mod, "verify")
    for name in ("verify_shuffle", "verify_share", "verify_claim", "verify_rerandomize", "verify_key_share",
                 "verify_published_key", "open_card", "open_private"):
        timed(ops, name)
    try:
        t0 = time.process_time()
        report = verify_bytes(data)
        total = time.process_time() - t0
    finally:
        for module, name, fn in patched:
            setattr(module, name, fn)
    return spent[0], total, report


def _play(game: str) -> list[str]:
    work = Path(tempfile.mkdtemp(prefix="caravan-bench-"))
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    base = [sys.executable, "-m", "node"]
    common = ["--bot", "random", "--bind", "127.0.0.1", "--json", "-q"]   # bots that take no time to think

    def start(i: int, args: list[str]) -> subprocess.Popen:
        out = subprocess.PIPE if i == 0 else (work / f"n{i}.out").open("wb")   # a full pipe would stall a node
        return subprocess.Popen([*base, *args, *common, "--data-dir", str(work / f"n{i}"),
                                 "--trace", str(work / f"trace{i}"), "--seed", str(i)],
                                stdout=out, stderr=(work / f"n{i}.log").open("wb"), text=True, env=env)

    import json
    host = start(0, ["host", game, "--players", str(PLAYERS), "--no-discovery", "--out", str(work / "game.caravan")])
    port = next(json.loads(line)["port"] for line in host.stdout if '"lobby"' in line)
    procs = [host] + [start(i, ["join", f"127.0.0.1:{port}"]) for i in range(1, PLAYERS)]
    host.stdout.read()
    for p in procs:
        p.wait(timeout=600)
    if any(p.returncode for p in procs):
        return [f"{game}: a node failed; logs in {work}"]

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
    wall = (max(t for _, _, t in applied) - min(t for _, t in signed.values())) / 1e9
    crypto, total, report = _crypto_cpu((work / "game.caravan").read_bytes())
    messages = report.messages
    key = SigningKey.from_seed(b"\x01" * 32)
    payload = b"caravan/sig/v1" + bytes(32)
    sign_s = best_per_call(lambda: key.sign(payload))
    verify_s = best_per_call(lambda: verify(key.public, key.sign(payload), payload), 500) - sign_s
    cores = os.cpu_count() or 1
    # every other node verifies each message once; making a message costs a signature plus
    # its proofs, counted as the proofs' verification cost (proving is cheaper than verifying)
    proofs = max(0.0, crypto - messages * verify_s)
    floor = ((PLAYERS - 1) * crypto + messages * sign_s + proofs) / cores
    p99 = lat[min(len(lat) - 1, int(0.99 * len(lat)))]
    return [
        f"{game}, {PLAYERS} nodes on loopback: {messages} messages, transcript {'verified' if report.ok else 'INVALID'}",
        f"  latency sign -> applied on another node: mean {statistics.mean(lat):.2f} ms, p99 {p99:.2f} ms "
        f"over {len(lat)} deliveries (target mean ≤ 5 ms)",
        f"  crypto floor: {crypto * 1e3:.0f} ms of signature/proof checks per verifying node (of {total * 1e3:.0f} ms "
        f"for a whole verify), ×{PLAYERS - 1} nodes + making them, on {cores} cores = {floor * 1e3:.0f} ms",
        f"  game wall time {wall:.2f} s = {wall / floor:.1f}× the floor (target ≤ 2×)",
    ]


def run() -> list[str]:
    available = games.names()
    lines: list[str] = []
    for game in ("sabbat", "sare"):
        if game in available:
            lines += _play(game)
    return lines
