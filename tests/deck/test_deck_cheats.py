"""Every cheat of the brief must be rejected with InvalidProof (and honest input accepted)."""

from __future__ import annotations

import pytest

from tests.deck.deck_table import Table
from protocol.deck import InvalidProof, ops
from protocol.deck import shuffle as tw
from protocol.deck.elgamal import open_encrypt, parse_deck, reencrypt
from protocol.deck.group import G, L, SMALL_ORDER_POINTS, SecretStream, add, mul_base, parse_point
from protocol.deck.group import scalar_bytes

TORSIONED = [add(G, t) for t in SMALL_ORDER_POINTS[1:]]
BAD_POINTS = [*SMALL_ORDER_POINTS, *TORSIONED, bytes.fromhex("02" + "00" * 31), b"\xff" * 32, b"\x58" * 31, "G"]


def _noncanonical(s: bytes) -> bytes:
    """The same scalar plus L: libsodium's noclamp would reduce it and accept it."""
    return (int.from_bytes(s, "little") + L).to_bytes(32, "little")


@pytest.fixture(scope="module")
def setup() -> tuple[Table, list, list, list, bytes]:
    t = Table(3, 8)
    deck_in = t.joint_shuffle(t.initial())
    ctx = t.ctx(0)
    deck_out, proof = ops.shuffle(t.y, deck_in, t.players[0].seed, ctx)
    ops.verify_shuffle(t.y, deck_in, deck_out, proof, ctx)
    return t, deck_in, deck_out, proof, ctx


# --- shuffle -------------------------------------------------------------------------

def _reject_shuffle(t: Table, deck_in: list, deck_out: list, proof: list, ctx: bytes) -> str:
    with pytest.raises(InvalidProof) as e:
        ops.verify_shuffle(t.y, deck_in, deck_out, proof, ctx)
    return str(e.value)


def test_tampered_output_after_proof(setup) -> None:
    t, deck_in, deck_out, proof, ctx = setup
    swapped = list(deck_out)
    swapped[0], swapped[1] = swapped[1], swapped[0]
    _reject_shuffle(t, deck_in, swapped, proof, ctx)
    duplicated = list(deck_out)
    duplicated[2] = duplicated[5]
    _reject_shuffle(t, deck_in, duplicated, proof, ctx)
    substituted = list(deck_out)
    substituted[3] = ops.open_encrypt(t.y, t.table.point(0))
    _reject_shuffle(t, deck_in, substituted, proof, ctx)
    assert "output has 7 cards" in _reject_shuffle(t, deck_in, deck_out[:-1], proof, ctx)
    # A re-randomised (valid, same card) entry is still not what the proof covers.
    rerand, _ = ops.rerandomize(t.y, deck_out[4], t.players[1].seed, ctx)
    _reject_shuffle(t, deck_in, [*deck_out[:4], rerand, *deck_out[5:]], proof, ctx)


def _cheating_proof(t: Table, deck_in: list, perm: list[int], edit, ctx: bytes):
    """A prover that runs the honest algorithm on an output it has tampered with."""
    y = parse_point(t.y, "Y")
    cin = parse_deck(deck_in)
    stream = SecretStream("cheat", b"c" * 32)
    rerand = [stream.scalar("r", i) for i in range(len(cin))]
    cout = [reencrypt(y, cin[perm[i]], rerand[i]) for i in range(len(cin))]
    cout = edit(y, cout)
    proof = tw.prove(y, cin, cout, perm, rerand, stream, ctx)
    return [[bytes(a), bytes(b)] for a, b in cout], proof


