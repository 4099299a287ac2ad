"""On-disk state of a node: its identity key, and per game an append-only message log,
the genesis, the peers' addresses and the per-game secrets (0600).

Every message is appended and flushed before it is sent or acted on, so a node killed
at any point (SIGKILL included) restarts from what it had; a torn last frame from a
crash mid-write is cut off on load.
"""

from __future__ import annotations

import json
import os
import struct
from pathlib import Path
from typing import Any

from protocol import transcript, wire
from protocol.identity import SigningKey


def default_data_dir() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(base) / "caravan"


def _write_private(path: Path, data: bytes) -> None:
    """Atomically replace `path` with `data`, readable by the owner only."""
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.write(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, path)


def load_identity(data_dir: Path) -> SigningKey:
    """The node's key, created (0600) on first use."""
    data_dir.mkdir(parents=True, exist_ok=True)
    path = data_dir / "identity.key"
    if path.exists():
        return SigningKey.from_seed(path.read_bytes())
    key = SigningKey.generate()
    _write_private(path, key.seed())
    return key


class GameStore:
    """One game's files under <data-dir>/games/<game id hex>/."""

    def __init__(self, data_dir: Path, game_id: bytes):
        self.dir = data_dir / "games" / game_id.hex()
        self._log = None

    @classmethod
    def create(cls, data_dir: Path, genesis_raw: bytes, game_id: bytes, secrets: dict[str, Any],
               peers: dict[str, Any]) -> "GameStore":
        store = cls(data_dir, game_id)
        store.dir.mkdir(parents=True, exist_ok=True)
        os.chmod(store.dir, 0o700)
        (store.dir / "genesis.bin").write_bytes(genesis_raw)
        store.save_secrets(secrets)
        store.save_peers(peers)
        return store

    @classmethod
    def find(cls, data_dir: Path, prefix: str) -> "GameStore":
        """The stored game whose id starts with `prefix` (hex); raises LookupError."""
        games = sorted((data_dir / "games").glob(f"{prefix.lower()}*")) if prefix else []
        if not games:
            raise LookupError(f"no stored game with id {prefix!r} under {data_dir / 'games'}")
        if len(games) > 1:
            raise LookupError(f"{prefix!r} matches {len(games)} games; give more of the id")
        return cls(data_dir, bytes.fromhex(games[0].name))

    def exists(self) -> bool:
        return (self.dir / "genesis.bin").exists()

    def genesis(self) -> bytes:
        return (self.dir / "genesis.bin").read_bytes()

    # -- secrets and peers
    def save_secrets(self, secrets: dict[str, Any]) -> None:
        _write_private(self.dir / "secrets.bin", wire.encode(secrets))

    def secrets(self) -> dict[str, Any]:
        return wire.decode((self.dir / "secrets.bin").read_bytes())

    def save_peers(self, peers: dict[str, Any]) -> None:
        (self.dir / "peers.json").write_text(json.dumps(peers, indent=1, sort_keys=True))

    def peers(self) -> dict[str, Any]:
        return json.loads((self.dir / "peers.json").read_text())

    # -- the message log
    def messages(self, repair: bool = True) -> list[bytes]:
        """Every stored message, in the order it was stored; cuts off a torn last frame
        (`repair=False`: only skips it, for readers while a node may be writing)."""
        path = self.dir / "messages.log"
        if not path.exists():
            return []
        data = path.read_bytes()
        out, pos = [], 0
        while pos + 4 <= len(data):
            (n,) = struct.unpack_from(">I", data, pos)
            if pos + 4 + n > len(data):
                break
            out.append(data[pos + 4:pos + 4 + n])
            pos += 4 + n
        if pos != len(data) and repair:
            with open(path, "r+b") as fh:
                fh.truncate(pos)
        return out

    def append(self, raw: bytes) -> None:
        """Append and flush one message (before it is sent or acted upon)."""
        if self._log is None:
            self._log = open(self.dir / "messages.log", "ab", buffering=0)
        self._log.write(transcript.frame(raw))

    def write_transcript(self, genesis_raw: bytes, log: list[bytes]) -> Path:
        path = self.dir / "transcript.caravan"
        tmp = path.with_name("transcript.caravan.tmp")
        tmp.write_bytes(transcript.dump(genesis_raw, log))
        os.replace(tmp, path)
        return path

    def close(self) -> None:
        if self._log is not None:
            self._log.close()
            self._log = None
