"""`nacl.bindings` for the tab: what `protocol/` uses, each a call into libsodium.js.

The worker registers the loaded `libsodium-wrappers-sumo` object as the JS module
`_caravan_sodium` before anything imports this. Arguments are checked as PyNaCl checks them
(bytes of the right length, else `nacl.exceptions.TypeError`); a refusal by libsodium
becomes the exception PyNaCl raises for it."""

from __future__ import annotations

from typing import Any

from pyodide.ffi import JsException, to_js

import _caravan_sodium as _sodium  # type: ignore[import-not-found]

from . import exceptions as exc

crypto_sign_BYTES = 64
crypto_sign_SEEDBYTES = 32
crypto_sign_PUBLICKEYBYTES = 32
crypto_sign_SECRETKEYBYTES = 64
crypto_core_ed25519_BYTES = 32
crypto_core_ed25519_UNIFORMBYTES = 32
crypto_core_ed25519_SCALARBYTES = 32
crypto_core_ed25519_NONREDUCEDSCALARBYTES = 64
crypto_scalarmult_ed25519_BYTES = 32
crypto_scalarmult_ed25519_SCALARBYTES = 32


def _need(value: Any, size: int | None, what: str) -> None:
    if type(value) is not bytes or (size is not None and len(value) != size):
        raise exc.TypeError(f"{what} must be {size} bytes" if size else f"{what} must be bytes")


def _call(name: str, *args: bytes) -> Any:
    """libsodium.js's `name` on the arguments as Uint8Arrays; its refusal is a RuntimeError."""
    try:
        return getattr(_sodium, name)(*(to_js(a) for a in args))
    except JsException as e:
        raise exc.RuntimeError(f"libsodium refused {name}: {e}") from None


def _bytes(result: Any) -> bytes:
    return result.to_bytes()


_POINT = (crypto_core_ed25519_BYTES, "point")
_SCALAR = (crypto_scalarmult_ed25519_SCALARBYTES, "scalar")


def _checked_call(name: str, *args: tuple[Any, tuple[int, str]]) -> bytes:
    """libsodium.js's `name` on arguments given as (value, (size, what)): each checked first."""
    for value, (size, what) in args:
        _need(value, size, what)
    return _bytes(_call(name, *(value for value, _ in args)))


def randombytes(size: int) -> bytes:
    """`size` random bytes from libsodium (in a browser: crypto.getRandomValues)."""
    if type(size) is not int or size < 0:
        raise exc.TypeError("size must be a non-negative int")
    return _bytes(_sodium.randombytes_buf(size))


def crypto_sign_keypair() -> tuple[bytes, bytes]:
    kp = _sodium.crypto_sign_keypair()
    return _bytes(kp.publicKey), _bytes(kp.privateKey)


def crypto_sign_seed_keypair(seed: bytes) -> tuple[bytes, bytes]:
    _need(seed, crypto_sign_SEEDBYTES, "seed")
    kp = _call("crypto_sign_seed_keypair", seed)
    return _bytes(kp.publicKey), _bytes(kp.privateKey)


def crypto_sign(message: bytes, sk: bytes) -> bytes:
    """The signature followed by the message, as libsodium's crypto_sign returns it."""
    _need(message, None, "message")
    _need(sk, crypto_sign_SECRETKEYBYTES, "secret key")
    return _bytes(_call("crypto_sign_detached", message, sk)) + message


def crypto_sign_open(signed: bytes, pk: bytes) -> bytes:
    """The message if the signature at the front of `signed` verifies under `pk` (libsodium's
    strict check: crypto_sign_open is crypto_sign_verify_detached on the split input)."""
    _need(signed, None, "signed message")
    _need(pk, crypto_sign_PUBLICKEYBYTES, "public key")
    if len(signed) < crypto_sign_BYTES:
        raise exc.BadSignatureError("Signature was forged or corrupt")
    try:
        ok = _sodium.crypto_sign_verify_detached(to_js(signed[:64]), to_js(signed[64:]), to_js(pk))
    except JsException:
        ok = False
    if not ok:
        raise exc.BadSignatureError("Signature was forged or corrupt")
    return signed[64:]


def crypto_core_ed25519_is_valid_point(p: bytes) -> bool:
    _need(p, *_POINT)
    return bool(_sodium.crypto_core_ed25519_is_valid_point(to_js(p)))


def crypto_core_ed25519_add(p: bytes, q: bytes) -> bytes:
    return _checked_call("crypto_core_ed25519_add", (p, _POINT), (q, _POINT))


def crypto_core_ed25519_sub(p: bytes, q: bytes) -> bytes:
    return _checked_call("crypto_core_ed25519_sub", (p, _POINT), (q, _POINT))


def crypto_core_ed25519_from_uniform(r: bytes) -> bytes:
    return _checked_call("crypto_core_ed25519_from_uniform", (r, (crypto_core_ed25519_UNIFORMBYTES, "uniform input")))


def crypto_core_ed25519_scalar_reduce(s: bytes) -> bytes:
    return _checked_call("crypto_core_ed25519_scalar_reduce", (s, (crypto_core_ed25519_NONREDUCEDSCALARBYTES, "scalar")))


