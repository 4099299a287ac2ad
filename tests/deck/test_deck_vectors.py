"""The code must reproduce specs/vectors/deck/deck-v1.json byte for byte, and the vectors verify."""

from __future__ import annotations

import json

from tests.deck.deck_vectors import PATH, build
from protocol.deck import card_table, ops


def test_vectors_reproduced() -> None:
    assert build() == json.loads(PATH.read_text()), "code no longer matches the published vectors"


def test_vectors_verify() -> None:
    v = json.loads(PATH.read_text())
    b = bytes.fromhex

    def h(x):  # hex tree -> bytes tree
        return [h(y) for y in x] if isinstance(x, list) else b(x)

    game = b(v["game_id"])
    table = card_table(v["deck_name"], len(v["cards"]))
    assert [p.hex() for p in table.points] == v["cards"]
    for p in v["players"]:
        ops.verify_key_share(b(p["Y"]), h(p["pok"]), game, p["seat"])
        ops.verify_published_key(b(p["Y"]), b(p["x"]))
    y = b(v["joint_key"])
    assert ops.joint_key([b(p["Y"]) for p in v["players"]]) == y
    assert ops.initial_deck(y, table) == h(v["initial_deck"])
    for s in v["shuffles"]:
        ops.verify_shuffle(y, h(s["deck_in"]), h(s["deck_out"]), h(s["proof"]), b(s["context"]))
    r = v["public_reveal"]
    for s, p in zip(r["shares"], v["players"]):
        ops.verify_share(b(p["Y"]), h(r["ciphertext"]), b(s["share"]), h(s["proof"]), b(s["context"]))
    assert table.decode(ops.open_card(h(r["ciphertext"]), [b(s["share"]) for s in r["shares"]])) == r["card"]
    rr = v["rerandomize"]
    ops.verify_rerandomize(y, h(rr["ciphertext"]), h(rr["new_ciphertext"]), h(rr["proof"]), b(rr["context"]))
    rt = v["return_face_down"]
    ops.verify_return_face_down(y, h(rt["hand"]), h(rt["new_ciphertext"]), h(rt["proof"]), b(rt["context"]))
