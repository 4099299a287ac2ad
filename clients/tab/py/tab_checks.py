"""The tab's crypto self-test: the project's checks, run by the same Python wherever it runs.

In a browser tab this proves that libsodium.js behind the `nacl` shim gives `protocol/` what
PyNaCl gives it on the desktop: strict keys, a forged signature under a small-order or
identity key refused, the mental deck's DLEQ and shuffle proofs (the published vectors,
specs/vectors/deck/deck-v1.json) accepted and a tampered copy refused, deterministic
signatures, fresh randomness, arguments of the wrong size refused, and the turn-based
mail's boxes (X25519 forms of keys, sealed boxes and secretboxes; a changed byte refused).
Each check returns a digest of what it computed, so a test can compare the tab's answers
with CPython's byte for byte."""

from __future__ import annotations

import hashlib
import json
import os
import random
from pathlib import Path
from typing import Any, Callable

import nacl.bindings
import nacl.exceptions

from protocol.deck import InvalidProof, card_table, ops
from protocol.deck.group import L, SMALL_ORDER_POINTS, mul_base, scalar_bytes
from protocol.identity import SigningKey, strong_key, verify

DECK_VECTORS = "deck-v1.json"

# the identity again, written non-canonically: y = 1 + p (p = 2^255 - 19)
IDENTITY_NONCANONICAL = (1 + 2**255 - 19).to_bytes(32, "little")


def _forge(rng: random.Random) -> bytes:
    """An outsider's 'signature' for the identity key: R = sB, S = s satisfies the
    cofactorless equation [S]B = R + [k]A when A is the identity, whatever the message."""
    s = rng.randrange(1, L)
    return bytes(mul_base(s)) + scalar_bytes(s)


def strict_keys() -> str:
    weak = [*SMALL_ORDER_POINTS, IDENTITY_NONCANONICAL]
    assert not any(strong_key(k) for k in weak), "a small-order or non-canonical key was accepted"
    key = SigningKey.from_seed(bytes(range(32)))
    assert strong_key(key.public), "a real key was refused"
    return hashlib.sha256(key.public).hexdigest()


def forged_signatures_refused() -> str:
    rng = random.Random(16)
    for k in (*SMALL_ORDER_POINTS, IDENTITY_NONCANONICAL):
        assert not verify(k, _forge(rng), b"m"), f"a forged signature under {k.hex()[:8]} verified"
    return "refused"


def signatures() -> str:
    key = SigningKey.from_seed(bytes(range(32)))
    sig = key.sign(b"m")
    assert verify(key.public, sig, b"m"), "an honest signature was refused"
    assert not verify(key.public, sig, b"n"), "a signature verified another message"
    s = int.from_bytes(sig[32:], "little") + L             # S + L: a malleated, non-canonical S
    assert not verify(key.public, sig[:32] + s.to_bytes(32, "little"), b"m"), "S + L was accepted"
    bad = bytearray(sig)
    bad[5] ^= 1
    assert not verify(key.public, bytes(bad), b"m"), "a signature with a flipped bit verified"
    return sig.hex()


def randomness() -> str:
    a, b = SigningKey.generate(), SigningKey.generate()
    assert a.public != b.public, "two generated keys are equal"
    assert os.urandom(32) != os.urandom(32), "os.urandom repeats"
    assert verify(a.public, a.sign(b"x"), b"x"), "a generated key's signature does not verify"
    return "fresh"


def bad_arguments_refused() -> str:
    """A point or scalar of the wrong size, or not bytes, is refused before libsodium sees it,
    with the exception PyNaCl raises (nacl.exceptions.TypeError)."""
    point, scalar = bytes(mul_base(3)), scalar_bytes(5)
    calls = {"add": lambda x: nacl.bindings.crypto_core_ed25519_add(point, x),
             "sub": lambda x: nacl.bindings.crypto_core_ed25519_sub(x, point),
             "from_uniform": nacl.bindings.crypto_core_ed25519_from_uniform,
             "scalar_reduce": nacl.bindings.crypto_core_ed25519_scalar_reduce,
             "scalarmult (scalar)": lambda x: nacl.bindings.crypto_scalarmult_ed25519_noclamp(x, point),
             "scalarmult (point)": lambda x: nacl.bindings.crypto_scalarmult_ed25519_noclamp(scalar, x),
             "scalarmult_base": nacl.bindings.crypto_scalarmult_ed25519_base_noclamp,
             "is_valid_point": nacl.bindings.crypto_core_ed25519_is_valid_point}
    for name, call in calls.items():
        for bad in (point[:31], point + b"\0", bytearray(point), None):
            try:
                call(bad)
            except nacl.exceptions.TypeError:
                continue
            raise AssertionError(f"{name} accepted {bad!r:.20}")
    return "refused"


def _tree(x: Any) -> Any:
    return [_tree(y) for y in x] if isinstance(x, list) else bytes.fromhex(x)