def crypto_scalarmult_ed25519_noclamp(n: bytes, p: bytes) -> bytes:
    return _checked_call("crypto_scalarmult_ed25519_noclamp", (n, _SCALAR), (p, _POINT))


def crypto_scalarmult_ed25519_base_noclamp(n: bytes) -> bytes:
    return _checked_call("crypto_scalarmult_ed25519_base_noclamp", (n, _SCALAR))


# ---------------------------------------------------------------- a link's keys and sealing
# (protocol/link: the handshake's X25519 exchange and the crypto_secretstream of a sealed link)
crypto_scalarmult_BYTES = 32
crypto_scalarmult_SCALARBYTES = 32
crypto_box_PUBLICKEYBYTES = 32
crypto_box_SECRETKEYBYTES = 32
crypto_secretstream_xchacha20poly1305_ABYTES = 17
crypto_secretstream_xchacha20poly1305_HEADERBYTES = 24
crypto_secretstream_xchacha20poly1305_KEYBYTES = 32
crypto_secretstream_xchacha20poly1305_TAG_MESSAGE = 0


def crypto_scalarmult_base(n: bytes) -> bytes:
    """The X25519 public key of the secret `n`."""
    return _checked_call("crypto_scalarmult_base", (n, (crypto_scalarmult_SCALARBYTES, "scalar")))


def crypto_box_beforenm(pk: bytes, sk: bytes) -> bytes:
    """The X25519 shared key of `sk` and the peer's `pk` (libsodium refuses a low-order `pk`)."""
    return _checked_call("crypto_box_beforenm", (pk, (crypto_box_PUBLICKEYBYTES, "public key")),
                         (sk, (crypto_box_SECRETKEYBYTES, "secret key")))


class crypto_secretstream_xchacha20poly1305_state:
    """One direction's stream state: libsodium.js's handle of it, set by init_push or init_pull."""
    __slots__ = ("handle",)

    def __init__(self) -> None:
        self.handle: Any = None


def _stream(state: Any) -> Any:
    if type(state) is not crypto_secretstream_xchacha20poly1305_state or state.handle is None:
        raise exc.TypeError("state must be an initialized crypto_secretstream_xchacha20poly1305_state")
    return state.handle


def crypto_secretstream_xchacha20poly1305_init_push(state: Any, key: bytes) -> bytes:
    """Start a sending stream under `key` in `state`: the header the receiver starts from."""
    _need(key, crypto_secretstream_xchacha20poly1305_KEYBYTES, "key")
    started = _call("crypto_secretstream_xchacha20poly1305_init_push", key)
    state.handle = started.state
    return _bytes(started.header)


def crypto_secretstream_xchacha20poly1305_push(state: Any, m: bytes, ad: bytes | None = None,
                                               tag: int = crypto_secretstream_xchacha20poly1305_TAG_MESSAGE) -> bytes:
    _need(m, None, "message")
    if ad is not None:
        _need(ad, None, "additional data")
    try:
        return _bytes(_sodium.crypto_secretstream_xchacha20poly1305_push(
            _stream(state), to_js(m), None if ad is None else to_js(ad), tag))
    except JsException as e:
        raise exc.RuntimeError(f"libsodium refused crypto_secretstream_xchacha20poly1305_push: {e}") from None


def crypto_secretstream_xchacha20poly1305_init_pull(state: Any, header: bytes, key: bytes) -> None:
    """Start a receiving stream in `state` from the sender's `header`, under `key`."""
    _need(header, crypto_secretstream_xchacha20poly1305_HEADERBYTES, "header")
    _need(key, crypto_secretstream_xchacha20poly1305_KEYBYTES, "key")
    state.handle = _call("crypto_secretstream_xchacha20poly1305_init_pull", header, key)


def crypto_secretstream_xchacha20poly1305_pull(state: Any, c: bytes, ad: bytes | None = None) -> tuple[bytes, int]:
    """The next message and its tag; a message that fails authentication raises and leaves
    `state` as it was (libsodium's pull), so the next one may still open."""
    _need(c, None, "ciphertext")
    if ad is not None:
        _need(ad, None, "additional data")
    if len(c) < crypto_secretstream_xchacha20poly1305_ABYTES:
        raise exc.ValueError("Ciphertext is too short")
    try:
        opened = _sodium.crypto_secretstream_xchacha20poly1305_pull(
            _stream(state), to_js(c), None if ad is None else to_js(ad))
    except JsException as e:
        raise exc.RuntimeError(f"libsodium refused crypto_secretstream_xchacha20poly1305_pull: {e}") from None
    if not opened:
        raise exc.RuntimeError("Unexpected failure")
    return _bytes(opened.message), int(opened.tag)


# ---------------------------------------------------------------- turn-based mail's boxes
# (protocol/mail: an envelope is a sealed box to the X25519 form of the recipient's Ed25519
# key; a lobby's advert is a secretbox). Sizes and exceptions as PyNaCl's: not bytes is a
# TypeError, a key or nonce of the wrong length a ValueError, a box that does not open a
# CryptoError (libsodium's refusal: the check itself is libsodium's).
crypto_box_SEALBYTES = 48
crypto_secretbox_KEYBYTES = 32
crypto_secretbox_NONCEBYTES = 24
crypto_secretbox_MACBYTES = 16


