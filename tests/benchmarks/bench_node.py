"""The node on loopback: a 4-player bot game of each game in 4 OS processes (issue #17 items
2 and 3). Reports the latency from a message's signing to its application on every other
node (mean and p99, from the nodes' `--trace` files), and the game's wall time against its
floor, the larger of

(a) the cryptographic CPU divided by the cores: every other node verifies each message's
    signature and proofs, its author signs it and makes its proofs (counted as their
    verification cost: proving a shuffle costs about as much as verifying it);
(b) the critical path of dependent messages: the game's steps happen one after another
    (each step's messages need the previous step applied), so the path is, summed over the
    steps, the slowest of the step's messages (parallel contributions overlap) from signing
    to applied: sign + make its proofs + verify and apply it (the strict replay's CPU).

Every unit cost is measured in this run (the replay of the game's own transcript).

What a hop costs (issue #25 item 6): from the nodes' `--trace` marks, each dependent hop —
a message signed on one node, received, applied on the next mover's node, its decider
asked, its own message signed — split into those parts; and the CPU the node processes
spent over the game per step (a busy machine inflates wall times far more than CPU)."""

from __future__ import annotations

import hashlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from protocol import chain, games, genesis as G, transcript
from protocol.identity import SigningKey, verify
from protocol.session import PROOF_KINDS, Session
from tests.benchmarks.common import best_per_call
from tests.games.pick import games_with

ROOT = Path(__file__).resolve().parents[2]
PLAYERS = 4
TARGET_MEAN_MS = 5.0
TARGET_P99_MS = 20.0
TARGET_FLOOR = 2.0
CRYPTO = ("verify_shuffle", "verify_share", "verify_claim", "verify_rerandomize", "verify_key_share",
          "verify_published_key", "open_card", "open_private")
"""The deck functions whose time counts as cryptography (with chain.verify, the signatures)."""


@dataclass
class Cost:
    """One message of the transcript in its strict replay."""
    kind: str
    step: int          # messages of one step are contributions made in parallel
    cpu: float         # verify + apply, seconds
    crypto: float      # of which signature and proof checks


def _replay(data: bytes) -> tuple[list[Cost], bool]:
    """Replay the transcript strictly, timing each message (and the crypto inside it)."""
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

    genesis_raw, frames = transcript.load(data)
    genesis = G.parse(genesis_raw)
    session = Session(genesis, games.get(genesis.game), strict=True)
    costs: list[Cost] = []
    step, need = 0, session.need
    timed(chain, "verify")
    for name in CRYPTO:
        timed(ops, name)
    try:
        for raw in frames:
            if session.need is not need:
                step, need = step + 1, session.need
            crypto0, t0 = spent[0], time.process_time()
            session.receive(raw)
            costs.append(Cost(chain.parse(raw).kind, step, time.process_time() - t0, spent[0] - crypto0))
    finally:
        for module, name, fn in patched:
            setattr(module, name, fn)
    return costs, session.complete


def _play(game: str) -> Path | None:
    """Play one bot game among 4 node processes; the directory of their traces and transcript."""
    work = Path(tempfile.mkdtemp(prefix="caravan-bench-"))
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    base = [sys.executable, "-m", "node"]
    common = ["--bot", "random", "--bind", "127.0.0.1", "--json", "-q"]   # bots that take no time to think

    def start(i: int, args: list[str]) -> subprocess.Popen:
        out = subprocess.PIPE if i == 0 else (work / f"n{i}.out").open("wb")   # a full pipe would stall a node
        return subprocess.Popen([*base, *args, *common, "--data-dir", str(work / f"n{i}"),
                                 "--trace", str(work / f"trace{i}"), "--seed", str(i)],
                                stdout=out, stderr=(work / f"n{i}.log").open("wb"), text=True, env=env)

    host = start(0, ["host", game, "--players", str(PLAYERS), "--no-discovery", "--out", str(work / "game.caravan")])
    port = next(json.loads(line)["port"] for line in host.stdout if '"lobby"' in line)
    procs = [host] + [start(i, ["join", f"127.0.0.1:{port}"]) for i in range(1, PLAYERS)]
    host.stdout.read()
    for p in procs:
        p.wait(timeout=600)
    return None if any(p.returncode for p in procs) else work


