"""Group layer: point and scalar validation, the libsodium self-test, derivations."""

from __future__ import annotations

import nacl.bindings as nb
import pytest
from hypothesis import given, settings, strategies as st

from protocol.deck import DeckError, InvalidProof, card_table, ops
from protocol.deck import group
from protocol.deck.group import (
    G, IDENTITY, L, SMALL_ORDER_POINTS, SecretStream, add, mul, mul_base, parse_point,
    parse_scalar, scalar_bytes, sub,
)
from protocol.deck.shuffle import generators


def test_small_order_and_torsion_points_rejected() -> None:
    for t in SMALL_ORDER_POINTS:
        with pytest.raises(InvalidProof):
            parse_point(t, "p")
        if t != IDENTITY:
            torsioned = add(mul_base(987654321), t)
            with pytest.raises(InvalidProof, match="prime-order"):
                parse_point(torsioned, "p")
    # CVE-2025-69277 shape: T2 + n·B with T2 = (0, −1).
    with pytest.raises(InvalidProof):
        parse_point(add(G, SMALL_ORDER_POINTS[1]), "p")


def test_other_malformed_points() -> None:
    p = bytes(mul_base(5))
    assert parse_point(p, "p") == p
    with pytest.raises(InvalidProof, match="identity"):
        parse_point(IDENTITY, "p")
    for bad, why in [(p[:31], "32 bytes"), (p + b"\0", "32 bytes"), (p.hex(), "str"), (None, "NoneType"),
                     (bytearray(p), "bytearray"), (bytes.fromhex("02" + "00" * 31), "prime-order")]:
        with pytest.raises(InvalidProof, match=why):
            parse_point(bad, "p")
    # Non-canonical encodings: y = p + 1 (the identity again) and x = 0 with the sign bit set.
    for enc in ["ee" + "ff" * 30 + "7f", "01" + "00" * 30 + "80"]:
        with pytest.raises(InvalidProof):
            parse_point(bytes.fromhex(enc), "p")


def test_scalars_must_be_canonical() -> None:
    assert parse_scalar(scalar_bytes(L - 1), "s") == L - 1
    for s in [L, L + 1, 2**256 - 1]:
        with pytest.raises(InvalidProof, match="not canonical"):
            parse_scalar(s.to_bytes(32, "little"), "s")
    with pytest.raises(InvalidProof, match="zero"):
        parse_scalar(bytes(32), "s", nonzero=True)
    with pytest.raises(InvalidProof):
        parse_scalar(b"\1" * 31, "s")
    with pytest.raises(InvalidProof):
        parse_scalar(5, "s")


def test_library_errors_become_invalid_proof() -> None:
    with pytest.raises(InvalidProof):
        mul(3, add(G, SMALL_ORDER_POINTS[2]))  # torsioned point reaching a multiplication
    with pytest.raises(InvalidProof):
        add(bytes.fromhex("02" + "00" * 31), G)  # off the curve
    assert mul(0, G) == IDENTITY and mul(L, G) == IDENTITY and mul(5, IDENTITY) == IDENTITY
    assert mul(L + 5, G) == mul_base(5)


def test_self_test_passes_and_detects_a_broken_library(monkeypatch) -> None:
    group.self_test()
    monkeypatch.setattr(nb, "crypto_core_ed25519_is_valid_point", lambda p: True)
    with pytest.raises(DeckError, match="self-test failed"):
        group.self_test()


def test_self_test_detects_cve_2025_69277(monkeypatch) -> None:
    """A library that accepts only T2 + n·B (the CVE) must still be refused."""
    real = nb.crypto_core_ed25519_is_valid_point
    cve = add(G, SMALL_ORDER_POINTS[1])
    monkeypatch.setattr(nb, "crypto_core_ed25519_is_valid_point", lambda p: p == cve or real(p))
    with pytest.raises(DeckError, match="torsion"):
        group.self_test()


@settings(max_examples=200, deadline=None)
@given(st.binary(min_size=32, max_size=32))
def test_random_bytes_are_validated_or_refused(data: bytes) -> None:
    try:
        p = parse_point(data, "p")
    except InvalidProof:
        return
    # An accepted point has no torsion component: adding any torsion point breaks it.
    for t in SMALL_ORDER_POINTS[1:]:
        with pytest.raises(InvalidProof):
            parse_point(add(p, t), "p")


@settings(max_examples=50, deadline=None)
@given(st.integers(min_value=1, max_value=L - 1), st.integers(min_value=1, max_value=L - 1))
def test_group_algebra(a: int, b: int) -> None:
    pa, pb = mul_base(a), mul_base(b)
    assert add(pa, pb) == mul_base(a + b) or (a + b) % L == 0
    assert sub(pa, pb) == mul_base(a - b) or a == b
    assert mul(b, pa) == mul_base(a * b % L)


@settings(max_examples=50, deadline=None)
@given(st.binary(min_size=32, max_size=64), st.integers(min_value=0, max_value=40))
def test_secret_stream_permutations(seed: bytes, n: int) -> None:
    s = SecretStream("t", seed, "statement")
    perm = s.permutation(n)
    assert sorted(perm) == list(range(n))
    assert SecretStream("t", seed, "statement").permutation(n) == perm
    assert 0 < s.scalar("x") < L


def test_short_seed_refused() -> None:
    with pytest.raises(DeckError, match="seed"):
        SecretStream("t", b"short")


def test_cards_and_generators() -> None:
    t = card_table("season", 28)
    assert len(set(t.points)) == 28 and all(group.is_point(p) for p in t.points)
    assert card_table("temple", 28).points[0] != t.points[0]
    assert card_table("season", 5).points == t.points[:5]
    assert [t.decode(p) for p in t.points] == list(range(28))
    with pytest.raises(InvalidProof, match="not a card"):
        t.decode(bytes(mul_base(7)))
    h, hs = generators(30)
    assert len({h, *hs}) == 31 and all(group.is_point(p) for p in [h, *hs])
    assert not {h, *hs} & set(t.points)


def test_determinism_and_context_separation() -> None:
    t = card_table("season", 6)
    _, y, _ = ops.key_share(b"k" * 32, b"g", 0)
    deck = ops.initial_deck(y, t)
    a = ops.shuffle(y, deck, b"s" * 32, b"ctx")
    assert ops.shuffle(y, deck, b"s" * 32, b"ctx") == a  # crash and redo: identical bytes
    b = ops.shuffle(y, deck, b"s" * 32, b"ctx2")
    assert a[0] != b[0] and a[1] != b[1]
    c = ops.shuffle(y, deck, b"t" * 32, b"ctx")
    assert a[0] != c[0]
    with pytest.raises(DeckError):
        ops.shuffle(y, deck, b"s" * 32, "ctx")  # context must be bytes
    with pytest.raises(DeckError):
        ops.shuffle(y, [], b"s" * 32, b"ctx")