def _sized(value: Any, size: int, what: str) -> None:
    """PyNaCl's checks of a key or nonce: bytes (TypeError), then its length (ValueError)."""
    _need(value, None, what)
    if len(value) != size:
        raise exc.ValueError(f"Invalid {what}")


def _opened(name: str, *args: bytes) -> bytes:
    """libsodium.js's `name` that opens a box; its refusal (a wrong key, a changed byte) is the
    CryptoError PyNaCl raises."""
    try:
        return _bytes(getattr(_sodium, name)(*(to_js(a) for a in args)))
    except JsException:
        raise exc.CryptoError("An error occurred trying to decrypt the message") from None


def crypto_sign_ed25519_pk_to_curve25519(public_key_bytes: bytes) -> bytes:
    """The X25519 form of an Ed25519 public key (libsodium refuses a small-order or
    non-canonical one)."""
    _sized(public_key_bytes, crypto_sign_PUBLICKEYBYTES, "curve public key")
    return _bytes(_call("crypto_sign_ed25519_pk_to_curve25519", public_key_bytes))


def crypto_sign_ed25519_sk_to_curve25519(secret_key_bytes: bytes) -> bytes:
    """The X25519 form of an Ed25519 secret key (64 bytes: seed and public key)."""
    _sized(secret_key_bytes, crypto_sign_SECRETKEYBYTES, "curve secret key")
    return _bytes(_call("crypto_sign_ed25519_sk_to_curve25519", secret_key_bytes))


def crypto_box_seal(message: bytes, pk: bytes) -> bytes:
    """`message` sealed to the X25519 key `pk` with a fresh ephemeral key: only `pk`'s holder opens it."""
    _need(message, None, "input message")
    _sized(pk, crypto_box_PUBLICKEYBYTES, "public key")
    return _bytes(_call("crypto_box_seal", message, pk))


def crypto_box_seal_open(ciphertext: bytes, pk: bytes, sk: bytes) -> bytes:
    """The message in a sealed box to (`pk`, `sk`); CryptoError if it does not open."""
    _need(ciphertext, None, "input ciphertext")
    _sized(pk, crypto_box_PUBLICKEYBYTES, "public key")
    _sized(sk, crypto_box_SECRETKEYBYTES, "secret key")
    if len(ciphertext) < crypto_box_SEALBYTES:
        raise exc.TypeError(f"Input ciphertext must be at least {crypto_box_SEALBYTES} long")
    return _opened("crypto_box_seal_open", ciphertext, pk, sk)


def crypto_secretbox(message: bytes, nonce: bytes, key: bytes) -> bytes:
    """`message` under `key` and `nonce`: its MAC then its ciphertext (libsodium's easy form,
    the bytes PyNaCl's crypto_secretbox returns)."""
    _need(message, None, "message")
    _sized(key, crypto_secretbox_KEYBYTES, "key")
    _sized(nonce, crypto_secretbox_NONCEBYTES, "nonce")
    return _bytes(_call("crypto_secretbox_easy", message, nonce, key))


def crypto_secretbox_open(ciphertext: bytes, nonce: bytes, key: bytes) -> bytes:
    """The message of a secretbox; CryptoError if it fails authentication."""
    _need(ciphertext, None, "ciphertext")
    _sized(key, crypto_secretbox_KEYBYTES, "key")
    _sized(nonce, crypto_secretbox_NONCEBYTES, "nonce")
    return _opened("crypto_secretbox_open_easy", ciphertext, nonce, key)


# ---------------------------------------------------------------- a key backup's passphrase
# (clients/tab/py/tab_backup.py: a passphrase through Argon2id keys a secretbox; PyNaCl's names)
crypto_pwhash_ALG_ARGON2ID13 = 2
crypto_pwhash_SALTBYTES = 16
crypto_pwhash_argon2id_OPSLIMIT_INTERACTIVE = 2
crypto_pwhash_argon2id_MEMLIMIT_INTERACTIVE = 64 << 20


def crypto_pwhash_alg(outlen: int, passwd: bytes, salt: bytes, opslimit: int, memlimit: int, alg: int) -> bytes:
    """`outlen` bytes of key from a passphrase (libsodium's crypto_pwhash, Argon2id)."""
    _need(passwd, None, "passphrase")
    _need(salt, crypto_pwhash_SALTBYTES, "salt")
    for value, what in ((outlen, "outlen"), (opslimit, "opslimit"), (memlimit, "memlimit"), (alg, "alg")):
        if type(value) is not int or value < 0:
            raise exc.TypeError(f"{what} must be a non-negative int")
    try:
        return _bytes(_sodium.crypto_pwhash(outlen, to_js(passwd), to_js(salt), opslimit, memlimit, alg))
    except JsException as e:
        raise exc.RuntimeError(f"libsodium refused crypto_pwhash: {e}") from None
