"""Vectors a user can check with the shipped `caravan verify` (issue 16, "the spec as an
outsider reads it", point 9): a real 2-player game and tampered copies, each with the verdict
`caravan verify FILE --json` must give, in specs/vectors/cli/. The game is the one the pinned
verdicts name (the vectors pin it; with none yet, the first installed game with choices made at
once for two players: the tampering needs a pair of reveals).

`python -m tests.security.cli_vectors` rewrites them (only when the format changes on
purpose; say so in specs/protocol.md)."""

from __future__ import annotations

import json
import random
from pathlib import Path

from protocol import chain, games, genesis as G, transcript
from protocol.deck.group import L, SMALL_ORDER_POINTS, mul_base, scalar_bytes
from protocol.player import beacon_chain
from protocol.verify import verify_bytes

DIR = Path(__file__).resolve().parents[2] / "specs" / "vectors" / "cli"
VERDICTS = DIR / "verdicts.json"
KEEP = ("valid", "complete", "game", "game_id", "messages", "error", "abandoned_by")


def vectors_game() -> str:
    """The game of the vectors: the one their pinned verdicts name, else a new pick."""
    if VERDICTS.exists():
        return next(v["game"] for v in json.loads(VERDICTS.read_text()).values() if v["valid"] and v["complete"])
    from tests.games.pick import some_game
    return some_game("simultaneous", players=2)


def honest_game():
    from tests.helpers import new_table, play
    t = new_table(games.get(vectors_game()), 2, seed=1616)
    rng = random.Random(1616)
    play(t, lambda seat, legal: rng.choice(legal))
    return t.genesis.to_wire(), list(t.sessions[0].log)


def weak_key_genesis() -> bytes:
    """A genesis seating the identity point, 'signed' for it by an outsider (R = sB, S = s)."""
    from protocol.identity import SigningKey
    rng = random.Random(1617)
    real = SigningKey.from_seed(rng.randbytes(32))
    nonce, secret = rng.randbytes(16), rng.randbytes(32)
    tips = [beacon_chain(secret, nonce, i, 16)[0] for i in range(2)]
    seats = [real.public, SMALL_ORDER_POINTS[0]]
    game = vectors_game()
    options = games.get(game).default_options(2)
    body = G.make_body(game, options, seats, tips, nonce, 16)
    s = rng.randrange(1, L)
    forged = bytes(mul_base(s)) + scalar_bytes(s)
    return G.Genesis(game, options, seats, tips, 16, nonce, body, [G.sign(real, body), forged]).to_wire()


def first_pair(log: list[bytes], kind: str) -> int:
    """Index of the first two consecutive `kind` messages of different seats (one parallel step)."""
    for k in range(len(log) - 1):
        a, b = chain.parse(log[k]), chain.parse(log[k + 1])
        if a.kind == b.kind == kind and a.author != b.author:
            return k
    raise AssertionError(kind)


def compute() -> dict[str, bytes]:
    """file name -> transcript bytes. Tampered copies stop a few messages after the tamper
    (verify reports the first problem, so the rest would only add size)."""
    g, log = honest_game()
    k = first_pair(log, "reveal")
    flipped = bytearray(log[k])
    flipped[-5] ^= 0x40
    return {
        f"{vectors_game()}-2p.caravan": transcript.dump(g, log),
        "unfinished.caravan": transcript.dump(g, log[:k]),
        "bad-signature.caravan": transcript.dump(g, log[:k] + [bytes(flipped)] + log[k + 1:k + 4]),
        "bad-order.caravan": transcript.dump(g, log[:k] + [log[k + 1], log[k]] + log[k + 2:k + 4]),
        "gap.caravan": transcript.dump(g, log[:k + 1] + log[k + 2:k + 5]),
        "duplicate.caravan": transcript.dump(g, log[:k + 1] + [log[k]] + log[k + 1:k + 4]),
        "weak-key.caravan": transcript.dump(weak_key_genesis(), []),
    }


def verdict(data: bytes) -> dict:
    report = verify_bytes(data).to_json()
    return {k: report[k] for k in KEEP}


if __name__ == "__main__":
    DIR.mkdir(parents=True, exist_ok=True)
    files = compute()
    for name, data in files.items():
        (DIR / name).write_bytes(data)
    VERDICTS.write_text(json.dumps({name: verdict(data) for name, data in files.items()}, indent=1) + "\n")
    print(f"wrote {len(files)} transcripts and {VERDICTS}")
