"""An encrypted backup of the tab's identity key: a small JSON file the player keeps, which
only their passphrase opens. The passphrase goes through libsodium's Argon2id (crypto_pwhash,
a fresh salt), the key's 32-byte seed into a secretbox (XSalsa20-Poly1305, a fresh nonce); the
public key is beside it in the clear, so a restore checks that the seed is that key's.

Pure: only `nacl.bindings` (the tab's shim over libsodium.js, or PyNaCl on a desktop, where a
backup made in a tab opens too). Every refusal is BackupError, one line."""

from __future__ import annotations

import json

import nacl.bindings as sodium
import nacl.exceptions

from protocol.identity import SigningKey, fingerprint

FORMAT = "caravan-key-backup/1"
KDF = "argon2id13"
OPSLIMIT = sodium.crypto_pwhash_argon2id_OPSLIMIT_INTERACTIVE
MEMLIMIT = sodium.crypto_pwhash_argon2id_MEMLIMIT_INTERACTIVE
OPS_RANGE, MEM_RANGE = (1, 16), (8 << 20, 256 << 20)
"""What a restore accepts: a file asking for more would make the phone work for minutes."""
MIN_PASSPHRASE = 8


class BackupError(Exception):
    """The backup cannot be made or opened: one line saying why."""


def _box_key(passphrase: str, salt: bytes, opslimit: int, memlimit: int) -> bytes:
    return sodium.crypto_pwhash_alg(sodium.crypto_secretbox_KEYBYTES, passphrase.encode(), salt, opslimit, memlimit,
                                    sodium.crypto_pwhash_ALG_ARGON2ID13)


def make(key: SigningKey, passphrase: str) -> bytes:
    """The backup file's bytes for `key`, under `passphrase`."""
    if type(passphrase) is not str or len(passphrase) < MIN_PASSPHRASE:
        raise BackupError(f"a backup needs a passphrase of at least {MIN_PASSPHRASE} characters")
    salt = sodium.randombytes(sodium.crypto_pwhash_SALTBYTES)
    nonce = sodium.randombytes(sodium.crypto_secretbox_NONCEBYTES)
    box = sodium.crypto_secretbox(key.seed(), nonce, _box_key(passphrase, salt, OPSLIMIT, MEMLIMIT))
    doc = {"format": FORMAT, "public": key.public.hex(), "fingerprint": fingerprint(key.public), "kdf": KDF,
           "opslimit": OPSLIMIT, "memlimit": MEMLIMIT, "salt": salt.hex(), "nonce": nonce.hex(), "box": box.hex()}
    return (json.dumps(doc, indent=1) + "\n").encode()


def _field(doc: dict, name: str, size: int | None = None) -> bytes:
    try:
        value = bytes.fromhex(doc[name])
    except (KeyError, TypeError, ValueError):
        raise BackupError(f"not a Caravan key backup: its {name} is missing or not hex") from None
    if size is not None and len(value) != size:
        raise BackupError(f"not a Caravan key backup: its {name} is not {size} bytes")
    return value


def restore(data: bytes, passphrase: str) -> SigningKey:
    """The key a backup holds; BackupError for a file that is not one, or a wrong passphrase."""
    try:
        doc = json.loads(data)
    except (TypeError, ValueError):
        raise BackupError("not a Caravan key backup: the file is not JSON") from None
    if type(doc) is not dict or doc.get("format") != FORMAT or doc.get("kdf") != KDF:
        raise BackupError(f"not a Caravan key backup (format {FORMAT} with {KDF} expected)")
    ops, mem = doc.get("opslimit"), doc.get("memlimit")
    if type(ops) is not int or type(mem) is not int or not (OPS_RANGE[0] <= ops <= OPS_RANGE[1]
                                                            and MEM_RANGE[0] <= mem <= MEM_RANGE[1]):
        raise BackupError("not a Caravan key backup: its Argon2id limits are out of range")
    public, salt = _field(doc, "public", 32), _field(doc, "salt", sodium.crypto_pwhash_SALTBYTES)
    nonce, box = _field(doc, "nonce", sodium.crypto_secretbox_NONCEBYTES), _field(doc, "box")
    if type(passphrase) is not str or not passphrase:
        raise BackupError("restoring a backup needs its passphrase")
    try:
        seed = sodium.crypto_secretbox_open(box, nonce, _box_key(passphrase, salt, ops, mem))
    except nacl.exceptions.CryptoError:
        raise BackupError("wrong passphrase: it does not open this backup (or the file was changed)") from None
    try:
        key = SigningKey.from_seed(seed)
    except ValueError:
        raise BackupError("the backup holds no Ed25519 key seed") from None
    if key.public != public:
        raise BackupError(f"the backup's key is not {fingerprint(public)}, the key it names (the file was changed)")
    return key
