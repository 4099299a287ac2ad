"""Ed25519 identities: a node's signing key, signature checks and short fingerprints.

Verification is strict (specs/protocol.md §3): a seat key must be the canonical encoding of
a point of the prime-order subgroup other than the identity (`strong_key`), and signatures
are checked by libsodium's `crypto_sign_open`, which refuses S >= L, a small-order R, a
non-canonical or small-order key and checks [S]B = R + [k]A without the cofactor. A
small-order or identity key would let anyone sign "for" that seat (issue 16, item 1).
"""

from __future__ import annotations

import hashlib
from functools import lru_cache

import nacl.exceptions
import nacl.signing
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PrivateFormat, PublicFormat, NoEncryption

from .deck.group import is_point

PUBLIC_KEY_SIZE = 32
SIGNATURE_SIZE = 64


class SigningKey:
    """A node's private Ed25519 key; `public` is the 32-byte key that names it in games."""

    __slots__ = ("_key", "public")

    def __init__(self, key: Ed25519PrivateKey):
        self._key = key
        self.public: bytes = key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)

    @classmethod
    def generate(cls) -> "SigningKey":
        return cls(Ed25519PrivateKey.generate())

    @classmethod
    def from_seed(cls, seed: bytes) -> "SigningKey":
        """Rebuild a key from its 32-byte seed (as stored by `seed()`)."""
        if len(seed) != 32:
            raise ValueError("an Ed25519 seed is 32 bytes")
        return cls(Ed25519PrivateKey.from_private_bytes(seed))

    def seed(self) -> bytes:
        return self._key.private_bytes(Encoding.Raw, PrivateFormat.Raw, NoEncryption())

    def sign(self, data: bytes) -> bytes:
        return self._key.sign(data)

    def __repr__(self) -> str:  # never print the secret
        return f"SigningKey({fingerprint(self.public)})"


def strong_key(public: object) -> bool:
    """True if `public` may name a seat or a node: 32 bytes, the canonical encoding of a
    point of the prime-order subgroup, not the identity (so no small-order key, no torsion
    component, no second encoding of one key)."""
    return type(public) is bytes and len(public) == PUBLIC_KEY_SIZE and is_point(public)


@lru_cache(maxsize=256)
def _public_key(public: bytes) -> nacl.signing.VerifyKey | None:
    return nacl.signing.VerifyKey(public) if strong_key(public) else None


def verify(public: bytes, signature: bytes, data: bytes) -> bool:
    """True if `signature` is `public`'s Ed25519 signature of `data` under the strict rules
    above (a weak key verifies nothing); never raises."""
    if type(public) is not bytes or type(signature) is not bytes or len(signature) != SIGNATURE_SIZE:
        return False
    key = _public_key(public)
    if key is None:
        return False
    try:
        key.verify(data, signature)
    except nacl.exceptions.BadSignatureError:
        return False
    return True


def fingerprint(public: bytes) -> str:
    """A short, readable name for a public key: 12 hex digits of its SHA-256, in groups."""
    h = hashlib.sha256(b"caravan/fingerprint/v1" + public).hexdigest()[:12]
    return f"{h[0:4]}-{h[4:8]}-{h[8:12]}"
