"""Property tests: honest shuffles of any size verify and decrypt; any single tamper fails;
garbage never raises anything but InvalidProof/DeckError."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from tests.deck.deck_table import Table
from protocol.deck import DeckError, InvalidProof, ops
from protocol.deck.group import G, add

T = Table(2, 7)
KEYS = [p.x for p in T.players]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(min_value=1, max_value=7), st.binary(min_size=32, max_size=32),
       st.integers(min_value=0, max_value=1000),
       st.sampled_from(["swap", "dup", "point", "reenc", "scalar", "commitment"]))
def test_shuffle_sound_and_complete(n: int, seed: bytes, pos: int, tamper: str) -> None:
    deck = T.initial()[:n]
    ctx = b"prop" + seed
    out, proof = ops.shuffle(T.y, deck, seed, ctx)
    ops.verify_shuffle(T.y, deck, out, proof, ctx)
    assert sorted(T.table.decode(ops.open_with_keys(c, KEYS)) for c in out) == list(range(n))
    k_scalar, k_point, pos = 2 * n + pos % (2 * n + 5), pos % (2 * n), pos % n
    out2, proof2 = list(out), list(proof)
    if tamper == "swap" and n > 1:
        out2[pos], out2[(pos + 1) % n] = out2[(pos + 1) % n], out2[pos]
    elif tamper == "dup" and n > 1:
        out2[pos] = out2[(pos + 1) % n]
    elif tamper == "point":
        out2[pos] = [bytes(add(out2[pos][0], G)), out2[pos][1]]
    elif tamper == "reenc":
        out2[pos] = ops.rerandomize(T.y, out2[pos], seed, ctx)[0]
    elif tamper == "scalar":
        proof2[k_scalar] = ((int.from_bytes(proof2[k_scalar], "little") + 1) % (2**252)).to_bytes(32, "little")
    else:
        proof2[k_point] = bytes(add(proof2[k_point], G))
    if out2 == out and proof2 == proof:
        return
    with pytest.raises(InvalidProof):
        ops.verify_shuffle(T.y, deck, out2, proof2, ctx)


junk = st.recursive(
    st.one_of(st.none(), st.integers(), st.binary(max_size=40), st.text(max_size=4),
              st.sampled_from([bytes(32), b"\xff" * 32, bytes(G)])),
    lambda inner: st.lists(inner, max_size=5), max_leaves=12,
)


@settings(max_examples=150, deadline=None)
@given(junk, junk, junk)
def test_garbage_is_refused_cleanly(a, b, c) -> None:
    deck = T.initial()[:3]
    cases = [
        lambda: ops.verify_share(a, deck[0], b, c, b"x"),
        lambda: ops.verify_share(T.players[0].y, a, bytes(G), b, b"x"),
        lambda: ops.verify_shuffle(T.y, deck, a, b, b"x"),
        lambda: ops.verify_shuffle(T.y, a, deck, b, b"x"),
        lambda: ops.verify_rerandomize(T.y, deck[0], a, b, b"x"),
        lambda: ops.verify_return_face_down(T.y, a, deck[0], b, b"x"),
        lambda: ops.verify_return_face_down(T.y, deck, a, b, b"x"),
        lambda: ops.verify_key_share(a, b, b"g", 0),
        lambda: ops.open_card(a, [bytes(G)]),
        lambda: ops.verify_claim(T.players[0].y, deck[0], a, b, [bytes(G)], b"x"),
    ]
    for case in cases:
        try:
            case()
        except DeckError:
            pass
