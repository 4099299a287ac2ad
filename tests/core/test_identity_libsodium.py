"""protocol/identity.py signs with `cryptography` (OpenSSL) on the desktop and with libsodium
(`nacl.bindings`) where `cryptography` cannot be installed, a browser tab (issue 32). These
show the two are one signer: the same keys and signatures byte for byte, and key files load
the same way with either."""

from __future__ import annotations

import random

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from protocol import identity
from protocol.identity import SigningKey, verify


@pytest.fixture(params=["openssl", "libsodium"], autouse=True)
def backend(request, monkeypatch):
    """Each test with each signer: libsodium as a tab has it (no `cryptography` there)."""
    if request.param == "libsodium":
        monkeypatch.setattr(identity, "Ed25519PrivateKey", None)
    return request.param


@pytest.mark.parametrize("seed", range(40))
def test_signatures_are_byte_identical_to_openssl(seed):
    rng = random.Random(seed)
    secret, message = rng.randbytes(32), rng.randbytes(rng.randrange(0, 3000))
    ours, openssl = SigningKey.from_seed(secret), Ed25519PrivateKey.from_private_bytes(secret)
    assert ours.public == openssl.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
    assert ours.sign(message) == openssl.sign(message)
    assert ours.seed() == secret                     # what a key file holds: unchanged


def test_generated_keys_are_fresh_and_round_trip_through_their_seed():
    a, b = SigningKey.generate(), SigningKey.generate()
    assert a.public != b.public
    again = SigningKey.from_seed(a.seed())
    assert again.public == a.public and again.sign(b"m") == a.sign(b"m")
    Ed25519PublicKey.from_public_bytes(a.public).verify(a.sign(b"m"), b"m")      # OpenSSL accepts it
    assert verify(a.public, a.sign(b"m"), b"m") and not verify(b.public, a.sign(b"m"), b"m")


@pytest.mark.parametrize("bad", [b"\x01" * 31, b"\x01" * 33, "x" * 32, None])
def test_a_bad_seed_is_a_clear_error(bad):
    with pytest.raises(ValueError, match="32 bytes"):
        SigningKey.from_seed(bad)


def test_the_secret_is_never_printed():
    key = SigningKey.from_seed(bytes(range(32)))
    assert bytes(range(32)).hex() not in repr(key) and key.seed().hex() not in repr(key)