def deck_proofs(vectors: dict[str, Any]) -> str:
    """The published deck vectors verify (as tests/deck/test_deck_vectors.py checks them)."""
    b = bytes.fromhex
    game = b(vectors["game_id"])
    table = card_table(vectors["deck_name"], len(vectors["cards"]))
    assert [p.hex() for p in table.points] == vectors["cards"], "the card points differ"
    for p in vectors["players"]:
        ops.verify_key_share(b(p["Y"]), _tree(p["pok"]), game, p["seat"])
        ops.verify_published_key(b(p["Y"]), b(p["x"]))
    y = b(vectors["joint_key"])
    assert ops.joint_key([b(p["Y"]) for p in vectors["players"]]) == y, "the joint key differs"
    for s in vectors["shuffles"]:
        ops.verify_shuffle(y, _tree(s["deck_in"]), _tree(s["deck_out"]), _tree(s["proof"]), b(s["context"]))
    r = vectors["public_reveal"]
    for s, p in zip(r["shares"], vectors["players"]):
        ops.verify_share(b(p["Y"]), _tree(r["ciphertext"]), b(s["share"]), _tree(s["proof"]), b(s["context"]))
    assert table.decode(ops.open_card(_tree(r["ciphertext"]), [b(s["share"]) for s in r["shares"]])) == r["card"]
    rr = vectors["rerandomize"]
    ops.verify_rerandomize(y, _tree(rr["ciphertext"]), _tree(rr["new_ciphertext"]), _tree(rr["proof"]),
                           b(rr["context"]))
    # and the same code proves again what the vectors hold (deterministic nonces: same bytes)
    s0 = vectors["shuffles"][0]
    out, proof = ops.shuffle(y, _tree(s0["deck_in"]), b(s0["seed"]), b(s0["context"]))
    assert out == _tree(s0["deck_out"]) and proof == _tree(s0["proof"]), "a shuffle proof was not reproduced"
    return hashlib.sha256(json.dumps([[c.hex() for c in o] for o in out]).encode()).hexdigest()


def _refused(check: Callable[[], None], what: str) -> None:
    try:
        check()
    except InvalidProof:
        return
    raise AssertionError(f"a tampered {what} was accepted")


def _flip(hex_value: str) -> bytes:
    raw = bytearray(bytes.fromhex(hex_value))
    raw[0] ^= 1
    return bytes(raw)


def tampered_proofs_refused(vectors: dict[str, Any]) -> str:
    b = bytes.fromhex
    y = b(vectors["joint_key"])
    s = vectors["shuffles"][1]
    proof = _tree(s["proof"])
    proof[-1] = _flip(s["proof"][-1])
    _refused(lambda: ops.verify_shuffle(y, _tree(s["deck_in"]), _tree(s["deck_out"]), proof, b(s["context"])),
             "shuffle proof")
    out = _tree(s["deck_out"])
    out[0], out[1] = out[1], out[0]                        # the same proof for another order
    _refused(lambda: ops.verify_shuffle(y, _tree(s["deck_in"]), out, _tree(s["proof"]), b(s["context"])),
             "shuffled deck")
    r, p = vectors["public_reveal"], vectors["players"][0]
    share = r["shares"][0]
    dleq = _tree(share["proof"])
    dleq[0] = _flip(share["proof"][0])
    _refused(lambda: ops.verify_share(b(p["Y"]), _tree(r["ciphertext"]), b(share["share"]), dleq,
                                      b(share["context"])), "DLEQ proof")
    _refused(lambda: ops.verify_share(b(p["Y"]), _tree(r["ciphertext"]), b(r["shares"][1]["share"]),
                                      _tree(share["proof"]), b(share["context"])), "decryption share")
    return "refused"


# ---------------------------------------------------------------- turn-based mail's boxes
# (protocol/mail: envelopes are sealed boxes to the X25519 form of a seat's Ed25519 key, a
# lobby's advert a secretbox)

SEALED_BY_PYNACL = bytes.fromhex(
    "69dfdbd1a353f3c9a62c809e9a16def4fc458e50417642b31a7b44ab05819706453395da5e13bfd01d268068f9044481ce"
    "1603872088b64cd1d99a3ccdd6d424d727a7e0299a5e1774637b14")
"""crypto_box_seal(b"sealed by PyNaCl for the tab", X25519 form of seed bytes(range(32))'s key), made
once by PyNaCl on the desktop: a sealed box is random, so the tab opens this one."""


def _curve_pair(seed: bytes) -> tuple[bytes, bytes]:
    pk, sk = nacl.bindings.crypto_sign_seed_keypair(seed)
    return (nacl.bindings.crypto_sign_ed25519_pk_to_curve25519(pk),
            nacl.bindings.crypto_sign_ed25519_sk_to_curve25519(sk))


def _crypto_refused(call: Callable[[], Any], what: str) -> None:
    try:
        call()
    except nacl.exceptions.CryptoError:
        return
    raise AssertionError(f"{what} was accepted")


