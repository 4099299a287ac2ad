"""Protocol core: envelope cost against bare Ed25519, and verify throughput against the
signature-verification bound (targets from the protocol-core issue)."""

from __future__ import annotations

import random

from protocol import chain, games
from protocol.identity import SigningKey, verify
from protocol.verify import verify_bytes
from tests.benchmarks.common import interleaved
from tests.fixture_game import ENGINE
from tests.helpers import new_table, play


def run() -> list[str]:
    games.register(ENGINE)
    key = SigningKey.from_seed(b"\x01" * 32)
    gid = bytes(32)
    refs = [[1, 40, bytes(32)], [2, 41, bytes(32)], [3, 39, bytes(32)]]
    body = {"a": ["move", 3, "north"], "o": []}
    payload = b"caravan/sig/v1" + bytes(32)
    sig = key.sign(payload)
    raw = chain.seal(key, gid, 42, gid, refs, "act", body).raw
    bare_sign, seal = interleaved([lambda: key.sign(payload),
                                   lambda: chain.seal(key, gid, 42, gid, refs, "act", body)])
    bare_verify, parse_verify = interleaved([lambda: verify(key.public, sig, payload),
                                             lambda: chain.parse(raw).signature_ok()])

    # a long fixture game: 6 players, 10 rounds
    t = new_table(ENGINE, 6, seed=1, options={"rounds": 10})
    rng = random.Random(1)
    play(t, lambda seat, legal: rng.choice(legal))
    data = t.transcript()
    msgs = len(t.sessions[0].log)
    sigs = [chain.parse(m) for m in t.sessions[0].log]
    best, bare_all = interleaved([lambda: verify_bytes(data), lambda: [m.signature_ok() for m in sigs]],
                                 n=1, rounds=7)
    assert verify_bytes(data).ok
    rate = msgs / best
    bound = msgs / bare_all
    return [
        f"bare Ed25519: sign {bare_sign * 1e6:.1f} µs, verify {bare_verify * 1e6:.1f} µs",
        f"envelope encode+sign  {seal * 1e6:6.1f} µs = {seal / bare_sign:.2f}× bare sign   (target ≤ 1.3×)",
        f"envelope decode+verify {parse_verify * 1e6:6.1f} µs = {parse_verify / bare_verify:.2f}× bare verify (target ≤ 1.3×)",
        f"caravan verify: {msgs} messages in {best * 1e3:.1f} ms = {rate:,.0f} msg/s; "
        f"bare signature bound (verifying the same signatures) {bound:,.0f} msg/s; ratio {rate / bound:.2f} "
        f"(target ≥ 0.7)",
    ]
