"""On-disk state of a node: its identity key, and per game an append-only message log,
the genesis, the peers' addresses and the per-game secrets (0600).

The message log (protocol/message_log.py: a magic header, then records of [4-byte length,
4-byte CRC-32, message]) has each record written whole and checked before it is sent or acted
on (so it survives the process), and fsync'd behind the game by `sync` in a worker thread (so
it survives the machine, once that returns: specs/node.md, "Store"). On load a torn tail (a
crash or a full disk mid-write) is cut; a damaged record anywhere else stops the node with the
file and offset named, never a silent truncation. A damaged genesis, secrets, identity or peers
file gives one line that names the file and what to do.
"""

from __future__ import annotations

import errno
import fcntl
import json
import logging
import os
from pathlib import Path
from typing import Any

from protocol import genesis as G, message_log, transcript, wire
from protocol.errors import Rejected
from protocol.identity import SigningKey

from .files import NOFOLLOW, fsync_dir as _fsync_dir, write_all as _write_all, write_atomic

BODY_FILE = "genesis-body.bin"
"""The genesis body this seat signed, kept from before its signature leaves it until the
signed genesis is stored (`GameStore.prepare`)."""
log = logging.getLogger("caravan.store")


class StoreError(ValueError):
    """A stored file is missing, damaged or cannot be written; the text says which and
    what to do (one line, for the user)."""
    resumable = True
    """Whether `caravan resume` can continue the game once the cause is gone (the CLI then
    says so); False where resuming cannot help."""


class CannotContinue(StoreError):
    """This seat cannot continue from this data directory as it is (no key for the seat, a
    secret that is not the seat's): resuming would fail the same way."""
    resumable = False


class StoreWriteError(StoreError):
    """A write failed (disk full, I/O error): nothing more may be signed or sent."""


class GameLocked(CannotContinue):
    """Another live process runs this game from the same data directory (it is running
    already: resuming is what was just refused)."""


def default_data_dir() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(base) / "caravan"


def write_private(path: Path, data: bytes) -> None:
    """Atomically replace `path` with `data`, readable by the owner only, following no link
    planted there (node/storage/files.py)."""
    try:
        write_atomic(path, data)
    except OSError as exc:
        raise StoreWriteError(f"cannot write {path}: {exc.strerror or exc}") from None


def load_identity(data_dir: Path) -> SigningKey:
    """The node's key, created (0600) on first use."""
    data_dir.mkdir(parents=True, exist_ok=True)
    path = data_dir / "identity.key"
    if path.exists():
        seed = path.read_bytes()
        if len(seed) != 32:
            raise CannotContinue(f"{path} is damaged ({len(seed)} bytes, not a 32-byte key); restore it from a "
                             "backup: games signed with it cannot be continued without it")
        return SigningKey.from_seed(seed)
    key = SigningKey.generate()
    write_private(path, key.seed())
    return key


def parse_log(data: bytes, path: Path | str = "messages.log") -> tuple[list[bytes], int]:
    """(messages, length of the good part) of a message log's bytes (protocol/message_log.py
    `scan`: a torn tail ends the good part); damage raises StoreError naming the offset."""
    try:
        return message_log.scan(data)
    except message_log.NotALog:
        if len(data) < len(message_log.MAGIC):
            raise StoreError(f"{path} is not a Caravan message log (too short and wrong header)") from None
        raise StoreError(f"{path} is not a Caravan message log (bad header at offset 0); move it away and "
                         "resume: your messages are recovered from the peers") from None
    except message_log.LogDamaged as exc:
        raise StoreError(f"{path} is damaged at offset {exc.offset} ({exc.problem}, with more data after it); "
                         "move the file away and resume: your messages are recovered from the peers") from None


_LOCKS_HELD: set[Path] = set()
"""Game locks this process holds (a lock is per process: an flock on a second descriptor of
the same file would refuse its own holder)."""