def test_cheating_prover(setup) -> None:
    t, deck_in, _, _, ctx = setup
    n = len(deck_in)
    honest = list(range(n))[::-1]
    out, proof = _cheating_proof(t, deck_in, honest, lambda y, c: c, ctx)
    ops.verify_shuffle(t.y, deck_in, out, proof, ctx)  # the cheating harness itself is sound

    # Duplicate: card at input 0 twice, input 1 dropped (a non-bijective "permutation").
    dup = [0, 0, *range(2, n)]
    out, proof = _cheating_proof(t, deck_in, dup, lambda y, c: c, ctx)
    _reject_shuffle(t, deck_in, out, proof, ctx)

    # Substitution: one output replaced by a fresh encryption of a chosen card.
    def substitute(y, c):
        c = list(c)
        c[0] = reencrypt(y, open_encrypt(y, t.table.point(5)), 77)
        return c
    out, proof = _cheating_proof(t, deck_in, honest, substitute, ctx)
    _reject_shuffle(t, deck_in, out, proof, ctx)

    # Swap after computing the witness: proof made over the swapped deck.
    out, proof = _cheating_proof(t, deck_in, honest, lambda y, c: [c[1], c[0], *c[2:]], ctx)
    _reject_shuffle(t, deck_in, out, proof, ctx)


def test_shuffle_replay_other_context(setup) -> None:
    t, deck_in, deck_out, proof, _ = setup
    for ctx in [
        ops.deck_context(b"other-game".ljust(32, b"\0"), 0, t.seq, "season", 0),
        ops.deck_context(t.game_id, 0, t.seq, "temple", 0),
        ops.deck_context(t.game_id, 1, t.seq, "season", 0),
        ops.deck_context(t.game_id, 0, t.seq + 1, "season", 0),
        ops.deck_context(t.game_id, 0, t.seq, "season", 1),
    ]:
        _reject_shuffle(t, deck_in, deck_out, proof, ctx)


def test_shuffle_other_statement(setup) -> None:
    t, deck_in, deck_out, proof, ctx = setup
    other_y = ops.joint_key([t.players[0].y, t.players[1].y])
    with pytest.raises(InvalidProof):
        ops.verify_shuffle(other_y, deck_in, deck_out, proof, ctx)
    _reject_shuffle(t, t.initial()[:8], deck_out, proof, ctx)


def test_shuffle_bad_points_and_scalars(setup) -> None:
    t, deck_in, deck_out, proof, ctx = setup
    n = len(deck_in)
    for bad in BAD_POINTS:
        _reject_shuffle(t, deck_in, [[bad, deck_out[0][1]], *deck_out[1:]], proof, ctx)
        _reject_shuffle(t, deck_in, [[deck_out[0][0], bad], *deck_out[1:]], proof, ctx)
        _reject_shuffle(t, deck_in, deck_out, [bad, *proof[1:]], ctx)  # permutation commitment
        _reject_shuffle(t, deck_in, deck_out, [*proof[:n], bad, *proof[n + 1:]], ctx)  # chain
    for k in range(2 * n, 4 * n + 5):
        forged = list(proof)
        forged[k] = _noncanonical(proof[k])
        assert "not canonical" in _reject_shuffle(t, deck_in, deck_out, forged, ctx)
    for malformed in [proof[:-1], [*proof, proof[0]], None, b"".join(proof), [1] * len(proof)]:
        _reject_shuffle(t, deck_in, deck_out, malformed, ctx)


# --- decryption shares ----------------------------------------------------------------

@pytest.fixture(scope="module")
def share_setup(setup):
    t, _, deck_out, _, _ = setup
    c = deck_out[0]
    p = t.players[1]
    ctx = ops.deck_context(t.game_id, 1, 99, "season", 0, 0)
    d, proof = ops.decryption_share(p.x, c, p.seed, ctx)
    ops.verify_share(p.y, c, d, proof, ctx)
    return t, deck_out, c, p, d, proof, ctx