def _traces(work: Path) -> tuple[list[list[tuple[str, str, int]]], float]:
    """Each node's trace marks (kind, message id or "-", monotonic ns), in order; and the CPU
    seconds the nodes spent from their first mark to the game's end (not their start)."""
    out, cpu = [], 0.0
    for i in range(PLAYERS):
        marks, spent = [], []
        for line in (work / f"trace{i}").read_text().splitlines():
            kind, mid, t, c = line.split()
            marks.append((kind, mid, int(t)))
            if c != "-":
                spent.append(int(c))
        out.append(marks)
        cpu += (spent[-1] - spent[0]) / 1e9 if spent else 0.0
    return out, cpu


def _latencies(traces: list[list[tuple[str, str, int]]], kinds: dict[str, str]) -> tuple[list[tuple[str, float]], float]:
    """(kind, ms from signing to applied on another node) per delivery, and the wall time
    from the first signature to the last application (s)."""
    signed: dict[str, tuple[int, int]] = {}
    applied: list[tuple[int, str, int]] = []
    for i, marks in enumerate(traces):
        for kind, mid, t in marks:
            if kind == "sign":
                signed[mid] = (i, t)
            elif kind == "apply":
                applied.append((i, mid, t))
    lat = [(kinds.get(mid, "?"), (t - signed[mid][1]) / 1e6)
           for i, mid, t in applied if mid in signed and signed[mid][0] != i]
    wall = (max(t for _, _, t in applied) - min(t for _, t in signed.values())) / 1e9
    return lat, wall


HOP_PARTS = ("sign → received (sender's store + send, the wire, decode)", "received → applied (verify + apply)",
             "applied → decider asked (store, narration, scheduling)",
             "asked → signed (the decision or the automatic message, and its signature)")


def _hops(traces: list[list[tuple[str, str, int]]]) -> tuple[list[list[float]], list[float]]:
    """The dependent hops: each message signed next after another seat's message that its
    signer had applied before it signed. Per hop the µs of each of HOP_PARTS; and per
    signed message the µs from its signing to its being written to every link."""
    first: dict[tuple[int, str, str], int] = {}
    asks: list[list[int]] = [[] for _ in traces]
    signs: list[tuple[int, int, str]] = []
    for i, marks in enumerate(traces):
        for kind, mid, t in marks:
            if kind == "ask":
                asks[i].append(t)
            else:
                first.setdefault((i, kind, mid), t)
                if kind == "sign":
                    signs.append((t, i, mid))
    signs.sort()
    hops = []
    for (t0, a, m0), (t1, b, m1) in zip(signs, signs[1:]):
        recv, applied = first.get((b, "recv", m0)), first.get((b, "apply", m0))
        if a == b or recv is None or applied is None or not t0 <= recv <= applied <= t1:
            continue
        ask = max((t for t in asks[b] if applied <= t <= t1), default=t1)
        hops.append([(recv - t0) / 1e3, (applied - recv) / 1e3, (ask - applied) / 1e3, (t1 - ask) / 1e3])
    sends = [(first[(i, "sent", mid)] - t) / 1e3 for t, i, mid in signs if (i, "sent", mid) in first]
    return hops, sends


def _hop_lines(traces: list[list[tuple[str, str, int]]], floor_b: float, steps: int) -> list[str]:
    hops, sends = _hops(traces)
    if not hops:
        return []
    mean = [statistics.mean(h[k] for h in hops) for k in range(len(HOP_PARTS))]
    median = statistics.median(sum(h) for h in hops)
    return [f"  a dependent hop (sign on one node → the next seat's message signed), mean of {len(hops)}: "
            f"{sum(mean):,.0f} µs (median {median:,.0f} µs; the floor allows {floor_b / steps * 1e6:,.0f} µs a step)",
            *(f"    {part}: {us:,.0f} µs" for part, us in zip(HOP_PARTS, mean)),
            f"    of the first, sign → written to every link: {statistics.mean(sends):,.0f} µs"]


def _fsync_s(where: Path, n: int = 30) -> float:
    """Median seconds to append a message-sized record and fsync it (the store's worker
    thread does it behind the game: before issue #25, it was on the path of every step)."""
    times = []
    with (where / "fsync-probe").open("ab") as fh:
        for _ in range(n):
            fh.write(bytes(300))
            fh.flush()
            t0 = time.perf_counter()
            os.fsync(fh.fileno())
            times.append(time.perf_counter() - t0)
    return statistics.median(times)


def _mean_p99(values: list[float]) -> tuple[float, float]:
    if not values:
        return 0.0, 0.0
    ordered = sorted(values)
    return statistics.mean(ordered), ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]


def _verdict(ok: bool) -> str:
    return "met" if ok else "MISSED"


