"""The mental-deck operations the session calls: pure functions over msgpack-able values.

Inputs and outputs are wire values: a point or scalar is 32 bytes, a ciphertext is
[A, B], a deck is a list of ciphertexts, a proof is a list of 32-byte strings (layouts
in specs/deck.md). Every verify_* returns None or raises InvalidProof with the reason;
makers raise DeckError for misuse. Secrets never leave through return values except
where the operation is the publication of that secret (end-of-game key release).

All randomness comes from the caller's secret `seed` hashed with the full statement and
context (RFC 6979 style), so repeating a step after a crash gives identical bytes.
`context` is caller-supplied bytes that bind game, author, seq, deck, version (and card
position where relevant); `deck_context` builds the recommended one.
"""

from __future__ import annotations

import functools
from typing import Any, Callable, Sequence, TypeVar

from ..hashing import tagged_hash
from . import shuffle as _tw
from .cards import CardTable
from .elgamal import open_encrypt as _open_encrypt, parse_ciphertext, parse_deck, reencrypt, wire, wire_deck
from .group import (
    G, DeckError, InvalidProof, Point, SecretStream, add_all, mul, parse_point,
    parse_scalar, point_shape, settle, sub, LIB_ERRORS,
)
from .keys import joint_key, key_share, verify_key_share, verify_published_key
from .proofs import dleq_prove, dleq_verify, or_dleq_prove, or_dleq_verify

__all__ = [
    "deck_context", "key_share", "verify_key_share", "joint_key", "verify_published_key",
    "initial_deck", "open_encrypt", "shuffle", "verify_shuffle",
    "decryption_share", "verify_share", "open_card", "open_private",
    "rerandomize", "verify_rerandomize", "return_face_down", "verify_return_face_down",
    "claim", "verify_claim", "open_with_keys",
]

TAG_CONTEXT = "caravan/deck-context/v1"
TAG_SHUFFLE_SECRET = "caravan/deck-shuffle-secret/v1"
TAG_SHARE = "caravan/deck-share/v1"
TAG_SHARE_SECRET = "caravan/deck-share-secret/v1"
TAG_RERANDOMIZE = "caravan/deck-rerandomize/v1"
TAG_RERANDOMIZE_SECRET = "caravan/deck-rerandomize-secret/v1"
TAG_RETURN = "caravan/deck-return/v1"
TAG_RETURN_SECRET = "caravan/deck-return-secret/v1"

F = TypeVar("F", bound=Callable[..., Any])


def _guarded(fn: F) -> F:
    """Turn any stray library exception on received data into InvalidProof, never a crash."""
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except DeckError:
            raise
        except LIB_ERRORS as exc:
            raise InvalidProof(f"{fn.__name__}: malformed input ({type(exc).__name__}: {exc})") from None
    return wrapper  # type: ignore[return-value]


def _ctx(context: object) -> bytes:
    if type(context) is not bytes:
        raise DeckError("context must be bytes")
    return context


def deck_context(game_id: bytes, author: int, seq: int, deck: str, version: int,
                 position: int | None = None) -> bytes:
    """Recommended context: SHA-256 over the tag and these fields (position: card index or None)."""
    return tagged_hash(TAG_CONTEXT, game_id, author, seq, deck, version, position)


def initial_deck(y: bytes, table: CardTable) -> list[list[bytes]]:
    """The public starting deck: card i at position i as (M_i + Y, G)."""
    yp = parse_point(y, "joint key")
    return [wire(_open_encrypt(yp, m)) for m in table.points]


def open_encrypt(y: bytes, card: bytes) -> list[bytes]:
    """Face-up card going back into a deck (gather and reshuffle): (M + Y, G)."""
    return wire(_open_encrypt(parse_point(y, "joint key"), parse_point(card, "card point")))


# --- shuffle -------------------------------------------------------------------------