def test_wrong_share(share_setup) -> None:
    t, deck, c, p, d, proof, ctx = share_setup
    with pytest.raises(InvalidProof):
        ops.verify_share(p.y, c, bytes(add(d, G)), proof, ctx)
    # Someone else's correct share with its own valid proof, claimed for p's key.
    q = t.players[2]
    dq, pq = ops.decryption_share(q.x, c, q.seed, ctx)
    with pytest.raises(InvalidProof):
        ops.verify_share(p.y, c, dq, pq, ctx)
    # p's share of another ciphertext.
    d2, p2 = ops.decryption_share(p.x, deck[1], p.seed, ctx)
    with pytest.raises(InvalidProof):
        ops.verify_share(p.y, c, d2, p2, ctx)
    # A wrong share that skipped verification cannot open to a card either.
    shares = [ops.decryption_share(pl.x, c, pl.seed, ctx)[0] for pl in t.players]
    t.table.decode(ops.open_card(c, shares))
    shares[1] = bytes(add(shares[1], G))
    with pytest.raises(InvalidProof, match="not a card"):
        t.table.decode(ops.open_card(c, shares))


def test_share_replay_other_position_or_game(share_setup) -> None:
    t, _, c, p, d, proof, _ = share_setup
    for ctx in [
        ops.deck_context(t.game_id, 1, 99, "season", 0, 1),
        ops.deck_context(t.game_id, 1, 99, "temple", 0, 0),
        ops.deck_context(b"x" * 32, 1, 99, "season", 0, 0),
    ]:
        with pytest.raises(InvalidProof):
            ops.verify_share(p.y, c, d, proof, ctx)


def test_share_bad_points_and_scalars(share_setup) -> None:
    t, _, c, p, d, proof, ctx = share_setup
    for bad in BAD_POINTS:
        for args in [(bad, c, d), (p.y, [bad, c[1]], d), (p.y, [c[0], bad], d), (p.y, c, bad)]:
            with pytest.raises(InvalidProof):
                ops.verify_share(*args, proof, ctx)
    for k in range(2):
        forged = list(proof)
        forged[k] = _noncanonical(proof[k])
        with pytest.raises(InvalidProof, match="not canonical"):
            ops.verify_share(p.y, c, d, forged, ctx)
    for malformed in [[], proof[:1], [*proof, proof[0]], "x", [b"\0" * 31, proof[1]]]:
        with pytest.raises(InvalidProof):
            ops.verify_share(p.y, c, d, malformed, ctx)


def test_wrong_claim(share_setup) -> None:
    t, _, c, p, _, _, ctx = share_setup
    others = [ops.decryption_share(q.x, c, q.seed, ctx)[0] for q in t.players if q is not p]
    d, proof = ops.claim(p.x, c, p.seed, ctx)
    ops.verify_claim(p.y, c, d, proof, others, ctx)
    with pytest.raises(InvalidProof):
        ops.verify_claim(p.y, c, bytes(add(d, G)), proof, others, ctx)
    with pytest.raises(InvalidProof):
        ops.verify_claim(t.players[0].y, c, d, proof, others, ctx)


# --- re-randomisation and face-down return ---------------------------------------------

def test_rerandomize_cheats(setup) -> None:
    t, _, deck, _, ctx = setup
    c = deck[0]
    new, proof = ops.rerandomize(t.y, c, t.players[0].seed, ctx)
    ops.verify_rerandomize(t.y, c, new, proof, ctx)
    with pytest.raises(InvalidProof, match="not re-randomised"):
        ops.verify_rerandomize(t.y, c, c, proof, ctx)
    other, _ = ops.rerandomize(t.y, deck[1], t.players[0].seed, ctx)  # another card
    with pytest.raises(InvalidProof):
        ops.verify_rerandomize(t.y, c, other, proof, ctx)
    with pytest.raises(InvalidProof):
        ops.verify_rerandomize(t.y, c, new, proof, ctx + b"!")
    with pytest.raises(InvalidProof, match="not canonical"):
        ops.verify_rerandomize(t.y, c, new, [proof[0], _noncanonical(proof[1])], ctx)


