"""Mental-deck CPU cost per node (22 cards, 4 players), against bare scalar multiplications.

Run through `python -m tests.benchmarks`. Each operation is timed with
time.process_time for what one node does; its scalar multiplications are counted by
wrapping the group module's libsodium calls, and the same number of bare
crypto_scalarmult_ed25519_noclamp calls is timed right after each run as the baseline,
so both see the same machine load (ratios are medians of these pairs, times minima).
Before each run the point-validation cache is reset to what the node had already
validated at that moment (the key shares, the joint key and the deck it holds), so every
newly received point is validated and paid for, as in a game.
"""

from __future__ import annotations

import statistics
import time
from contextlib import contextmanager
from typing import Callable, Iterable, Iterator

import nacl.bindings as nb

from protocol.deck import card_table, group, ops

CARDS, PLAYERS, REPEAT = 22, 4, 5
GAME = b"bench-game".ljust(32, b"\0")
SEEDS = [bytes([i + 1]) * 32 for i in range(PLAYERS)]
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


def _known(points: Iterable[object]) -> None:
    """Reset the validation cache to what the node has already checked."""
    group._valid.cache_clear()

    def walk(v: object) -> None:
        if isinstance(v, bytes):
            group.is_point(v)
        else:
            for w in v:  # type: ignore[attr-defined]
                walk(w)

    walk(points)


def _bare(count: int, fixed_base: bool = False) -> float:
    """CPU seconds of `count` bare libsodium multiplications."""
    s = group.scalar_bytes(0x1234567890ABCDEF1234567890ABCDEF * 7919)
    p = bytes(group.mul_base(12345))
    t0 = time.process_time()
    if fixed_base:
        for _ in range(count):
            nb.crypto_scalarmult_ed25519_base_noclamp(s)
    else:
        for _ in range(count):
            nb.crypto_scalarmult_ed25519_noclamp(s, p)
    return time.process_time() - t0


def _measure(fn: Callable[[], object], known: list) -> dict[str, float]:
    """Count fn's multiplications, then time fn and its bare baselines back to back."""
    with _counting() as counts:
        _known(known)
        fn()
    total = counts["V"] + counts["B"]
    times, ratios, strict = [], [], []
    for _ in range(REPEAT):
        _known(known)
        t0 = time.process_time()
        fn()
        t = time.process_time() - t0
        times.append(t)
        ratios.append(t / _bare(total))
        strict.append(t / (_bare(counts["V"]) + _bare(counts["B"], fixed_base=True)))
    return {"cpu": min(times), "ratio": statistics.median(ratios), "strict": statistics.median(strict),
            "V": counts["V"], "B": counts["B"]}


def _lines(name: str, m: dict[str, float], target: float) -> list[str]:
    return [
        f"{name}: {m['cpu'] * 1e3:7.2f} ms CPU (target <= {target * 1e3:.0f} ms) "
        f"[{'ok' if m['cpu'] <= target else 'OVER'}]",
        f"    {m['V']} variable-base + {m['B']} fixed-base mults; vs as many bare noclamp "
        f"mults: {m['ratio']:.2f}x (target <= {TARGET_RATIO}x) "
        f"[{'ok' if m['ratio'] <= TARGET_RATIO else 'OVER'}]; "
        f"vs fixed-base ones timed as base_noclamp: {m['strict']:.2f}x",
    ]


def run() -> list[str]:
    table = card_table("bench", CARDS)
    keys = [ops.key_share(SEEDS[i], GAME, i) for i in range(PLAYERS)]
    y = ops.joint_key([k[1] for k in keys])
    decks = [ops.initial_deck(y, table)]
    proofs, ctxs = [], []
    for seat in range(PLAYERS):
        ctx = ops.deck_context(GAME, seat, 10 + seat, "bench", 0)
        out, proof = ops.shuffle(y, decks[-1], SEEDS[seat] + b"shuffle", ctx)
        decks.append(out)
        proofs.append(proof)
        ctxs.append(ctx)

    def joint_shuffle(node: int) -> Callable[[], None]:
        def go() -> None:
            for seat in range(PLAYERS):
                if seat == node:
                    ops.shuffle(y, decks[seat], SEEDS[seat] + b"shuffle", ctxs[seat])
                else:
                    ops.verify_shuffle(y, decks[seat], decks[seat + 1], proofs[seat], ctxs[seat])
        return go

    card = decks[-1][0]
    shares = []
    for seat in range(PLAYERS):
        ctx = ops.deck_context(GAME, seat, 20 + seat, "bench", 1, 0)
        d, proof = ops.decryption_share(keys[seat][0], card, SEEDS[seat] + b"share", ctx)
        shares.append((d, proof, ctx))
    me = 0  # the drawer in a private draw; the node doing the reveal

    def private_draw() -> None:
        for seat in range(PLAYERS):
            if seat != me:
                ops.verify_share(keys[seat][1], card, *shares[seat])
        table.decode(ops.open_private(keys[me][0], card, [shares[s][0] for s in range(PLAYERS) if s != me]))

    def public_reveal() -> None:
        ops.decryption_share(keys[me][0], card, SEEDS[me] + b"share", shares[me][2])
        for seat in range(PLAYERS):
            if seat != me:
                ops.verify_share(keys[seat][1], card, *shares[seat])
        table.decode(ops.open_card(card, [s[0] for s in shares]))

    public_keys = [y, *(k[1] for k in keys)]
    start, dealt = public_keys + decks[:1], public_keys + decks[-1:]
    lines = [f"mental deck: {CARDS} cards, {PLAYERS} players; CPU per node, min of {REPEAT} runs"]
    for node in range(PLAYERS):
        lines += _lines(f"joint shuffle, seat {node} (own shuffle+proof, verify {PLAYERS - 1})",
                        _measure(joint_shuffle(node), start), TARGET_SHUFFLE_S)
    lines += _lines(f"private draw (verify {PLAYERS - 1} shares + decode)", _measure(private_draw, dealt),
                    TARGET_DRAW_S)
    lines += _lines(f"public reveal (own share, verify {PLAYERS - 1}, decode)", _measure(public_reveal, dealt),
                    TARGET_DRAW_S)
    return lines


if __name__ == "__main__":
    print("\n".join(run()))