def curve_keys() -> str:
    """The Ed25519 -> X25519 conversions give PyNaCl's keys; a small-order key has none."""
    cpk, csk = _curve_pair(bytes(range(32)))
    assert nacl.bindings.crypto_scalarmult_base(csk) == cpk, "the two conversions disagree"
    for k in SMALL_ORDER_POINTS:
        _crypto_refused(lambda: nacl.bindings.crypto_sign_ed25519_pk_to_curve25519(k),
                        f"the small-order key {k.hex()[:8]} as an X25519 key")
    return (cpk + csk).hex()


def sealed_boxes() -> str:
    """A box sealed by PyNaCl opens; one sealed here opens here; a box with one byte changed,
    or opened with another key, is refused (CryptoError); a box too short for its header is a
    TypeError and a key of the wrong length a ValueError, as PyNaCl raises them."""
    cpk, csk = _curve_pair(bytes(range(32)))
    opened = nacl.bindings.crypto_box_seal_open(SEALED_BY_PYNACL, cpk, csk)
    box = nacl.bindings.crypto_box_seal(b"sealed here", cpk)
    assert len(box) == len(b"sealed here") + nacl.bindings.crypto_box_SEALBYTES, "a sealed box of another size"
    assert nacl.bindings.crypto_box_seal_open(box, cpk, csk) == b"sealed here", "a box sealed here does not open"
    assert nacl.bindings.crypto_box_seal(b"sealed here", cpk) != box, "two sealed boxes are equal"
    for i in (0, 40, len(SEALED_BY_PYNACL) - 1):               # the ephemeral key, the MAC, the text
        bad = bytearray(SEALED_BY_PYNACL)
        bad[i] ^= 1
        _crypto_refused(lambda: nacl.bindings.crypto_box_seal_open(bytes(bad), cpk, csk),
                        f"a sealed box with byte {i} changed")
    other_pk, other_sk = _curve_pair(bytes(32))
    _crypto_refused(lambda: nacl.bindings.crypto_box_seal_open(SEALED_BY_PYNACL, other_pk, other_sk),
                    "a sealed box opened with another key")
    try:
        nacl.bindings.crypto_box_seal_open(SEALED_BY_PYNACL[:47], cpk, csk)
        raise AssertionError("a box shorter than its header was accepted")
    except nacl.exceptions.TypeError:
        pass
    for call in (lambda: nacl.bindings.crypto_box_seal(b"m", cpk[:31]),
                 lambda: nacl.bindings.crypto_box_seal_open(box, cpk, csk + b"\0")):
        try:
            call()
            raise AssertionError("a key of the wrong length was accepted")
        except nacl.exceptions.ValueError:
            pass
    return opened.decode()


def secret_boxes() -> str:
    """A secretbox under a fixed key and nonce has PyNaCl's bytes; a changed byte is refused."""
    key, nonce = bytes(range(32)), bytes(range(24))
    box = nacl.bindings.crypto_secretbox(b"a lobby's advert", nonce, key)
    assert nacl.bindings.crypto_secretbox_open(box, nonce, key) == b"a lobby's advert", "a secretbox does not open"
    bad = bytearray(box)
    bad[3] ^= 1
    _crypto_refused(lambda: nacl.bindings.crypto_secretbox_open(bytes(bad), nonce, key), "a changed secretbox")
    _crypto_refused(lambda: nacl.bindings.crypto_secretbox_open(box, nonce, bytes(32)), "a secretbox under another key")
    try:
        nacl.bindings.crypto_secretbox(b"m", nonce[:23], key)
        raise AssertionError("a nonce of the wrong length was accepted")
    except nacl.exceptions.ValueError:
        pass
    return box.hex()


MAIL_CHECKS: list[tuple[str, Callable[[], str]]] = [
    ("curve keys", curve_keys), ("sealed boxes", sealed_boxes), ("secret boxes", secret_boxes)]


def run(vectors_dir: Path) -> list[dict[str, Any]]:
    """Every check as {name, ok, value | error}; never raises."""
    results = []
    vectors: dict[str, Any] | None = None
    try:
        vectors = json.loads((vectors_dir / DECK_VECTORS).read_text())
    except (OSError, ValueError) as e:
        results.append({"name": "deck vectors", "ok": False, "error": f"cannot read: {e}"})
    checks: list[tuple[str, Callable[[], str]]] = [
        ("strict keys", strict_keys), ("forged signatures refused", forged_signatures_refused),
        ("signatures", signatures), ("randomness", randomness), ("bad arguments refused", bad_arguments_refused)]
    checks += MAIL_CHECKS
    if vectors is not None:
        checks += [("deck proofs accepted", lambda: deck_proofs(vectors)),
                   ("tampered deck proofs refused", lambda: tampered_proofs_refused(vectors))]
    for name, check in checks:
        try:
            results.append({"name": name, "ok": True, "value": check()})
        except Exception as e:                   # noqa: BLE001 - a failed check is a result
            results.append({"name": name, "ok": False, "error": f"{type(e).__name__}: {e}"})
    return results
