"""A shuffle check validates received points through its multiplications (issue #17 item 5):
every bad point must still be refused, with the same message an up-front check gives, even
where a zero scalar means no multiplication ever touches it."""

from __future__ import annotations

import pytest

from protocol.deck import InvalidProof, group, ops
from protocol.deck.group import G, SMALL_ORDER_POINTS, add, parse_point
from tests.deck.deck_table import Table

N = 5
BAD = [SMALL_ORDER_POINTS[3], add(G, SMALL_ORDER_POINTS[4]), (2).to_bytes(32, "little"),
       (2**255 - 19 + 3).to_bytes(32, "little")]
"""Small order, torsion component, off the curve, non-canonical."""


@pytest.fixture(scope="module")
def honest() -> tuple[Table, list, list, list, bytes]:
    t = Table(2, N)
    deck_in = t.initial()
    ctx = t.ctx(0)
    deck_out, proof = ops.shuffle(t.y, deck_in, t.players[0].seed, ctx)
    return t, deck_in, deck_out, proof, ctx


def _upfront_message(data: bytes, what: str) -> str:
    with pytest.raises(InvalidProof) as exc:
        parse_point(data, what)
    return str(exc.value)


def _message(t: Table, deck_in: list, deck_out: list, proof: list, ctx: bytes) -> str:
    group.clear_cache()
    with pytest.raises(InvalidProof) as exc:
        ops.verify_shuffle(t.y, deck_in, deck_out, proof, ctx)
    return str(exc.value)


def _zero(proof: list, k: int) -> list:
    proof = list(proof)
    proof[k] = bytes(32)
    return proof


def test_honest_shuffle_verifies_from_a_cold_cache(honest) -> None:
    t, deck_in, deck_out, proof, ctx = honest
    group.clear_cache()
    ops.verify_shuffle(t.y, deck_in, deck_out, proof, ctx)
    assert all(group.is_point(p) for c in deck_out for p in c)


@pytest.mark.parametrize("bad", BAD)
def test_bad_points_named_as_an_upfront_check_would(honest, bad: bytes) -> None:
    t, deck_in, deck_out, proof, ctx = honest
    for i, part in ((0, 0), (N - 1, 1)):
        out = [list(c) for c in deck_out]
        out[i][part] = bad
        name = f"deck_out[{i}].{'AB'[part]}"
        assert _message(t, deck_in, out, proof, ctx) == _upfront_message(bad, name)
    for k, name in ((0, "shuffle proof commitment 0"), (N + 2, "shuffle proof chain 2")):
        tampered = list(proof)
        tampered[k] = bad
        assert _message(t, deck_in, deck_out, tampered, ctx) == _upfront_message(bad, name)
    assert not group.is_point(bad)


@pytest.mark.parametrize("bad", BAD)
def test_a_point_no_multiplication_touches_is_still_checked(honest, bad: bytes) -> None:
    """s'_i = 0 means deck_out[i] is never multiplied; c = 0 means the chain is not."""
    t, deck_in, deck_out, proof, ctx = honest
    out = [list(c) for c in deck_out]
    out[2][0] = bad
    s_prime_2 = 2 * N + 5 + N + 2
    assert _message(t, deck_in, out, _zero(proof, s_prime_2), ctx) == _upfront_message(bad, "deck_out[2].A")
    tampered = _zero(proof, 2 * N)      # the challenge c
    tampered[N + N - 1] = bad            # the last chain point: only ever multiplied by c
    assert _message(t, deck_in, deck_out, tampered, ctx) == _upfront_message(bad, f"shuffle proof chain {N - 1}")


def test_the_first_bad_value_is_reported_first(honest) -> None:
    """A bad point before a shape error or a bad scalar is still the one named."""
    t, deck_in, deck_out, proof, ctx = honest
    out = [list(c) for c in deck_out]
    out[1][1] = BAD[1]
    out[3] = ["not", "points"]
    assert _message(t, deck_in, out, proof, ctx) == _upfront_message(BAD[1], "deck_out[1].B")
    tampered = list(proof)
    tampered[1] = BAD[0]
    tampered[2 * N + 1] = b"\xff" * 32   # a non-canonical scalar, parsed after the points
    assert _message(t, deck_in, deck_out, tampered, ctx) == _upfront_message(BAD[0], "shuffle proof commitment 1")


@pytest.mark.parametrize("bad", BAD)
def test_unmultiplied_bad_point_refused_even_if_the_algebra_passed(honest, bad: bytes, monkeypatch) -> None:
    """With the Fiat–Shamir comparison forced to succeed, a point that only a zero scalar
    met must still be refused: only the explicit check after the multiplications sees it."""
    t, deck_in, deck_out, proof, ctx = honest
    s_prime_2 = 2 * N + 5 + N + 2
    tampered = _zero(proof, s_prime_2)
    challenge = int.from_bytes(proof[2 * N], "little")
    monkeypatch.setattr("protocol.deck.shuffle._challenge", lambda *args: challenge)
    ops.verify_shuffle(t.y, deck_in, deck_out, tampered, ctx)   # the forced comparison passes
    out = [list(c) for c in deck_out]
    out[2][0] = bad
    assert _message(t, deck_in, out, tampered, ctx) == _upfront_message(bad, "deck_out[2].A")


@pytest.mark.parametrize("bad", BAD)
def test_decryption_share_checked_as_before(honest, bad: bytes, monkeypatch) -> None:
    """verify_share lets c·D validate the share D the same way; with c = 0 and the hash
    comparison forced to pass, only the explicit check refuses a bad D."""
    t, _, deck_out, _, _ = honest
    card = deck_out[0]
    ctx = t.ctx(1, position=0)
    y1 = t.players[1].y
    d, proof = ops.decryption_share(t.players[1].x, card, t.players[1].seed, ctx)
    ops.verify_share(y1, card, d, proof, ctx)
    group.clear_cache()
    with pytest.raises(InvalidProof) as exc:
        ops.verify_share(y1, card, bad, proof, ctx)
    assert str(exc.value) == _upfront_message(bad, "decryption share")
    monkeypatch.setattr("protocol.deck.proofs.hash_to_scalar", lambda *args: 0)
    zero_c = [bytes(32), proof[1]]
    ops.verify_share(y1, card, d, zero_c, ctx)      # the forced comparison passes
    with pytest.raises(InvalidProof) as exc:
        ops.verify_share(y1, card, bad, zero_c, ctx)
    assert str(exc.value) == _upfront_message(bad, "decryption share")
