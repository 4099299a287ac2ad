"""What `caravan games` lists: the games kept under a data directory and where each stands.

Read-only: a node may be writing a game's log at the same moment, so a torn last frame is
skipped here, never cut off."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from clients import narrate
from protocol import games, genesis as G, wire
from protocol.errors import Rejected
from protocol.identity import SigningKey, fingerprint
from protocol.need import EngineFault
from protocol.session import Session
from protocol.verify import verify_bytes

from .store import BODY_FILE, GameStore


@dataclass
class StoredGame:
    game_id: str
    game: str
    seats: int
    state: str                        # playing | finished | abandoned | damaged
    detail: str                       # e.g. "waiting for a move from seat 1"
    my_seat: int | None = None
    names: list[str] = field(default_factory=list)      # per seat: a name if known, else the key fingerprint
    waiting_for: list[int] = field(default_factory=list)
    my_move: bool = False             # the game waits for this seat's person (a move, a secret choice)
    result: dict[str, Any] | None = None
    messages: int = 0
    transcript: str | None = None
    directory: str = ""
    pace: str = G.LIVE                # live | turn-based (its time_limit is then the time per move)
    time_limit: int = 0               # seconds of silence before the others may abandon a seat (0: none)

    def to_json(self) -> dict[str, Any]:
        return {"type": "game", **asdict(self)}

    def describe(self) -> str:
        seat = f", you are seat {self.my_seat}" if self.my_seat is not None else ""
        where = self.transcript or f"{self.directory} (no transcript yet)"
        pace = f", {G.pace_text(self.pace, self.time_limit)}" if self.pace != G.LIVE else ""
        return (f"{self.game_id[:16]}  {self.game}, {self.seats} seats{pace}{seat}: {self.state} — {self.detail}\n"
                f"    seats: {', '.join(f'{i} {n}' for i, n in enumerate(self.names))}\n"
                f"    {where}")


def _my_key(data_dir: Path) -> bytes | None:
    path = data_dir / "identity.key"
    try:
        return SigningKey.from_seed(path.read_bytes()).public if path.exists() else None
    except (OSError, ValueError):
        return None


def _names(directory: Path, genesis: G.Genesis) -> list[str]:
    """Per seat: the player's name where the store keeps one (peers.json "names"), else the
    key's fingerprint."""
    names: dict[str, str] = {}
    try:
        names = {str(k): str(v) for k, v in (json.loads((directory / "peers.json").read_text())
                                              .get("names") or {}).items()}
    except (OSError, ValueError, AttributeError):
        pass
    return [names.get(str(i)) or fingerprint(k) for i, k in enumerate(genesis.seats)]


def _signed_only(directory: Path, my_key: bytes | None) -> StoredGame:
    """A game this seat signed the genesis of but stopped before storing it (GameStore.prepare)."""
    gid = directory.name
    store = GameStore(directory.parent.parent, bytes.fromhex(gid))
    body = store.signed_body()
    try:
        fields = wire.decode(body) if body is not None else None
        game, seats = str(fields["game"]), list(fields["seats"])
    except (wire.WireError, TypeError, KeyError):
        return StoredGame(gid, "?", 0, "damaged", f"genesis.bin and a readable {BODY_FILE} are missing",
                          directory=str(directory))
    entry = StoredGame(gid, game, len(seats), "playing", "", directory=str(directory),
                       names=[fingerprint(k) for k in seats])
    if my_key in seats:
        entry.my_seat = seats.index(my_key)
    pid = store.running_in()
    entry.detail = ("this seat signed the genesis and stopped before storing it; " +
                    (f"running in process {pid}" if pid is not None else
                     f"continue with: caravan resume {gid[:16]} (it takes the genesis back from another seat)"))
    return entry


def describe(directory: Path, my_key: bytes | None) -> StoredGame:
    """Where one stored game stands (never raises for a damaged store)."""
    gid = directory.name
    if not (directory / "genesis.bin").exists() and (directory / BODY_FILE).exists():
        return _signed_only(directory, my_key)
    try:
        genesis = G.parse((directory / "genesis.bin").read_bytes())
    except (OSError, Rejected, ValueError) as exc:
        return StoredGame(gid, "?", 0, "damaged", f"unreadable genesis: {exc}", directory=str(directory))
    entry = StoredGame(gid, genesis.game, len(genesis.seats), "playing", "", directory=str(directory),
                       names=_names(directory, genesis), pace=genesis.pace, time_limit=genesis.time_limit)
    if my_key in genesis.seats:
        entry.my_seat = genesis.seats.index(my_key)
    transcript = directory / "transcript.caravan"
    if transcript.exists():
        entry.transcript = str(transcript)
        report = verify_bytes(transcript.read_bytes())
        entry.messages, entry.waiting_for = report.messages, report.waiting_for
        if report.ok:
            entry.state, entry.result = "finished", report.result
            entry.detail = "won by " + ", ".join(f"seat {w}" for w in report.result.get("winners", []))
            return entry
        if report.valid and report.abandoned_by:
            entry.state, entry.detail = "abandoned", report.error["reason"]
            return entry
    try:
        session = Session(genesis, games.get(genesis.game))
    except (KeyError, Rejected, EngineFault) as exc:
        entry.state, entry.detail = "damaged", f"cannot replay: {exc}"
        return entry
    for raw in GameStore(directory.parent.parent, bytes.fromhex(gid)).messages(repair=False):
        try:
            session.receive(raw)
        except (Rejected, EngineFault):
            continue                                   # the node skips these on replay too
    entry.messages, entry.waiting_for = len(session.log), session.waiting_for()
    if session.complete:
        entry.state, entry.result = "finished", session.result()
        entry.detail = "finished; caravan resume writes the transcript"
        return entry
    who = narrate.awaited([], entry.waiting_for, session.need_words(), session.needs_a_person(), entry.my_seat)
    entry.my_move = session.needs_a_person() and entry.my_seat in entry.waiting_for
    pid = GameStore(directory.parent.parent, bytes.fromhex(gid)).running_in()
    entry.detail = (f"waiting for {who}; running in process {pid}" if pid is not None
                    else f"waiting for {who}; continue with: caravan resume {gid[:16]}")
    return entry


def stored_games(data_dir: Path) -> list[StoredGame]:
    """Every game under data_dir/games, oldest first."""
    root = data_dir / "games"
    if not root.is_dir():
        return []
    first = {d: d / "genesis.bin" if (d / "genesis.bin").exists() else d / BODY_FILE for d in root.iterdir()
             if d.is_dir()}
    dirs = [d for d, f in first.items() if f.exists()]
    key = _my_key(data_dir)
    return [describe(d, key) for d in sorted(dirs, key=lambda d: first[d].stat().st_mtime)]
