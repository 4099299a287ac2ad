"""Per-game ElGamal key shares x_i, Y_i = x_i·G, proofs of knowledge and the joint key.

The share is derived from the node's secret seed and (game_id, seat), so it is per game,
separate from the identity key, and re-derivable after a crash. The proof of knowledge
binds (game_id, seat): without it a last player could publish Y_n = X − ΣY_j and own
the joint key alone (rogue key, crypto-notes §4.11 pitfall 5).
"""

from __future__ import annotations

from typing import Sequence

from .group import G, DeckError, InvalidProof, Point, SecretStream, add_all, mul_base, parse_point, parse_scalar, scalar_bytes
from .proofs import schnorr_prove, schnorr_verify

TAG_KEY = "caravan/deck-key/v1"
TAG_KEY_NONCE = "caravan/deck-key-nonce/v1"
TAG_KEY_POK = "caravan/deck-key-pok/v1"


def _check_binding(game_id: object, seat: object) -> None:
    if type(game_id) is not bytes:
        raise DeckError("game_id must be bytes")
    if type(seat) is not int or seat < 0:
        raise DeckError("seat must be a non-negative int")


def key_share(seed: bytes, game_id: bytes, seat: int) -> tuple[bytes, bytes, list[bytes]]:
    """(x_i, Y_i, pok): the secret share, its public key and a proof of knowledge [c, s]."""
    _check_binding(game_id, seat)
    x = SecretStream(TAG_KEY, seed, game_id, seat).scalar("x")
    y = mul_base(x)
    nonce = SecretStream(TAG_KEY_NONCE, seed, game_id, seat).scalar("nonce")
    pok = schnorr_prove(TAG_KEY_POK, [game_id, seat], G, y, x, nonce)
    return scalar_bytes(x), bytes(y), pok


def verify_key_share(y_i: object, pok: object, game_id: bytes, seat: int) -> Point:
    """Check Y_i is a valid point with a proof of knowledge for this game and seat."""
    _check_binding(game_id, seat)
    y = parse_point(y_i, f"key share of seat {seat}")
    schnorr_verify(TAG_KEY_POK, [game_id, seat], G, y, pok, f"key share of seat {seat}")
    return y


def joint_key(shares: Sequence[object]) -> bytes:
    """Y = ΣY_i over already-verified shares; refuse an identity or missing key."""
    if not shares:
        raise DeckError("no key shares")
    y = add_all(parse_point(s, f"key share {i}") for i, s in enumerate(shares))
    return bytes(parse_point(y, "joint key"))


def verify_published_key(y_i: object, x_i: object) -> int:
    """End-of-game audit: the published secret x_i must satisfy x_i·G = Y_i."""
    y = parse_point(y_i, "key share")
    x = parse_scalar(x_i, "published secret key", nonzero=True)
    if mul_base(x) != y:
        raise InvalidProof("published secret key does not match the key share (x·G ≠ Y_i)")
    return x