def _report(game: str) -> list[str]:
    work = _play(game)
    if work is None:
        return [f"{games.get(game).title}: a node failed (logs in {tempfile.gettempdir()}/caravan-bench-*)"]
    data = (work / "game.caravan").read_bytes()
    frames = transcript.load(data)[1]
    kinds = {hashlib.sha256(raw).hexdigest()[:24]: chain.parse(raw).kind for raw in frames}
    traces, node_cpu = _traces(work)
    lat, wall = _latencies(traces, kinds)
    costs, complete = _replay(data)

    key = SigningKey.from_seed(b"\x01" * 32)
    payload = b"caravan/sig/v1" + bytes(32)
    sign_s = best_per_call(lambda: key.sign(payload))
    verify_s = best_per_call(lambda: verify(key.public, key.sign(payload), payload), 500) - sign_s
    cores = os.cpu_count() or 1

    def proofs(c: Cost) -> float:
        return max(0.0, c.crypto - verify_s)
    crypto = sum(c.crypto for c in costs)
    floor_a = ((PLAYERS - 1) * crypto + sum(sign_s + proofs(c) for c in costs)) / cores
    path: dict[int, float] = {}
    for c in costs:
        path[c.step] = max(path.get(c.step, 0.0), sign_s + proofs(c) + c.cpu)
    floor_b = sum(path.values())
    floor = max(floor_a, floor_b)

    fsync_s = _fsync_s(work)
    mean, p99 = _mean_p99([ms for _, ms in lat])
    heavy = _mean_p99([ms for k, ms in lat if k in PROOF_KINDS])
    light = _mean_p99([ms for k, ms in lat if k not in PROOF_KINDS])
    n_heavy = sum(1 for k, _ in lat if k in PROOF_KINDS)
    by_kind: dict[str, list[float]] = {}
    for c in costs:
        by_kind.setdefault(c.kind, []).append(c.cpu)
    heaviest = sorted(by_kind.items(), key=lambda kv: -statistics.mean(kv[1]))[:3]
    return [
        f"{games.get(game).title}, {PLAYERS} nodes on loopback: {len(frames)} messages, strict replay "
        f"{'complete' if complete else 'INCOMPLETE'}",
        f"  latency sign -> applied on another node over {len(lat)} deliveries: "
        f"mean {mean:.2f} ms (target ≤ {TARGET_MEAN_MS:.0f} ms: {_verdict(mean <= TARGET_MEAN_MS)}), "
        f"p99 {p99:.2f} ms (target ≤ {TARGET_P99_MS:.0f} ms: {_verdict(p99 <= TARGET_P99_MS)})",
        f"    messages with deck proofs ({n_heavy} deliveries): mean {heavy[0]:.2f} ms, p99 {heavy[1]:.2f} ms; "
        f"without: mean {light[0]:.2f} ms, p99 {light[1]:.2f} ms",
        "    verify + apply CPU per message (strict replay): " + ", ".join(
            f"{k} {statistics.mean(v) * 1e3:.2f} ms (×{len(v)})" for k, v in heaviest),
        f"  floor (a) crypto CPU: {crypto * 1e3:.0f} ms of signature/proof checks per verifying node "
        f"×{PLAYERS - 1} + making them, on {cores} cores = {floor_a * 1e3:.0f} ms",
        f"  floor (b) critical path: {len(path)} dependent steps, each its slowest message's sign + proofs "
        f"+ verify + apply = {floor_b * 1e3:.0f} ms",
        f"  not in the floor nor on the path: the store's fsync ({fsync_s * 1e3:.1f} ms here, "
        f"{fsync_s / (floor_b / len(path)):.0f}× a step of the floor), done behind the game by a worker thread",
        f"  game wall time {wall:.2f} s = {wall / floor:.1f}× the floor of {floor * 1e3:.0f} ms "
        f"(target ≤ {TARGET_FLOOR:.0f}×: {_verdict(wall <= TARGET_FLOOR * floor)})",
        f"  CPU of the {PLAYERS} node processes over the game: {node_cpu:.2f} s = "
        f"{node_cpu / len(path) * 1e6:,.0f} µs a step (the floor's path: {floor_b / len(path) * 1e6:,.0f} µs; a busy machine inflates the wall "
        f"times below much more than this)",
        *_hop_lines(traces, floor_b, len(path)),
    ]


def run() -> list[str]:
    lines: list[str] = []
    for game in games_with(players=PLAYERS):     # every installed game that seats PLAYERS
        lines += _report(game)
    return lines
