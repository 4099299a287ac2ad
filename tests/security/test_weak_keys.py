"""Issue 16, item 1: a seat key that is the identity, of small order or non-canonically
encoded lets anyone sign "for" that seat. Such keys are refused in the genesis (naming the
seat), by every signature check, and (tests/security/test_handshake.py) in the handshake."""

from __future__ import annotations

import random

import pytest

from protocol import chain, genesis as G, transcript
from protocol.deck.group import L, SMALL_ORDER_POINTS, mul_base, scalar_bytes
from protocol.identity import SigningKey, fingerprint, verify
from protocol.player import beacon_chain
from protocol.verify import verify_bytes
from tests.core.conftest import ENGINE  # noqa: F401  (registers the "fixture" game)

IDENTITY = SMALL_ORDER_POINTS[0]
# the identity again, written non-canonically: y = 1 + p (p = 2^255 - 19)
IDENTITY_NONCANONICAL = (1 + 2**255 - 19).to_bytes(32, "little")


class Forger:
    """An outsider's 'key' for the identity point: with A = 0 the cofactorless equation
    [S]B = R + [k]A holds for R = [s]B, S = s, whatever the message."""

    public = IDENTITY

    def __init__(self, seed: int):
        self.rng = random.Random(seed)

    def sign(self, data: bytes) -> bytes:
        s = self.rng.randrange(1, L)
        return bytes(mul_base(s)) + scalar_bytes(s)


def test_the_forgery_works_on_a_lax_verifier():
    """The attack's premise (so the tests below test something): RFC 8032 as OpenSSL does it
    accepts the forged signature for the identity key."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
    Ed25519PublicKey.from_public_bytes(IDENTITY).verify(Forger(1).sign(b"x"), b"anything")


@pytest.mark.parametrize("key", [*SMALL_ORDER_POINTS, IDENTITY_NONCANONICAL], ids=lambda k: k.hex()[:8])
def test_weak_keys_are_not_keys(key):
    from protocol.identity import strong_key
    assert not strong_key(key)
    assert not verify(key, Forger(2).sign(b"m"), b"m")


def test_real_keys_still_verify_and_only_their_own_messages():
    from protocol.identity import strong_key
    k = SigningKey.from_seed(bytes(range(32)))
    assert strong_key(k.public)
    sig = k.sign(b"m")
    assert verify(k.public, sig, b"m") and not verify(k.public, sig, b"n")
    # a non-canonical S (S + L) is refused: strict, so signatures are not malleable
    s = int.from_bytes(sig[32:], "little") + L
    assert s < 2**256 and not verify(k.public, sig[:32] + s.to_bytes(32, "little"), b"m")


def forged_transcript(weak: bytes) -> tuple[bytes, list[SigningKey]]:
    """A genesis seating a real player and `weak`, 'signed' by an outsider for the weak seat,
    and a first message of the weak seat forged the same way."""
    rng = random.Random(16)
    real = SigningKey.from_seed(rng.randbytes(32))
    forger = Forger(3)
    forger.public = weak
    secrets = [rng.randbytes(32) for _ in range(2)]
    nonce = rng.randbytes(16)
    tips = [beacon_chain(secrets[i], nonce, i, 16)[0] for i in range(2)]
    seats = [real.public, weak]
    body = G.make_body("fixture", ENGINE.default_options(2), seats, tips, nonce, 16)
    gid = G.game_id_of(body)
    sigs = [G.sign(real, body), forger.sign(b"caravan/genesis-sig/v1" + gid)]
    gen = G.Genesis("fixture", ENGINE.default_options(2), seats, tips, 16, nonce, body, sigs).to_wire()
    msg = chain.seal(real, gid, 0, gid, [], "commit", {"c": bytes(32)})   # any message will do
    return transcript.dump(gen, [msg.raw]), [real]


@pytest.mark.parametrize("weak", [IDENTITY, IDENTITY_NONCANONICAL], ids=["identity", "non-canonical"])
def test_verify_refuses_a_genesis_seating_a_weak_key(weak):
    data, _ = forged_transcript(weak)
    r = verify_bytes(data)
    assert not r.valid and r.error["code"] == "bad-genesis" and r.error["position"] == 0, r.error
    if weak == IDENTITY:   # the identity is a 32-byte key: the seat is named
        assert r.error["seat"] == 1 and r.error["fingerprint"] == fingerprint(IDENTITY), r.error


def test_no_equivocation_proof_can_be_forged_against_a_weak_seat():
    """A third party 'proving' that the identity seat equivocated: refused as a forgery."""
    gid = bytes(32)
    forger = Forger(4)
    raws = []
    for body in ({"c": bytes(32)}, {"c": b"\x01" * 32}):
        env = chain.msgpack.packb([1, gid, IDENTITY, 0, gid, [], "commit"], use_bin_type=True)
        env = b"\x98" + env[1:] + chain.wire.encode(body)
        sig = forger.sign(b"caravan/sig/v1" + chain.message_id(env))
        raws.append(chain._outer(env, sig))
    with pytest.raises(ValueError, match="forgery"):
        chain.EquivocationProof(*raws).check()
