"""The tab's games, kept in its data folder (tab_store.data_dir(): IndexedDB behind IDBFS) so
that a reload, or a phone suspending the tab, does not lose a game: the tab's side of what
node/storage/store.py's GameStore is for a desktop node.

Per game a folder games/<game id hex>/ holds:
  genesis.bin   the signed genesis;
  meta.json     {"seat", "names", "broker"}: this tab's seat, the seats' names, the broker url;
  secrets.bin   wire {"secret": the per-game secret, "committed": the Player's committed
                values (Player.secrets())}, as the desktop's: no one else holds them;
  messages.log  every message this seat accepted or signed, in order, in the desktop's
                format (protocol/message_log.py: a magic line, then [4-byte length, 4-byte
                CRC-32, message] records);
  chat.jsonl    the table talk, as the desktop's (protocol/seat/chat.py records, one JSON line
                each, at most chat.MAX_FILE bytes: past that, rewritten with its newest lines);
  votes.bin     this seat's abandon vote kept across reloads, as the desktop's postbox node
                keeps it (protocol/seat/vote_memory.py: what it proposed, signed and took, and
                since when it holds its state);
  mailbox.json  on a turn-based table played through its postbox, the mailbox state
                (tab_mail_links: the envelopes' numbers, what was sent), as the desktop's.

A write lands in the in-memory file system at once; only `flush()` (tab_store.synced: the
whole folder to IndexedDB) makes it survive a reload. TabSeat flushes before any frame
leaves once it signed something, so a reload never makes the tab sign a second, different
message at a seq it already sent. On load a torn last record (a crash mid-write) is dropped;
any other damage is a GameFileError naming the file and the cause, never a traceback."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from protocol import games as engines, genesis as G, message_log, wire
from protocol.errors import Rejected
from protocol.seat import chat as talk, vote_memory

import tab_store

GAMES = "games"
CHAT = "chat.jsonl"


class NoSuchGame(LookupError, ValueError):
    """A game id this tab's store does not hold (or not one game): a refusal in one line (a
    ValueError, as the worker's refusals are)."""


class GameFileError(ValueError):
    """A stored game's file is missing or damaged: one line naming the file and the cause."""


def _root() -> Path:
    return tab_store.data_dir() / GAMES


def _write(path: Path, data: bytes) -> None:
    """Whole or not at all (a reload mid-write leaves the old file)."""
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)


