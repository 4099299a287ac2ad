"""Ed25519 identities: a node's signing key, signature checks and short fingerprints.

Verification is strict (specs/protocol.md §3): a seat key must be the canonical encoding of
a point of the prime-order subgroup other than the identity (`strong_key`), and signatures
are checked by libsodium's `crypto_sign_open`, which refuses S >= L, a small-order R, a
non-canonical or small-order key and checks [S]B = R + [k]A without the cofactor. A
small-order or identity key would let anyone sign "for" that seat (issue 16, item 1).
"""

from __future__ import annotations

import hashlib
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Collection, Iterator

import nacl.bindings
import nacl.exceptions

from .deck.group import is_point

try:                                    # the desktop: OpenSSL's Ed25519, through `cryptography`
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
except ImportError:                     # a browser tab: Pyodide has no `cryptography` wheel
    Ed25519PrivateKey = None

PUBLIC_KEY_SIZE = 32
SIGNATURE_SIZE = 64


class SigningKey:
    """A node's private Ed25519 key; `public` is the 32-byte key that names it in games.

    It signs with `cryptography` (OpenSSL) where that is installed, and otherwise with
    libsodium (`nacl.bindings`: in a browser tab, libsodium.js behind the tab's `nacl` shim).
    Ed25519 is deterministic (RFC 8032): both make the same signatures byte for byte
    (tests/core/test_identity_libsodium.py), so a seat signs the same wherever it runs."""

    __slots__ = ("_seed", "_sign", "public")

    def __init__(self, seed: bytes):
        self._seed = seed
        if Ed25519PrivateKey is not None:
            key = Ed25519PrivateKey.from_private_bytes(seed)
            self.public: bytes = key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
            self._sign = key.sign
        else:
            self.public, secret = nacl.bindings.crypto_sign_seed_keypair(seed)
            self._sign = lambda data: nacl.bindings.crypto_sign(data, secret)[:SIGNATURE_SIZE]

    @classmethod
    def generate(cls) -> "SigningKey":
        """A fresh key from libsodium's random source (the OS's; in a tab, crypto.getRandomValues)."""
        return cls(nacl.bindings.randombytes(32))

    @classmethod
    def from_seed(cls, seed: bytes) -> "SigningKey":
        """Rebuild a key from its 32-byte seed (as stored by `seed()`)."""
        if not isinstance(seed, (bytes, bytearray, memoryview)) or len(seed) != 32:
            raise ValueError("an Ed25519 seed is 32 bytes")
        return cls(bytes(seed))

    def seed(self) -> bytes:
        return self._seed

    def sign(self, data: bytes) -> bytes:
        return self._sign(data)

    def __repr__(self) -> str:  # never print the secret
        return f"SigningKey({fingerprint(self.public)})"


def strong_key(public: object) -> bool:
    """True if `public` may name a seat or a node: 32 bytes, the canonical encoding of a
    point of the prime-order subgroup, not the identity (so no small-order key, no torsion
    component, no second encoding of one key)."""
    return type(public) is bytes and len(public) == PUBLIC_KEY_SIZE and is_point(public)


Checked = tuple[bytes, bytes, bytes]
"""(public, signature, data) of a signature that `verify` accepted."""

_already_checked: ContextVar[Collection[Checked]] = ContextVar("already_checked", default=frozenset())


@contextmanager
def already_checked(checked: Collection[Checked]) -> Iterator[None]:
    """Within this block (this thread or task only), `verify` answers True without redoing
    the work for a triple in `checked`, which must hold only triples that `verify` itself
    accepted (in another process, say: `caravan verify` checks signatures in parallel while
    it replays). A triple not in it is checked as usual, so a bad signature still fails."""
    token = _already_checked.set(checked)
    try:
        yield
    finally:
        _already_checked.reset(token)


def verify(public: bytes, signature: bytes, data: bytes) -> bool:
    """True if `signature` is `public`'s Ed25519 signature of `data` under the strict rules
    above (a weak key verifies nothing); never raises."""
    if type(public) is not bytes or type(signature) is not bytes or len(signature) != SIGNATURE_SIZE:
        return False
    if not is_point(public):         # strong_key(public), one call fewer
        return False
    checked = _already_checked.get()
    if checked and type(data) is bytes and (public, signature, data) in checked:
        return True
    try:
        nacl.bindings.crypto_sign_open(signature + data, public)
    except nacl.exceptions.BadSignatureError:
        return False
    return True


def fingerprint(public: bytes) -> str:
    """A short, readable name for a public key: 12 hex digits of its SHA-256, in groups."""
    h = hashlib.sha256(b"caravan/fingerprint/v1" + public).hexdigest()[:12]
    return f"{h[0:4]}-{h[4:8]}-{h[8:12]}"
