"""`caravan record` and the home's record page: the transcripts kept under a data directory,
read for clients/record.py (which verifies each and computes the record).

Read-only: nothing here writes to the data directory (no key is created: without one the
record has ratings but no "you"). The transcripts are the finished games'
(games/GAME_ID/transcript.caravan, with the names the lobby gave each seat in that game's
peers.json) and the watched ones (watched/*.caravan, no names)."""

from __future__ import annotations

import argparse
import json
import sys
import threading
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .checks import UsageError
from .tools import EXIT_FAILED, EXIT_OK, data_dir
from ..app.output import plain

if TYPE_CHECKING:
    from clients.record import Played, Skipped

_CACHE: dict[tuple, Played | Skipped] = {}
_LOCK = threading.Lock()
"""Verified transcripts by (path, size, mtime, peers.json's mtime): the home asks again and again."""


class IdentityError(Exception):
    """The data directory's identity.key is there but is not a key."""


def my_key(directory: Path) -> bytes | None:
    """This user's public key (None when there is no identity.key yet)."""
    from protocol.identity import SigningKey

    path = directory / "identity.key"
    if not path.exists():
        return None
    try:
        seed = path.read_bytes()
    except OSError as exc:
        raise IdentityError(f"cannot read {path}: {exc.strerror or exc}") from None
    if len(seed) != 32:
        raise IdentityError(f"{path} is damaged ({len(seed)} bytes, not a 32-byte key)")
    return SigningKey.from_seed(seed).public


def my_name(directory: Path) -> str:
    """The name chosen on the home (home.json), or ""."""
    try:
        name = json.loads((directory / "home.json").read_text()).get("name")
    except (OSError, ValueError, AttributeError):
        return ""
    return name if isinstance(name, str) else ""


def _names(game_dir: Path) -> dict[int, str]:
    try:
        names = json.loads((game_dir / "peers.json").read_text()).get("names") or {}
        return {int(k): str(v) for k, v in names.items() if str(k).isdigit()}
    except (OSError, ValueError, AttributeError):
        return {}


def transcripts(directory: Path) -> list[tuple[Path, Path | None]]:
    """(transcript, the game folder holding its names or None) for every transcript kept."""
    found: list[tuple[Path, Path | None]] = []
    games = directory / "games"
    if games.is_dir():
        found += [(d / "transcript.caravan", d) for d in sorted(games.iterdir())
                  if d.is_dir() and (d / "transcript.caravan").is_file()]
    watched = directory / "watched"
    if watched.is_dir():
        found += [(f, None) for f in sorted(watched.glob("*.caravan")) if f.is_file()]
    return found


def _read(path: Path, game_dir: Path | None) -> Played | Skipped:
    from clients.record import Skipped, Source, read          # not for every node's parser: issue 31

    try:
        stat = path.stat()
        peers = (game_dir / "peers.json").stat().st_mtime_ns if game_dir and (game_dir / "peers.json").exists() else 0
    except OSError as exc:
        return Skipped(str(path), f"cannot read it: {exc.strerror or exc}")
    key = (str(path), stat.st_size, stat.st_mtime_ns, peers)
    with _LOCK:
        if key in _CACHE:
            return _CACHE[key]
    try:
        data = path.read_bytes()
    except OSError as exc:
        return Skipped(str(path), f"cannot read it: {exc.strerror or exc}")
    found = read(Source(str(path), data, _names(game_dir) if game_dir else {}, stat.st_mtime))
    with _LOCK:
        _CACHE[key] = found
    return found


def record_of(directory: Path) -> dict[str, Any]:
    """The record of the user whose data directory this is (raises IdentityError)."""
    from clients.record import build

    me = my_key(directory)
    return build([_read(path, game_dir) for path, game_dir in transcripts(directory)], me, my_name(directory))


# ---------------------------------------------------------------------- the command
def add_parser(sub: argparse._SubParsersAction) -> None:
    r = sub.add_parser("record", help="your record: games with each friend, results and ratings, from verified "
                                      "transcripts",
                       description="Read every transcript kept in the data directory (your finished games and "
                                   "the ones you watched), verify each, and print per friend (by key, shown by "
                                   "the name they use) the games you played together, your wins, losses and "
                                   "draws against them and when you last played, and everyone's Plackett-Luce "
                                   "rating (openskill, rated in game-id order, so anyone holding the same "
                                   "transcripts gets the same numbers). A transcript that does not verify, or "
                                   "a game that did not finish, is listed as skipped with the reason, never "
                                   "counted. Exit 0: printed (also with no games); 1: the data directory's key "
                                   "cannot be read; 2: bad usage, or --data-dir is not a directory.")
    r.add_argument("--data-dir", help="where keys and games are kept (default: the user data directory)")
    r.add_argument("--json", action="store_true", help='one JSON object: {"type": "record", "me", "friends", '
                                                       '"people", "games", "skipped", ...}')
    r.set_defaults(func=cmd_record)


def cmd_record(args: argparse.Namespace) -> int:
    directory = data_dir(args)
    if directory.exists() and not directory.is_dir():
        raise UsageError(f"--data-dir {directory} is not a directory")
    try:
        rec = record_of(directory)
    except IdentityError as exc:
        print(f"caravan record: {exc}; restore it from a backup", file=sys.stderr)
        return EXIT_FAILED
    if args.json:
        print(json.dumps(rec, sort_keys=True))
        return EXIT_OK
    print(text(rec, directory))
    return EXIT_OK


def _when(t: float | None) -> str:
    return datetime.fromtimestamp(t).strftime("%Y-%m-%d %H:%M") if t else "—"


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    line = lambda r: "  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip()  # noqa: E731
    return [line(header), line(["-" * w for w in widths]), *map(line, rows)]


def text(rec: dict[str, Any], directory: Path) -> str:
    """The record as a person reads it: you, your friends, everyone's rating, what was skipped."""
    out: list[str] = []
    me = rec["me"]
    if me is None:
        out.append(f"no identity in {directory} yet (play a game first): ratings only")
    else:
        out.append(f"you: {plain(me['name'])} ({me['fingerprint']}), {me['games']} game(s), {me['won']} won, "
                   f"rating {me['rating']['ordinal']:.1f} ({me['rating']['mu']:.1f} ± {me['rating']['sigma']:.1f})")
    if not rec["games"]:
        out.append(f"no verified finished games under {directory}")
    if rec["friends"]:
        out += ["", "with each friend (wins, losses, draws: your place against theirs)"]
        out += _table(["friend", "key", "games", "W-L-D", "last played", "rating"],
                      [[plain(f["name"]), f["fingerprint"], str(f["games"]), f"{f['wins']}-{f['losses']}-{f['draws']}",
                        _when(f["last_played"]), f"{f['rating']['ordinal']:.1f}"] for f in rec["friends"]])
    if rec["people"]:
        out += ["", "ratings (Plackett-Luce, openskill: shown mu − 3 sigma; games rated in game-id order)"]
        out += _table(["person", "key", "rating", "mu ± sigma"],
                      [[plain(p["name"]) + (" (you)" if me and p["key"] == me["key"] else ""), p["fingerprint"],
                        f"{p['rating']['ordinal']:.1f}", f"{p['rating']['mu']:.1f} ± {p['rating']['sigma']:.1f}"]
                       for p in rec["people"]])
    if rec["skipped"]:
        out += ["", f"skipped {len(rec['skipped'])} transcript(s), not counted:"]
        out += [f"  {plain(s['file'])}: {plain(s['reason'])}" for s in rec["skipped"]]
    return "\n".join(out)
