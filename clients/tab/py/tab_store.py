"""The tab's own data, kept in the browser's IndexedDB so that it survives a reload: the
worker mounts Emscripten's IDBFS at a data folder, loads it from IndexedDB before Python
starts, and `synced()` writes it back (after each write). First in it: the tab's identity
key (its 32-byte seed, made here from libsodium's randomness; it never leaves the tab but
inside an encrypted backup, tab_backup); then the games the tab plays (tab_games: games/).

Ops for the page (tab_net.ASYNC_OPS), their arguments as JSON: "identity" (the key's
fingerprint, made on first use), "backup_make" (the backup file) and "backup_restore" (a
backup file's text and its passphrase)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import json

from protocol.identity import SigningKey, fingerprint

import tab_backup

KEY_FILE = "identity.key"
_key: SigningKey | None = None


def _js() -> Any:
    import _caravan_store  # type: ignore[import-not-found]  # registered by worker.js
    return _caravan_store


class StoreError(Exception):
    """The tab's data cannot be used (another tab of this browser holds it): one line."""


def data_dir() -> Path:
    store = _js()
    if store.busy:
        raise StoreError(str(store.busy))
    return Path(str(store.dir))


async def synced() -> None:
    """Write the data folder back to IndexedDB (what was written is kept across a reload)."""
    await _js().sync()


def _write(path: Path, data: bytes) -> None:
    """Write whole or not at all (a reload mid-write leaves the old file)."""
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def identity() -> SigningKey:
    """The tab's key: read from the data folder, or made now (libsodium's randomness) and
    written there; the caller syncs (the ops below do)."""
    global _key
    if _key is None:
        path = data_dir() / KEY_FILE
        if path.exists():
            _key = SigningKey.from_seed(path.read_bytes())
        else:
            _key = SigningKey.generate()
            _write(path, _key.seed())
    return _key


def _described(key: SigningKey) -> dict[str, Any]:
    return {"fingerprint": fingerprint(key.public), "public": key.public.hex()}


async def op_identity(_: bytes | None) -> dict[str, Any]:
    key = identity()
    await synced()
    return _described(key)


def _args(data: bytes | None) -> dict[str, Any]:
    try:
        args = json.loads(data or b"{}")
    except ValueError:
        args = None
    if type(args) is not dict:
        raise tab_backup.BackupError("the arguments must be a JSON object")
    return args


async def op_backup_make(data: bytes | None) -> dict[str, Any]:
    """{passphrase}: the backup file's text and a name to save it under."""
    key = identity()
    text = tab_backup.make(key, _args(data).get("passphrase")).decode()
    return {"file": text, "name": f"caravan-key-{fingerprint(key.public)}.json", **_described(key)}


async def op_backup_restore(data: bytes | None) -> dict[str, Any]:
    """{file (its text), passphrase, replace?}: this tab's key becomes the backup's (a tab
    that has another key keeps it unless `replace`)."""
    global _key
    args = _args(data)
    if type(args.get("file")) is not str:
        raise tab_backup.BackupError("restoring needs the backup file")
    key = tab_backup.restore(args["file"].encode(), args.get("passphrase"))
    current = identity()
    if current.public != key.public and not args.get("replace"):
        raise tab_backup.BackupError(f"this tab already has key {fingerprint(current.public)}; restoring "
                                     f"{fingerprint(key.public)} would replace it (say so to replace it)")
    _write(data_dir() / KEY_FILE, key.seed())
    _key = key
    await synced()
    return _described(key)


OPS = {"identity": op_identity, "backup_make": op_backup_make, "backup_restore": op_backup_restore}