def test_return_of_card_not_in_hand(setup) -> None:
    t, _, deck, _, ctx = setup
    hand, outsider = deck[:3], deck[5]
    new, proof = ops.return_face_down(t.y, hand, 2, t.players[0].seed, ctx)
    ops.verify_return_face_down(t.y, hand, new, proof, ctx)
    # The cheater proves over a list that contains someone else's card ...
    fake_hand = [hand[0], hand[1], outsider]
    new, proof = ops.return_face_down(t.y, fake_hand, 2, t.players[0].seed, ctx)
    ops.verify_return_face_down(t.y, fake_hand, new, proof, ctx)
    # ... but verifiers check against its real hand.
    with pytest.raises(InvalidProof):
        ops.verify_return_face_down(t.y, hand, new, proof, ctx)
    # A plain re-randomisation of the outsider with any proof is refused too.
    rr, rproof = ops.rerandomize(t.y, outsider, t.players[0].seed, ctx)
    with pytest.raises(InvalidProof):
        ops.verify_return_face_down(t.y, hand, rr, rproof + rproof + rproof, ctx)
    # Returning a hand card unchanged (not re-randomised) is refused.
    with pytest.raises(InvalidProof, match="not re-randomised"):
        ops.verify_return_face_down(t.y, hand, hand[1], proof, ctx)
    new, proof = ops.return_face_down(t.y, hand, 0, t.players[0].seed, ctx)
    with pytest.raises(InvalidProof):
        ops.verify_return_face_down(t.y, hand, new, proof, ctx + b"other position")
    forged = list(proof)
    forged[4] = _noncanonical(proof[4])
    with pytest.raises(InvalidProof, match="not canonical"):
        ops.verify_return_face_down(t.y, hand, new, forged, ctx)


# --- keys ----------------------------------------------------------------------------

def test_key_share_without_valid_pok() -> None:
    t = Table(3, 4)
    game = t.game_id
    p0, p1, p2 = t.players
    ops.verify_key_share(p2.y, p2.pok, game, 2)
    with pytest.raises(InvalidProof):
        ops.verify_key_share(p2.y, p1.pok, game, 2)  # someone else's proof
    with pytest.raises(InvalidProof):
        ops.verify_key_share(p2.y, p2.pok, game, 1)  # other seat
    with pytest.raises(InvalidProof):
        ops.verify_key_share(p2.y, p2.pok, b"other".ljust(32, b"\0"), 2)  # other game
    # Rogue key: Y_2 = X − Y_0 − Y_1 would give the attacker the joint key X alone.
    from protocol.deck.group import sub
    x_attacker = 123456789
    rogue = bytes(sub(sub(mul_base(x_attacker), p0.y), p1.y))
    assert ops.joint_key([p0.y, p1.y, rogue]) == bytes(mul_base(x_attacker))
    for pok in [p2.pok, [scalar_bytes(1), scalar_bytes(2)], ops.key_share(b"a" * 32, game, 2)[2]]:
        with pytest.raises(InvalidProof):
            ops.verify_key_share(rogue, pok, game, 2)
    with pytest.raises(InvalidProof, match="not canonical"):
        ops.verify_key_share(p2.y, [p2.pok[0], _noncanonical(p2.pok[1])], game, 2)
    for bad in BAD_POINTS:
        with pytest.raises(InvalidProof):
            ops.verify_key_share(bad, p2.pok, game, 2)


def test_published_key_checks() -> None:
    t = Table(2, 4)
    p0, p1 = t.players
    ops.verify_published_key(p0.y, p0.x)
    with pytest.raises(InvalidProof, match="does not match"):
        ops.verify_published_key(p0.y, p1.x)
    with pytest.raises(InvalidProof, match="not canonical"):
        ops.verify_published_key(p0.y, _noncanonical(p0.x))
    with pytest.raises(InvalidProof, match="zero"):
        ops.verify_published_key(p0.y, bytes(32))


def test_joint_key_identity_refused() -> None:
    t = Table(2, 4)
    from protocol.deck.group import IDENTITY, sub
    neg = bytes(sub(IDENTITY, t.players[0].y))
    with pytest.raises(InvalidProof, match="identity"):
        ops.joint_key([t.players[0].y, neg])