@_guarded
def shuffle(y: bytes, deck_in: Sequence[Any], seed: bytes, context: bytes,
            perm: Sequence[int] | None = None) -> tuple[list[list[bytes]], list[bytes]]:
    """Permute and re-encrypt the deck; return (deck_out, Terelius–Wikström proof).

    `perm` (optional) fixes the permutation: deck_out[i] re-encrypts deck_in[perm[i]]
    (a face-down return puts the chosen card first). It is then hashed into the secret
    stream too, so two different permutations never share re-encryption randomness."""
    ctx = _ctx(context)
    yp = parse_point(y, "joint key")
    cin = parse_deck(deck_in, "deck_in")
    if not cin:
        raise DeckError("cannot shuffle an empty deck")
    if perm is None:
        stream = SecretStream(TAG_SHUFFLE_SECRET, seed, ctx, yp, wire_deck(cin))
        perm = stream.permutation(len(cin))
    else:
        perm = list(perm)
        if sorted(perm) != list(range(len(cin))) or any(type(i) is not int for i in perm):
            raise DeckError(f"perm must be a permutation of range({len(cin)})")
        stream = SecretStream(TAG_SHUFFLE_SECRET, seed, ctx, yp, wire_deck(cin), perm)
    rerand = [stream.scalar("rerandomize", i) for i in range(len(cin))]
    cout = [reencrypt(yp, cin[perm[i]], rerand[i]) for i in range(len(cin))]
    proof = _tw.prove(yp, cin, cout, perm, rerand, stream, ctx)
    return wire_deck(cout), proof


@_guarded
def verify_shuffle(y: bytes, deck_in: Sequence[Any], deck_out: Sequence[Any], proof: Sequence[bytes],
                   context: bytes) -> None:
    """Raise InvalidProof unless deck_out is a proven shuffle of deck_in under Y and context."""
    ctx = _ctx(context)
    yp = parse_point(y, "joint key")
    cin = parse_deck(deck_in, "deck_in")
    _tw.verify(yp, cin, deck_out, proof, ctx)   # validates deck_out's points as it goes


# --- decryption shares, reveals, private draws, claims ---------------------------------

@_guarded
def decryption_share(x_i: bytes, ciphertext: Sequence[bytes], seed: bytes, context: bytes) -> tuple[bytes, list[bytes]]:
    """D_i = x_i·B with a Chaum–Pedersen proof that log_G Y_i = log_B D_i."""
    ctx = _ctx(context)
    x = parse_scalar(x_i, "secret key", nonzero=True)
    a, b = parse_ciphertext(ciphertext)
    y_i, d = mul(x, G), mul(x, b)
    nonce = SecretStream(TAG_SHARE_SECRET, seed, x_i, ctx, [a, b]).scalar("nonce")
    proof = dleq_prove(TAG_SHARE, ctx, [y_i, a, b, d], G, y_i, b, d, x, nonce)
    return bytes(d), proof


@_guarded
def verify_share(y_i: bytes, ciphertext: Sequence[bytes], d_i: bytes, proof: Sequence[bytes], context: bytes) -> None:
    """Raise InvalidProof unless D_i is the correct share of key Y_i for this ciphertext."""
    ctx = _ctx(context)
    yp = parse_point(y_i, "key share")
    a, b = parse_ciphertext(ciphertext)
    # D_i is validated by the multiplication c·D_i the check makes (see shuffle.verify); a
    # zero c, or any failure, validates it explicitly so errors read as before
    received = [(d_i, "decryption share")]
    try:
        d = point_shape(d_i, "decryption share")
        dleq_verify(TAG_SHARE, ctx, [yp, a, b, d], G, yp, b, d, proof, "decryption share")
    except InvalidProof:
        settle(received)
        raise
    settle(received)


@_guarded
def open_card(ciphertext: Sequence[bytes], shares: Sequence[bytes]) -> bytes:
    """M = A − ΣD_i from verified shares of every player; decode with CardTable.decode."""
    a, _ = parse_ciphertext(ciphertext)
    ds = [parse_point(d, f"share {i}") for i, d in enumerate(shares)]
    return bytes(sub(a, add_all(ds)) if ds else a)


@_guarded
def open_private(x_j: bytes, ciphertext: Sequence[bytes], other_shares: Sequence[bytes]) -> bytes:
    """Private draw or peek: the recipient adds its own share x_j·B to the public ones."""
    x = parse_scalar(x_j, "secret key", nonzero=True)
    a, b = parse_ciphertext(ciphertext)
    ds = [parse_point(d, f"share {i}") for i, d in enumerate(other_shares)]
    return bytes(sub(a, add_all([*ds, mul(x, b)])))


def claim(x_j: bytes, ciphertext: Sequence[bytes], seed: bytes, context: bytes) -> tuple[bytes, list[bytes]]:
    """Reveal a privately held card: publish the holder's own share with its DLEQ proof."""
    return decryption_share(x_j, ciphertext, seed, context)


@_guarded
def verify_claim(y_j: bytes, ciphertext: Sequence[bytes], d_j: bytes, proof: Sequence[bytes],
                 other_shares: Sequence[bytes], context: bytes) -> bytes:
    """Check the holder's share and open the card with the (already verified) others' shares."""
    verify_share(y_j, ciphertext, d_j, proof, context)
    return open_card(ciphertext, [*other_shares, d_j])