class StoredGame:
    """One game's folder (see the module doc)."""

    def __init__(self, folder: Path):
        self.dir = folder
        self.game_id = bytes.fromhex(folder.name)

    # -- reading, each damaged file named
    def _read(self, name: str) -> bytes:
        path = self.dir / name
        try:
            return path.read_bytes()
        except FileNotFoundError:
            raise GameFileError(f"{path} is missing") from None
        except OSError as exc:
            raise GameFileError(f"cannot read {path}: {exc.strerror or exc}") from None

    def genesis(self) -> bytes:
        """The signed genesis, checked (it is this folder's game)."""
        path, raw = self.dir / "genesis.bin", self._read("genesis.bin")
        try:
            parsed = G.parse(raw)
        except Rejected as exc:
            raise GameFileError(f"{path} is damaged ({exc.reason})") from None
        if parsed.game_id != self.game_id:
            raise GameFileError(f"{path} holds another game's genesis")
        return raw

    def meta(self) -> dict[str, Any]:
        path = self.dir / "meta.json"
        try:
            meta = json.loads(self._read("meta.json"))
        except ValueError as exc:
            raise GameFileError(f"{path} is damaged (not JSON: {exc})") from None
        if type(meta) is not dict or type(meta.get("seat")) is not int or type(meta.get("names")) is not list:
            raise GameFileError(f"{path} is damaged (it needs a seat and the names)")
        return meta

    def secrets(self) -> dict[str, bytes]:
        """{"secret", "committed"}: the per-game secret and the Player's committed values."""
        path = self.dir / "secrets.bin"
        try:
            s = wire.decode(self._read("secrets.bin"))
        except wire.WireError as exc:
            raise GameFileError(f"{path} is damaged ({exc})") from None
        if type(s) is not dict or type(s.get("secret")) is not bytes or type(s.get("committed")) is not bytes:
            raise GameFileError(f"{path} is damaged (it needs the secret and the committed values)")
        return s

    def messages(self) -> list[bytes]:
        """The logged messages, a torn last record dropped (protocol/message_log.py); other
        damage is a GameFileError naming the file."""
        path = self.dir / "messages.log"
        if not path.exists():
            return []
        try:
            return message_log.parse(self._read("messages.log"))
        except message_log.NotALog:
            raise GameFileError(f"{path} is not a Caravan message log (bad header)") from None
        except message_log.LogDamaged as exc:
            raise GameFileError(f"{path} is damaged at offset {exc.offset} (a record fails its checksum or "
                                f"has a length of {exc.length} bytes, with more data after it)") from None

    def votes(self) -> vote_memory.VoteMemory:
        """The kept abandon vote (empty if none); GameFileError naming the file if damaged."""
        path = self.dir / vote_memory.FILE
        if not path.exists():
            return vote_memory.VoteMemory()
        try:
            return vote_memory.decode(self._read(vote_memory.FILE), str(path))
        except ValueError as exc:
            raise GameFileError(str(exc)) from None

    # -- writing (in memory until `flush`)
    def append(self, raw: bytes) -> None:
        """Add one message to the log; `flush` keeps it across a reload."""
        path = self.dir / "messages.log"
        with open(path, "ab") as fh:
            if fh.tell() == 0:
                fh.write(message_log.MAGIC)
            fh.write(message_log.record(raw))

    def save_committed(self, committed: bytes) -> bool:
        """Keep the Player's committed values (Player.secrets()); False if they were kept already."""
        s = self.secrets()
        if s["committed"] == committed:
            return False
        _write(self.dir / "secrets.bin", wire.encode({**s, "committed": committed}))
        return True

    def write_file(self, name: str, data: bytes) -> None:
        """Write a file of this game's folder whole (`flush` keeps it across a reload)."""
        _write(self.dir / name, data)

    def keep_votes(self, data: bytes) -> None:
        """Keep the abandon vote (VoteMemory.encode()) whole; `flush` keeps it across a reload."""
        _write(self.dir / vote_memory.FILE, data)

    def chat(self) -> bytes:
        """The kept table talk (b"" when there is none, or it cannot be read: talk is never
        worth refusing a game over)."""
        try:
            return (self.dir / CHAT).read_bytes()
        except OSError:
            return b""

    def keep_chat(self, line: bytes) -> None:
        """Append one line of talk (protocol/seat/chat.py `record_line`); past chat.MAX_FILE the
        file is rewritten with its newest lines, as the desktop's chat.jsonl."""
        path = self.dir / CHAT
        size = path.stat().st_size if path.exists() else 0
        if size + len(line) <= talk.MAX_FILE:
            with open(path, "ab") as fh:
                fh.write(line)
        else:
            _write(path, talk.newest_lines(self.chat() + line, talk.MAX_FILE // 2))

    async def flush(self) -> None:
        """Everything written so far to IndexedDB: it survives a reload once this returns."""
        await tab_store.synced()

    def summary(self) -> dict[str, Any]:
        """What the games list shows (nothing secret)."""
        g, meta = G.parse(self.genesis()), self.meta()
        self.secrets()                                       # checked: a game it cannot resume says so
        return {"game_id": self.game_id.hex(), "game": g.game, "title": engines.get(g.game).title,
                "pace": G.pace_text(g.pace, g.time_limit) if g.pace != G.LIVE else "",
                "seat": meta["seat"], "names": meta["names"], "broker": meta.get("broker"),
                "messages": len(self.messages())}


def create(genesis_raw: bytes, seat: int, secret: bytes, names: list[str], broker: str | None) -> StoredGame:
    """A new game's folder (ValueError if this game is stored already: resume it instead).
    The genesis is written last: a folder without it is no game (a reload mid-create)."""
    g = G.parse(genesis_raw)
    folder = _root() / g.game_id.hex()
    if (folder / "genesis.bin").exists():
        raise ValueError(f"game {g.game_id.hex()[:16]} is stored in this tab already: resume it (game_resume)")
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "messages.log").unlink(missing_ok=True)
    _write(folder / "secrets.bin", wire.encode({"secret": secret, "committed": wire.encode([])}))
    _write(folder / "meta.json", json.dumps({"seat": seat, "names": names, "broker": broker}).encode())
    _write(folder / "genesis.bin", genesis_raw)
    return StoredGame(folder)


def stored(game_id: bytes) -> bool:
    """Whether game `game_id` is kept in this tab (its genesis written: `create` is done)."""
    return (_root() / game_id.hex() / "genesis.bin").exists()


def load(game_id: str | bytes) -> StoredGame:
    """The stored game `game_id` (bytes, or its hex or a unique prefix of it): its files checked."""
    prefix = game_id.hex() if isinstance(game_id, bytes) else str(game_id).lower()
    if not prefix or any(c not in "0123456789abcdef" for c in prefix):
        raise NoSuchGame(f"{prefix[:20]!r} is not a game id (hex)")
    root = _root()
    found = []
    if root.exists():
        found = sorted(p for p in root.glob(f"{prefix}*") if (p / "genesis.bin").exists())
    if not found:
        raise NoSuchGame(f"no stored game {prefix[:16]!r} in this browser (a game is kept in the browser "
                         "that joined it: open it from there)")
    if len(found) > 1:
        raise NoSuchGame(f"{prefix!r} matches {len(found)} stored games; give more of the id")
    game = StoredGame(found[0])
    game.genesis(), game.meta(), game.secrets(), game.messages()      # each damaged file named now
    return game


def games() -> list[dict[str, Any]]:
    """A summary of each stored game; a damaged one says which file and why instead."""
    root = _root()
    out = []
    for folder in sorted(root.iterdir()) if root.exists() else []:
        if not (folder / "genesis.bin").exists():
            continue
        try:
            out.append(StoredGame(folder).summary())
        except (GameFileError, ValueError) as exc:
            out.append({"game_id": folder.name, "error": str(exc)})
    return out