class GameStore:
    """One game's files under <data-dir>/games/<game id hex>/."""

    def __init__(self, data_dir: Path, game_id: bytes):
        self.dir = data_dir / "games" / game_id.hex()
        self._log_fd: int | None = None
        self._lock_fd: int | None = None
        self._log_size: int | None = None
        """The log's length as this process last read or wrote it (None: not read yet)."""
        self._unsynced = False
        """Records were written since the last fsync began."""

    @classmethod
    def create(cls, data_dir: Path, genesis_raw: bytes, game_id: bytes, secrets: dict[str, Any],
               peers: dict[str, Any]) -> "GameStore":
        store = cls(data_dir, game_id)
        store.dir.mkdir(parents=True, exist_ok=True)
        os.chmod(store.dir, 0o700)
        store.save_secrets(secrets)
        store.save_peers(peers)
        write_private(store.dir / "genesis.bin", genesis_raw)     # last: the store is whole once it exists
        store.drop_body()
        return store

    @classmethod
    def prepare(cls, data_dir: Path, body: bytes, game_id: bytes, secrets: dict[str, Any],
                peers: dict[str, Any]) -> "GameStore":
        """Before this seat's genesis signature leaves it: what it needs to take its seat back
        if it dies before the signed genesis is stored (the body it signs, its secrets, how to
        reach the others), written and fsync'd. `caravan resume` then fetches the signed
        genesis from another seat's node (specs/node.md "Store")."""
        store = cls(data_dir, game_id)
        store.dir.mkdir(parents=True, exist_ok=True)
        os.chmod(store.dir, 0o700)
        store.save_secrets(secrets)
        store.save_peers(peers)
        write_private(store.dir / BODY_FILE, body)
        return store

    def signed_body(self) -> bytes | None:
        """The genesis body this seat signed, kept until the signed genesis is stored (None
        without one, or when it does not belong to this game)."""
        try:
            body = (self.dir / BODY_FILE).read_bytes()
        except OSError:
            return None
        return body if G.game_id_of(body).hex() == self.dir.name else None

    def save_genesis(self, raw: bytes) -> None:
        """Store the signed genesis fetched back for a prepared store (checked by the caller)."""
        write_private(self.dir / "genesis.bin", raw)
        self.drop_body()

    def drop_body(self) -> None:
        """The signed genesis is stored: the body kept for it is no longer needed (a small disk
        has room for one file fewer)."""
        try:
            (self.dir / BODY_FILE).unlink(missing_ok=True)
        except OSError as exc:
            log.warning("cannot remove %s: %s", self.dir / BODY_FILE, exc.strerror or exc)

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

    def idle_for(self) -> float:
        """Seconds since the message log last changed (0 without one): how long a resumed
        node was away from its game, near enough."""
        import time
        try:
            return max(0.0, time.time() - (self.dir / "messages.log").stat().st_mtime)
        except OSError:
            return 0.0

    def running_in(self) -> str | None:
        """The process id (as written in `lock`) of the live process running this game, if
        any: a read-only probe, for `caravan games`."""
        path = self.dir / "lock"
        if path in _LOCKS_HELD:
            return str(os.getpid())
        try:
            fd = os.open(path, os.O_RDONLY)
        except OSError:
            return None
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
            return None                                 # nobody holds it
        except OSError:
            return os.pread(fd, 32, 0).decode("ascii", "replace").strip() or "?"
        finally:
            os.close(fd)                                # (drops the probe's shared lock too)

    def lock(self) -> None:
        """Hold this game's lock (`lock`, with this process's id in it) until `close` or the
        process ends: a second process on the same game would sign messages this one does
        not know of, i.e. equivocate for an honest seat (issue 27). The OS drops an flock when
        its holder dies, so a killed node's lock is simply taken over. Raises GameLocked."""
        path = self.dir / "lock"
        if self._lock_fd is not None or path in _LOCKS_HELD:
            return                                      # this process holds it already
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | NOFOLLOW, 0o600)     # never a planted link's target
        except OSError as exc:
            raise StoreError(f"cannot open {path}: {exc.strerror or exc}") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            holder = os.pread(fd, 32, 0).decode("ascii", "replace").strip() or "?"
            os.close(fd)
            if exc.errno not in (errno.EWOULDBLOCK, errno.EACCES):
                raise StoreError(f"cannot lock {path}: {exc.strerror or exc}") from None
            raise GameLocked(f"game {self.dir.name[:16]} is already running in process {holder} on this data "
                             f"directory; stop that process first (two processes on one game would make "
                             f"this seat sign two different messages)") from None
        try:
            os.ftruncate(fd, 0)
            _write_all(fd, f"{os.getpid()}\n".encode())
        except OSError as exc:
            os.close(fd)
            raise StoreWriteError(f"cannot write {path}: {exc.strerror or exc}") from None
        self._lock_fd = fd
        _LOCKS_HELD.add(path)

    def _read(self, name: str) -> bytes:
        path = self.dir / name
        try:
            return path.read_bytes()
        except FileNotFoundError:
            raise StoreError(f"{path} is missing") from None
        except OSError as exc:
            raise StoreError(f"cannot read {path}: {exc.strerror or exc}") from None

    def genesis(self) -> bytes:
        """The signed genesis record, checked (StoreError if damaged)."""
        path = self.dir / "genesis.bin"
        if not path.exists() and self.signed_body() is not None:
            raise StoreError(f"{path} is missing: this seat signed the genesis but stopped before it was stored; "
                             f"caravan resume {self.dir.name[:16]} takes it back from another seat's node")
        raw = self._read("genesis.bin")
        try:
            parsed = G.parse(raw)
        except Rejected as exc:
            raise StoreError(f"{path} is damaged ({exc.reason}); copy genesis.bin from another player's "
                             f"games/{self.dir.name}/ and resume") from None
        if parsed.game_id.hex() != self.dir.name:
            raise StoreError(f"{path} holds another game's genesis; copy genesis.bin from another player's "
                             f"games/{self.dir.name}/ and resume")
        return raw

    # -- secrets and peers
    def save_secrets(self, secrets: dict[str, Any]) -> None:
        write_private(self.dir / "secrets.bin", wire.encode(secrets))

    def secrets(self) -> dict[str, Any]:
        path = self.dir / "secrets.bin"
        if not path.exists():
            raise CannotContinue(f"{path} is missing; it holds this seat's per-game secret, which no one else has: "
                                 "restore it from a backup, or this seat cannot continue (the others can abandon it)")
        try:
            s = wire.decode(self._read("secrets.bin"))
            ok = type(s) is dict and type(s.get("secret")) is bytes and type(s.get("committed")) is bytes
        except wire.WireError:
            ok = False
        if not ok:
            raise CannotContinue(f"{path} is damaged; it holds this seat's per-game secret, which no one else has: "
                             "restore it from a backup, or this seat cannot continue (the others can abandon it)")
        return s

    def save_peers(self, peers: dict[str, Any]) -> None:
        write_private(self.dir / "peers.json", json.dumps(peers, indent=1, sort_keys=True).encode())

    def peers(self) -> dict[str, Any]:
        path = self.dir / "peers.json"
        try:
            p = json.loads(self._read("peers.json"))
            ok = (type(p) is dict and type(p.get("peers")) is dict
                  and all(type(a) is list and len(a) == 2 for a in p["peers"].values()))
        except ValueError:
            ok = False
        if not ok:
            raise StoreError(f"{path} is damaged; copy it from a backup, or write "
                             '{"peers": {"SEAT": ["HOST", PORT], ...}, "port": YOUR_PORT} and resume')
        return p

    # -- the message log
    def messages(self, repair: bool = True) -> list[bytes]:
        """Every stored message, in the order it was stored; cuts off a torn tail (`repair=False`:
        only skips it, for readers while a node may be writing) and raises StoreError for a
        damaged record elsewhere."""
        path = self.dir / "messages.log"
        if not path.exists():
            if repair:
                self._log_size = 0
            return []
        data = self._read("messages.log")
        out, good = parse_log(data, path)
        if repair:
            self._log_size = good
            self._unsynced = bool(out)      # a killed process's last records: maybe in the page cache only
        if good != len(data) and repair:
            try:
                with open(path, "r+b") as fh:
                    fh.truncate(good)
                    os.fsync(fh.fileno())
            except OSError as exc:
                raise StoreError(f"cannot cut the torn tail of {path}: {exc.strerror or exc}") from None
        return out

    def _open_log(self) -> int:
        path = self.dir / "messages.log"
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | NOFOLLOW, 0o600)
        try:
            if os.fstat(fd).st_size == 0:
                _write_all(fd, message_log.MAGIC)
                os.fsync(fd)
                _fsync_dir(self.dir)
                if self._log_size in (None, 0):
                    self._log_size = len(message_log.MAGIC)
        except OSError:
            os.close(fd)
            raise
        return fd

    def _check_unchanged(self, fd: int) -> None:
        """The log holds exactly what this process read and wrote: another writer (a second
        process on the same game) may have stored messages of this seat that this one does
        not know, so signing on would reuse their sequence numbers."""
        size = os.fstat(fd).st_size
        if self._log_size is not None and size != self._log_size:
            raise StoreWriteError(f"{self.dir / 'messages.log'} was changed by another process ({size} bytes, "
                                  f"{self._log_size} expected); nothing more is signed — stop the other "
                                  f"process, then run caravan resume {self.dir.name[:16]}")

    def open_log(self) -> None:
        """Open (and on first use create, fsync'd with its directory) the log for appending:
        done when the node starts, so that no fsync waits on a game's first message."""
        try:
            if self._log_fd is None:
                self._log_fd = self._open_log()
        except OSError as exc:
            raise self._write_error(exc) from None

    def append(self, raw: bytes, own: bool = False) -> None:
        """Append one message, written whole and checked (in the page cache: a killed process
        loses nothing) but not fsync'd: `sync` does that behind the game, covering every
        record before it (specs/node.md "Durability guarantees"). An `own` message (this
        node's, about to be sent) first checks that no other process wrote to the log.
        Raises StoreWriteError (disk full, I/O error): then sign nothing more."""
        try:
            if self._log_fd is None:
                self._log_fd = self._open_log()
            if own:
                self._check_unchanged(self._log_fd)
            record = message_log.record(raw)
            _write_all(self._log_fd, record)
            self._unsynced = True
            if self._log_size is not None:
                self._log_size += len(record)
        except OSError as exc:
            raise self._write_error(exc) from None

    def sync(self) -> bool:
        """fsync every record written so far (thread-safe against `append` from the event
        loop: a record written meanwhile is left for the next call). False if there was
        nothing to sync. Raises StoreWriteError."""
        if not self._unsynced:
            return False
        self._unsynced = False
        fd = self._log_fd
        try:
            if fd is not None:
                os.fsync(fd)
            else:                                       # records read back, none written yet
                fd = os.open(self.dir / "messages.log", os.O_RDONLY)
                try:
                    os.fsync(fd)
                finally:
                    os.close(fd)
        except OSError as exc:
            self._unsynced = True
            raise self._write_error(exc) from None
        return True

    def _write_error(self, exc: OSError) -> StoreWriteError:
        """The line a failed write of the log stops the node with: the remedy said is the one
        for the cause (a full disk, a link planted at the log's name, no right to write)."""
        remedy = {errno.ENOSPC: "free some space", errno.EDQUOT: "free some space",
                  errno.ELOOP: f"remove the link at {self.dir / 'messages.log'} (it is not the node's)",
                  errno.EACCES: "give this user the right to write there",
                  errno.EROFS: "make the disk writable"}.get(exc.errno, "fix that")
        return StoreWriteError(f"cannot write to {self.dir / 'messages.log'}: {exc.strerror or exc}; "
                               f"nothing more is signed — {remedy} and run caravan resume {self.dir.name[:16]}")

    def write_transcript(self, genesis_raw: bytes, log: list[bytes]) -> Path:
        """Write the transcript, unless the one already there says more (see `_keeps`)."""
        path = self.dir / "transcript.caravan"
        data = transcript.dump(genesis_raw, log)
        try:
            old = path.read_bytes()
        except OSError:
            old = None
        if old is not None and old != data and _keeps(old, data):
            return path
        write_private(path, data)
        os.chmod(path, 0o644)
        return path

    def close(self) -> None:
        """Sync and close the log (a failed last fsync is logged: the node is stopping, and
        what it lost is fetched back from the peers on resume), and release the lock."""
        if self._log_fd is not None:
            try:
                self.sync()
            except StoreWriteError as exc:
                log.error("%s", exc)
            os.close(self._log_fd)
            self._log_fd = None
        if self._lock_fd is not None:
            os.close(self._lock_fd)                     # releases the flock
            self._lock_fd = None
            _LOCKS_HELD.discard(self.dir / "lock")


def _standing(data: bytes) -> tuple[int, int]:
    """(rank, messages) of a transcript: 2 finished, 1 abandoned, 0 unfinished, -1 invalid."""
    from protocol.verify import verify_bytes

    report = verify_bytes(data)
    if not report.valid:
        return -1, 0
    return (2 if report.complete else 1 if report.abandoned_by else 0), report.messages


def _keeps(old: bytes, new: bytes) -> bool:
    """Whether a stored transcript wins over a new one: a finished game over anything less,
    an abandoned one over an unfinished one, and an unfinished one over a shorter unfinished
    one — a node that knows less (a lost log, a stale process) never erases what a game
    reached. Between two abandon records the node's own rule (the earliest state) decides."""
    (old_rank, old_len), (new_rank, new_len) = _standing(old), _standing(new)
    if old_rank != new_rank:
        return old_rank > new_rank
    return old_rank in (0, 2) and old_len > new_len
