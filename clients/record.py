"""Your record: per person you played with (a public key, shown by the name they use), the
games you played together and how each went, and a Plackett-Luce rating (openskill) for
everyone — computed only from transcripts that verify, so anyone holding the same
transcripts computes the same record.

Pure: it takes transcripts as bytes (the node finds them: node/cli/records.py). A transcript
counts only when `protocol.verify.verify_bytes` finds it valid and finished; any other is
listed in `skipped` with the reason, never counted. The games are rated in the order of
their game ids (a transcript carries no signed clock, and file times differ from machine to
machine), so the rating does not depend on where or when the files were copied. Names are
unsigned courtesy labels (what the lobby told each seat); the key is the identity, and a
key with no name known is shown by its fingerprint.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable

from protocol.identity import fingerprint
from protocol.verify import Report, verify_bytes

from . import rating

NAME_LIMIT = 32
"""Longest name shown (the lobby's own limit): a stored name is unsigned, anyone could edit it."""


@dataclass(frozen=True)
class Source:
    """One transcript as found: `label` names it (a path), `names` are the names the store
    kept for its seats (seat -> name, unsigned), `when` is when it was last written (this
    machine's clock: shown as "last played", never used for the rating)."""
    label: str
    data: bytes
    names: dict[int, str] = field(default_factory=dict)
    when: float | None = None


@dataclass(frozen=True)
class Played:
    """A transcript that verified: a finished game, its seats' keys and places."""
    label: str
    game_id: str
    game: str
    seats: list[bytes]
    winners: list[int]
    scores: list[Any] | None
    places: list[int]                       # per seat, 1 = best (clients.rating.ranks)
    names: dict[int, str]
    when: float | None


@dataclass(frozen=True)
class Skipped:
    """A transcript that is not counted, and why (one line)."""
    label: str
    reason: str

    def to_json(self) -> dict[str, str]:
        return {"file": self.label, "reason": self.reason}


def clean_name(name: Any) -> str:
    """A stored name as it may be shown: printable, one line, at most NAME_LIMIT characters."""
    text = "".join(ch for ch in str(name) if ch.isprintable()).strip()
    return text[:NAME_LIMIT]


def why_not(report: Report) -> str:
    """Why a transcript is not counted, in one line (as `caravan verify` words it)."""
    err = report.error or {}
    if report.valid and report.abandoned_by:
        return str(err.get("reason") or "abandoned")
    if report.valid:
        return str(err.get("reason") or "unfinished").removeprefix("the game is ")   # "unfinished: waiting for …"
    who = f", signed by seat {err['seat']} ({err['fingerprint']})" if err.get("fingerprint") else ""
    where = "the genesis" if err.get("position") == 0 else f"message #{err.get('position')}"
    return f"does not verify: {where}{who}: {err.get('code')}: {err.get('reason')}"


def read(source: Source) -> Played | Skipped:
    """Verify one transcript: the finished game it proves, or why it does not count."""
    from protocol import genesis as G
    from protocol.errors import Rejected
    from protocol.transcript import TranscriptError, load

    report = verify_bytes(source.data)
    if not report.ok:
        return Skipped(source.label, why_not(report))
    try:
        seats = list(G.parse(load(source.data)[0]).seats)
    except (TranscriptError, Rejected) as exc:          # verified just now: cannot happen
        return Skipped(source.label, f"does not verify: {exc}")
    result = report.result or {}
    winners = [w for w in result.get("winners") or [] if type(w) is int]
    scores = result.get("scores")
    scores = list(scores) if isinstance(scores, list) and len(scores) == len(seats) else None
    names = {int(s): clean_name(n) for s, n in source.names.items()
             if str(s).isdigit() and int(s) < len(seats) and clean_name(n)}
    return Played(source.label, report.game_id or "", report.game or "", seats, winners, scores,
                  rating.ranks(len(seats), winners, scores), names, source.when)


def _title(game: str) -> str:
    from protocol import games
    try:
        return games.get(game).title
    except KeyError:
        return game


def build(found: Iterable[Played | Skipped], me: bytes | None, my_name: str = "") -> dict[str, Any]:
    """The record from verified games (and the skipped files, passed through): see module doc.
    `me` is this user's public key (None: no identity yet, only the ratings); `my_name` the
    name this user chose (unsigned, like the others')."""
    played: list[Played] = []
    skipped: list[Skipped] = []
    seen: dict[str, str] = {}
    for item in sorted(found, key=lambda i: (isinstance(i, Skipped), getattr(i, "game_id", ""), i.label)):
        if isinstance(item, Skipped):
            skipped.append(item)
        elif item.game_id in seen:                      # the same game twice (played, and watched): once
            skipped.append(Skipped(item.label, f"the same game as {seen[item.game_id]}, counted once"))
        else:
            seen[item.game_id] = item.label
            played.append(item)

    model = rating.model()
    ratings: dict[bytes, Any] = {}
    names: dict[bytes, tuple[float, str]] = {}         # key -> (when, name): the latest name used
    for g in played:                                    # game-id order: the rating is reproducible
        for seat, key in enumerate(g.seats):
            ratings.setdefault(key, model.rating())
            if seat in g.names and (g.when or 0) >= names.get(key, (-1.0, ""))[0]:
                names[key] = (g.when or 0, g.names[seat])
        teams = model.rate([[ratings[k]] for k in g.seats], ranks=list(g.places))
        for key, team in zip(g.seats, teams):
            ratings[key] = team[0]
    if me is not None and my_name:
        names[me] = (float("inf"), clean_name(my_name))

    def who(key: bytes) -> dict[str, Any]:
        r = ratings.get(key) or model.rating()
        return {"key": key.hex(), "fingerprint": fingerprint(key),
                "name": names.get(key, (0, ""))[1] or fingerprint(key), "named": key in names,
                "rating": {"mu": round(r.mu, 3), "sigma": round(r.sigma, 3), "ordinal": round(r.ordinal(), 3)}}

    friends: dict[bytes, dict[str, Any]] = {}
    games_out = []
    mine = {"games": 0, "won": 0}
    for g in played:
        entry = {"game_id": g.game_id, "game": g.game, "title": _title(g.game), "file": g.label, "when": g.when,
                 "winners": g.winners, "scores": g.scores, "places": g.places,
                 "seats": [{"key": k.hex(), "name": names.get(k, (0, ""))[1] or fingerprint(k)} for k in g.seats],
                 "my_seat": g.seats.index(me) if me in g.seats else None}
        games_out.append(entry)
        if me not in g.seats:
            continue                                    # watched: it rates its players, it is not yours
        my_seat = g.seats.index(me)
        mine["games"] += 1
        mine["won"] += my_seat in g.winners
        for seat, key in enumerate(g.seats):
            if key == me:
                continue
            f = friends.setdefault(key, {**who(key), "games": 0, "wins": 0, "losses": 0, "draws": 0,
                                         "last_played": None, "last_game": None})
            f["games"] += 1
            ahead, behind = g.places[my_seat] < g.places[seat], g.places[my_seat] > g.places[seat]
            f["wins" if ahead else "losses" if behind else "draws"] += 1
            if g.when is not None and (f["last_played"] is None or g.when >= f["last_played"]):
                f["last_played"], f["last_game"] = g.when, g.game_id
            elif f["last_played"] is None:
                f["last_game"] = g.game_id
    people = sorted((who(k) for k in ratings), key=lambda p: (-p["rating"]["ordinal"], p["key"]))
    return {"type": "record",
            "me": {**who(me), **mine} if me is not None else None,
            "friends": sorted(friends.values(), key=lambda f: (-f["games"], f["name"].lower(), f["key"])),
            "people": people, "games": games_out, "skipped": [s.to_json() for s in skipped],
            "order": "games are rated in the order of their game ids"}


def record(sources: Iterable[Source], me: bytes | None, my_name: str = "") -> dict[str, Any]:
    """Verify every transcript and build the record (see build)."""
    return build((read(s) for s in sources), me, my_name)