@_guarded
def open_with_keys(ciphertext: Sequence[bytes], keys: Sequence[bytes]) -> bytes:
    """End-of-game audit with every published x_i (burned or never-revealed cards)."""
    a, b = parse_ciphertext(ciphertext)
    xs = [parse_scalar(x, f"published key {i}", nonzero=True) for i, x in enumerate(keys)]
    return bytes(sub(a, mul(sum(xs), b)))


# --- re-randomisation and face-down return ---------------------------------------------

def _check_fresh(new_b: Point, olds: Sequence[Point]) -> None:
    if any(new_b == b for b in olds):
        raise InvalidProof("ciphertext was not re-randomised (B unchanged)")


@_guarded
def rerandomize(y: bytes, ciphertext: Sequence[bytes], seed: bytes, context: bytes) -> tuple[list[bytes], list[bytes]]:
    """C' = C + r·(Y, G) with a DLEQ proof log_Y(A'−A) = log_G(B'−B); required after a peek."""
    ctx = _ctx(context)
    yp = parse_point(y, "joint key")
    c = parse_ciphertext(ciphertext)
    stream = SecretStream(TAG_RERANDOMIZE_SECRET, seed, ctx, yp, wire(c))
    r = stream.scalar("r")
    c2 = reencrypt(yp, c, r)
    da, db = sub(c2[0], c[0]), sub(c2[1], c[1])
    proof = dleq_prove(TAG_RERANDOMIZE, ctx, [yp, wire(c), wire(c2)], yp, da, G, db, r, stream.scalar("nonce"))
    return wire(c2), proof


@_guarded
def verify_rerandomize(y: bytes, ciphertext: Sequence[bytes], new_ciphertext: Sequence[bytes],
                       proof: Sequence[bytes], context: bytes) -> None:
    """Raise InvalidProof unless new_ciphertext re-encrypts ciphertext (same card, fresh r ≠ 0)."""
    ctx = _ctx(context)
    yp = parse_point(y, "joint key")
    c = parse_ciphertext(ciphertext)
    c2 = parse_ciphertext(new_ciphertext, "new ciphertext")
    _check_fresh(c2[1], [c[1]])
    da, db = sub(c2[0], c[0]), sub(c2[1], c[1])
    dleq_verify(TAG_RERANDOMIZE, ctx, [yp, wire(c), wire(c2)], yp, da, G, db, proof, "re-randomisation")


@_guarded
def return_face_down(y: bytes, hand: Sequence[Any], index: int, seed: bytes, context: bytes) -> tuple[list[bytes], list[bytes]]:
    """Re-encrypt hand[index] with a 1-of-k proof that it is one of the hand, not which."""
    ctx = _ctx(context)
    yp = parse_point(y, "joint key")
    cs = parse_deck(hand, "hand")
    if type(index) is not int or not 0 <= index < len(cs):
        raise DeckError(f"hand index {index!r} out of range for {len(cs)} cards")
    stream = SecretStream(TAG_RETURN_SECRET, seed, ctx, yp, wire_deck(cs), index)
    r = stream.scalar("r")
    c2 = reencrypt(yp, cs[index], r)
    if any(c2[1] == c[1] for c in cs):
        raise DeckError("re-encryption collided with a hand card (negligible; use another seed)")
    pairs = [(sub(c2[0], c[0]), sub(c2[1], c[1])) for c in cs]
    proof = or_dleq_prove(TAG_RETURN, ctx, [yp, wire_deck(cs), wire(c2)], yp, G, pairs, index, r, stream)
    return wire(c2), proof


@_guarded
def verify_return_face_down(y: bytes, hand: Sequence[Any], new_ciphertext: Sequence[bytes],
                            proof: Sequence[bytes], context: bytes) -> None:
    """Raise InvalidProof unless new_ciphertext re-encrypts one of the hand's ciphertexts."""
    ctx = _ctx(context)
    yp = parse_point(y, "joint key")
    cs = parse_deck(hand, "hand")
    if not cs:
        raise InvalidProof("face-down return from an empty hand")
    c2 = parse_ciphertext(new_ciphertext, "returned ciphertext")
    _check_fresh(c2[1], [c[1] for c in cs])
    pairs = [(sub(c2[0], c[0]), sub(c2[1], c[1])) for c in cs]
    or_dleq_verify(TAG_RETURN, ctx, [yp, wire_deck(cs), wire(c2)], yp, G, pairs, proof, "face-down return")
