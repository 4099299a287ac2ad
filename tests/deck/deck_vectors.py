"""Builds the deck test vectors (specs/vectors/deck/deck-v1.json) from fixed seeds.

Run `python -m tests.deck.deck_vectors` to rewrite the file after an intentional change
of the spec; test_deck_vectors.py checks that the code still reproduces it exactly.
All byte strings are hex; everything else is plain JSON.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from protocol.deck import card_table, ops
from protocol.deck.group import G, L
from protocol.deck.shuffle import generators

PATH = Path(__file__).resolve().parents[2] / "specs" / "vectors" / "deck" / "deck-v1.json"
GAME_ID = bytes(range(32))
DECK_NAME = "vectors"
SIZE = 6
PLAYERS = 3


def _hex(v: Any) -> Any:
    if isinstance(v, bytes):
        return v.hex()
    if isinstance(v, (list, tuple)):
        return [_hex(w) for w in v]
    if isinstance(v, dict):
        return {k: _hex(w) for k, w in v.items()}
    return v


def seed(label: str, seat: int) -> bytes:
    return (label.encode() + bytes([seat])).ljust(32, b"\0")


def build() -> dict[str, Any]:
    table = card_table(DECK_NAME, SIZE)
    h, hs = generators(SIZE)
    players = []
    for seat in range(PLAYERS):
        x, y, pok = ops.key_share(seed("key", seat), GAME_ID, seat)
        players.append({"seat": seat, "seed": seed("key", seat), "x": x, "Y": y, "pok": pok})
    y = ops.joint_key([p["Y"] for p in players])
    deck = ops.initial_deck(y, table)
    shuffles = []
    for seat in range(PLAYERS):
        ctx = ops.deck_context(GAME_ID, seat, 2, DECK_NAME, 0)
        out, proof = ops.shuffle(y, deck, seed("shuffle", seat), ctx)
        shuffles.append({"seat": seat, "seed": seed("shuffle", seat), "context": ctx,
                         "deck_in": deck, "deck_out": out, "proof": proof})
        deck = out
    top = deck[0]
    shares = []
    for p in players:
        ctx = ops.deck_context(GAME_ID, p["seat"], 3, DECK_NAME, 0, 0)
        d, proof = ops.decryption_share(p["x"], top, seed("share", p["seat"]), ctx)
        shares.append({"seat": p["seat"], "seed": seed("share", p["seat"]), "context": ctx, "share": d, "proof": proof})
    point = ops.open_card(top, [s["share"] for s in shares])
    ctx = ops.deck_context(GAME_ID, 1, 4, DECK_NAME, 0, 1)
    rr, rr_proof = ops.rerandomize(y, deck[1], seed("rerandomize", 1), ctx)
    rerandomize = {"seat": 1, "seed": seed("rerandomize", 1), "context": ctx, "ciphertext": deck[1],
                   "new_ciphertext": rr, "proof": rr_proof}
    ctx = ops.deck_context(GAME_ID, 2, 5, DECK_NAME, 0, SIZE)
    hand = deck[2:5]
    ret, ret_proof = ops.return_face_down(y, hand, 1, seed("return", 2), ctx)
    ret_vec = {"seat": 2, "seed": seed("return", 2), "context": ctx, "hand": hand, "index": 1,
               "new_ciphertext": ret, "proof": ret_proof}
    return _hex({
        "about": "Caravan mental deck v1 test vectors; see specs/deck.md. Bytes are hex.",
        "group": {"L": str(L), "G": bytes(G)},
        "game_id": GAME_ID,
        "deck_name": DECK_NAME,
        "cards": list(table.points),
        "tw_generators": {"h": h, "h_i": hs},
        "context_example": {"fields": {"game_id": GAME_ID.hex(), "author": 0, "seq": 2, "deck": DECK_NAME,
                                        "version": 0, "position": None},
                            "context": ops.deck_context(GAME_ID, 0, 2, DECK_NAME, 0)},
        "players": players,
        "joint_key": y,
        "initial_deck": ops.initial_deck(y, table),
        "shuffles": shuffles,
        "public_reveal": {"ciphertext": top, "shares": shares, "point": point, "card": table.decode(point)},
        "rerandomize": rerandomize,
        "return_face_down": ret_vec,
    })


def main() -> None:
    PATH.parent.mkdir(parents=True, exist_ok=True)
    PATH.write_text(json.dumps(build(), indent=1) + "\n")
    print(f"wrote {PATH}")


if __name__ == "__main__":
    main()
