"""Mental-deck CPU cost per node (22 cards, 4 players), against bare scalar multiplications.

Run through `python -m tests.benchmarks`. Each operation is timed with
time.process_time for what one node does, its scalar multiplications are counted by
wrapping the group module's libsodium calls, and the same number of bare
crypto_scalarmult_ed25519_noclamp calls is timed in the same run as the baseline.
The point-validation cache is cleared before each timed run, so validation is paid
as a node would pay it.
"""

from __future__ import annotations

import statistics
import time
from contextlib import contextmanager
from typing import Callable, Iterator

import nacl.bindings as nb

from protocol.deck import card_table, ops
from protocol.deck import group

CARDS, PLAYERS, REPEAT = 22, 4, 3
GAME = b"bench-game".ljust(32, b"\0")
TARGET_SHUFFLE_S, TARGET_DRAW_S, TARGET_RATIO = 0.5, 0.010, 1.5


@contextmanager
def _counting() -> Iterator[dict[str, int]]:
    """Count variable-base (V) and fixed-base (B) multiplications made through group.py."""
    counts = {"V": 0, "B": 0}
    var, base = group._scalarmult, group._scalarmult_base

    def v(s: bytes, p: bytes) -> bytes:
        counts["V"] += 1
        return var(s, p)

    def b(s: bytes) -> bytes:
        counts["B"] += 1
        return base(s)

    group._scalarmult, group._scalarmult_base = v, b
    try:
        yield counts
    finally:
        group._scalarmult, group._scalarmult_base = var, base


def _cpu(fn: Callable[[], object]) -> float:
    """Median CPU seconds of fn over REPEAT runs, each from a cold validation cache."""
    times = []
    for _ in range(REPEAT):
        group._valid.cache_clear()
        t0 = time.process_time()
        fn()
        times.append(time.process_time() - t0)
    return statistics.median(times)


def _bare(count: int, fixed_base: bool = False) -> float:
    """CPU seconds of `count` bare libsodium multiplications (median of REPEAT)."""
    s = group.scalar_bytes(0x1234567890ABCDEF1234567890ABCDEF * 7919)
    p = bytes(group.mul_base(12345))
    times = []
    for _ in range(REPEAT):
        t0 = time.process_time()
        if fixed_base:
            for _ in range(count):
                nb.crypto_scalarmult_ed25519_base_noclamp(s)
        else:
            for _ in range(count):
                nb.crypto_scalarmult_ed25519_noclamp(s, p)
        times.append(time.process_time() - t0)
    return statistics.median(times)


def _measure(name: str, fn: Callable[[], object], target: float) -> list[str]:
    with _counting() as counts:
        group._valid.cache_clear()
        fn()
    cpu = _cpu(fn)
    total = counts["V"] + counts["B"]
    baseline = _bare(total)
    strict = _bare(counts["V"]) + _bare(counts["B"], fixed_base=True)
    return [
        f"{name}: {cpu * 1e3:8.2f} ms CPU per node (target <= {target * 1e3:.0f} ms) "
        f"[{'ok' if cpu <= target else 'OVER'}]",
        f"    {counts['V']} variable-base + {counts['B']} fixed-base scalar mults; "
        f"{total} bare noclamp mults take {baseline * 1e3:.2f} ms -> ratio {cpu / baseline:.2f}x "
        f"(target <= {TARGET_RATIO}x) [{'ok' if cpu / baseline <= TARGET_RATIO else 'OVER'}]",
        f"    stricter baseline (fixed-base mults timed as base_noclamp, {strict * 1e3:.2f} ms): "
        f"ratio {cpu / strict:.2f}x",
    ]


def run() -> list[str]:
    table = card_table("bench", CARDS)
    keys = [ops.key_share(bytes([i + 1]) * 32, GAME, i) for i in range(PLAYERS)]
    y = ops.joint_key([k[1] for k in keys])
    decks = [ops.initial_deck(y, table)]
    proofs, ctxs = [], []
    for seat in range(PLAYERS):
        ctx = ops.deck_context(GAME, seat, 10 + seat, "bench", 0)
        out, proof = ops.shuffle(y, decks[-1], keys[seat][0] + b"shuffle", ctx)
        decks.append(out)
        proofs.append(proof)
        ctxs.append(ctx)

    def joint_shuffle(node: int) -> Callable[[], None]:
        def go() -> None:
            for seat in range(PLAYERS):
                if seat == node:
                    ops.shuffle(y, decks[seat], keys[seat][0] + b"shuffle", ctxs[seat])
                else:
                    ops.verify_shuffle(y, decks[seat], decks[seat + 1], proofs[seat], ctxs[seat])
        return go

    card = decks[-1][0]
    shares = []
    for seat in range(PLAYERS):
        ctx = ops.deck_context(GAME, seat, 20 + seat, "bench", 1, 0)
        d, proof = ops.decryption_share(keys[seat][0], card, keys[seat][0] + b"share", ctx)
        shares.append((d, proof, ctx))
    drawer = 0

    def private_draw() -> None:
        for seat in range(PLAYERS):
            if seat != drawer:
                ops.verify_share(keys[seat][1], card, *shares[seat])
        point = ops.open_private(keys[drawer][0], card, [shares[s][0] for s in range(PLAYERS) if s != drawer])
        table.decode(point)

    def public_reveal() -> None:
        ops.decryption_share(keys[drawer][0], card, keys[drawer][0] + b"share", shares[drawer][2])
        for seat in range(PLAYERS):
            if seat != drawer:
                ops.verify_share(keys[seat][1], card, *shares[seat])
        table.decode(ops.open_card(card, [s[0] for s in shares]))

    lines = [f"mental deck: {CARDS} cards, {PLAYERS} players, median of {REPEAT} runs, CPU time"]
    per_node = [_cpu(joint_shuffle(n)) for n in range(PLAYERS)]
    lines.append(f"joint shuffle per node (own shuffle+proof, verify {PLAYERS - 1} others): "
                 + ", ".join(f"seat {n} {t * 1e3:.1f} ms" for n, t in enumerate(per_node)))
    worst = max(range(PLAYERS), key=lambda n: per_node[n])
    lines += _measure(f"joint shuffle (worst node, seat {worst})", joint_shuffle(worst), TARGET_SHUFFLE_S)
    lines += _measure(f"private draw (verify {PLAYERS - 1} shares + decode)", private_draw, TARGET_DRAW_S)
    lines += _measure(f"public reveal (own share, verify {PLAYERS - 1}, decode)", public_reveal, TARGET_DRAW_S)
    return lines


if __name__ == "__main__":
    print("\n".join(run()))
