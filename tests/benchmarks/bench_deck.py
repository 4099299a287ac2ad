"""Mental-deck CPU cost per node (22 cards, 4 players; and issue #17's joint shuffle of 52
cards among 6 players), against bare scalar multiplications.

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
SEEDS = [bytes([i + 1]) * 32 for i in range(6)]
TARGET_SHUFFLE_S, TARGET_DRAW_S, TARGET_RATIO = 0.5, 0.010, 1.5
BIG_CARDS, BIG_PLAYERS, BIG_REPEAT = 52, 6, 3
TARGET_BIG_S, TARGET_BIG_RATIO = 1.0, 1.1
"""Issue #17 item 5: a 52-card shuffle among 6 players, ≤ 1 s CPU per node with every
verification, at most 1.1× the bare scalar multiplications it makes."""


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
    group.clear_cache()

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


def _measure(fn: Callable[[], object], known: list, repeat: int = REPEAT) -> dict[str, float]:
    """Count fn's multiplications, then time fn and its bare baselines back to back."""
    with _counting() as counts:
        _known(known)
        fn()
    total = counts["V"] + counts["B"]
    times, ratios, strict = [], [], []
    for _ in range(repeat):
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


def _big_lines(name: str, m: dict[str, float]) -> list[str]:
    cpu_ok, ratio_ok = m["cpu"] <= TARGET_BIG_S, m["ratio"] <= TARGET_BIG_RATIO
    return [
        f"{name}: {m['cpu'] * 1e3:7.1f} ms CPU (target ≤ {TARGET_BIG_S * 1e3:.0f} ms: "
        f"{'met' if cpu_ok else 'MISSED'})",
        f"    {m['V']} variable-base + {m['B']} fixed-base mults; vs as many bare noclamp mults: "
        f"{m['ratio']:.2f}× (target ≤ {TARGET_BIG_RATIO}×: {'met' if ratio_ok else 'MISSED'}); "
        f"vs fixed-base ones timed as base_noclamp: {m['strict']:.2f}×",
    ]


def _joint_shuffle(cards: int, players: int):
    """(table, keys, joint key, decks, and joint_shuffle(node): what that node does in a
    joint shuffle — its own shuffle and proof, and checking every other seat's)."""
    table = card_table("bench", cards)
    keys = [ops.key_share(SEEDS[i], GAME, i) for i in range(players)]
    y = ops.joint_key([k[1] for k in keys])
    decks = [ops.initial_deck(y, table)]
    proofs, ctxs = [], []
    for seat in range(players):
        ctx = ops.deck_context(GAME, seat, 10 + seat, "bench", 0)
        out, proof = ops.shuffle(y, decks[-1], SEEDS[seat] + b"shuffle", ctx)
        decks.append(out)
        proofs.append(proof)
        ctxs.append(ctx)

    def joint_shuffle(node: int) -> Callable[[], None]:
        def go() -> None:
            for seat in range(players):
                if seat == node:
                    ops.shuffle(y, decks[seat], SEEDS[seat] + b"shuffle", ctxs[seat])
                else:
                    ops.verify_shuffle(y, decks[seat], decks[seat + 1], proofs[seat], ctxs[seat])
        return go
    return table, keys, y, decks, joint_shuffle


def run() -> list[str]:
    table, keys, y, decks, joint_shuffle = _joint_shuffle(CARDS, PLAYERS)

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

    _, keys, y, decks, joint_shuffle = _joint_shuffle(BIG_CARDS, BIG_PLAYERS)
    start = [y, *(k[1] for k in keys), decks[0]]
    lines.append(f"issue #17: {BIG_CARDS} cards, {BIG_PLAYERS} players; CPU per node, min of {BIG_REPEAT} runs")
    for node in (0, BIG_PLAYERS - 1):
        lines += _big_lines(f"joint shuffle, seat {node} (own shuffle+proof, verify {BIG_PLAYERS - 1})",
                            _measure(joint_shuffle(node), start, BIG_REPEAT))
    return lines


if __name__ == "__main__":
    print("\n".join(run()))
