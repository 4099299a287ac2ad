"""The genesis record: which game, which options, which keys sit where, and the beacon tips.

Every seated player signs it; the game id is the hash of its body, so every later
message (which names the game id) is bound to exactly these seats and options.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from . import wire
from .errors import BadGenesis
from .identity import SigningKey, fingerprint, strong_key, verify

_ID_TAG = b"caravan/genesis/v1"
_SIG_TAG = b"caravan/genesis-sig/v1"
MAX_GENESIS = 1 << 16
BODY_FIELDS = frozenset({"v", "game", "options", "seats", "beacon", "beacon_length", "nonce", "time_limit"})
"""The fields of a live table's body (exactly today's: its bytes, and so its game id, do not change)."""
LIVE, TURN_BASED = "live", "turn-based"
PACES = (LIVE, TURN_BASED)
TURN_BASED_FIELDS = BODY_FIELDS | {"pace"}
"""A turn-based table's body: the live fields and `"pace": "turn-based"` (present only then)."""
MAX_LIVE_LIMIT = 86400
MAX_MOVE_TIME = 14 * 86400
"""A turn-based table's time per move (its `time_limit`) is 1 s to 14 days in the protocol;
the command line and the home ask for 1 hour at least (tests use seconds)."""


def body_fields_ok(fields: Any) -> bool:
    """A genesis body's field names are a live or a turn-based table's, no more, no fewer."""
    names = set(fields)
    return names == BODY_FIELDS or (names == TURN_BASED_FIELDS and fields["pace"] == TURN_BASED)


@dataclass(frozen=True)
class Genesis:
    game: str
    options: dict[str, Any]
    seats: list[bytes]           # Ed25519 public keys, seat order
    beacon_tips: list[bytes]     # each seat's hash-chain tip x_0
    beacon_length: int           # draws each chain allows
    nonce: bytes                 # lobby randomness: two games of the same people differ
    body: bytes                  # canonical bytes that were signed
    signatures: list[bytes]
    time_limit: int = 0          # seconds a seat may take for an expected message (0: no limit)
    pace: str = LIVE             # "turn-based": time_limit is the time per move (hours, days)

    @property
    def game_id(self) -> bytes:
        return game_id_of(self.body)

    @property
    def turn_based(self) -> bool:
        return self.pace == TURN_BASED

    def to_wire(self) -> bytes:
        return wire.encode(["caravan/genesis/v1", self.body, self.signatures])


def game_id_of(body: bytes) -> bytes:
    return hashlib.sha256(_ID_TAG + body).digest()


def make_body(game: str, options: dict[str, Any], seats: list[bytes], beacon_tips: list[bytes],
              nonce: bytes, beacon_length: int, time_limit: int = 0, pace: str = LIVE) -> bytes:
    """The canonical genesis body every player signs. A live table's has no `pace` field
    (its bytes are those of every genesis made before tables had a pace); a turn-based
    table's says `"pace": "turn-based"`, its `time_limit` being the time per move."""
    if pace not in PACES:
        raise ValueError(f"unknown pace {pace!r} (use {' or '.join(PACES)})")
    body: dict[str, Any] = {
        "v": 1, "game": game, "options": options, "seats": seats,
        "beacon": beacon_tips, "beacon_length": beacon_length, "nonce": nonce, "time_limit": time_limit,
    }
    if pace == TURN_BASED:
        body["pace"] = TURN_BASED
    return wire.encode(body)


def sign(key: SigningKey, body: bytes) -> bytes:
    return key.sign(_SIG_TAG + game_id_of(body))


def parse(raw: bytes) -> Genesis:
    """Decode a genesis record and check its shape and every seat's signature (BadGenesis)."""
    try:
        outer = wire.decode(raw, MAX_GENESIS)
    except wire.WireError as exc:
        raise BadGenesis(f"genesis does not decode: {exc}") from None
    if (type(outer) is not list or len(outer) != 3 or outer[0] != "caravan/genesis/v1"
            or type(outer[1]) is not bytes or type(outer[2]) is not list):
        raise BadGenesis("not a Caravan genesis record")
    body_bytes, sigs = outer[1], outer[2]
    try:
        body = wire.decode(body_bytes, MAX_GENESIS)
    except wire.WireError as exc:
        raise BadGenesis(f"genesis body does not decode: {exc}") from None
    if type(body) is not dict or not body_fields_ok(body) or body["v"] != 1:
        raise BadGenesis(f"genesis body must have exactly the fields {sorted(BODY_FIELDS)}, "
                         f"and \"pace\": \"{TURN_BASED}\" for a turn-based table")
    pace = body.get("pace", LIVE)
    seats, tips = body["seats"], body["beacon"]
    if type(body["game"]) is not str or type(body["options"]) is not dict:
        raise BadGenesis("game must be a name and options a map")
    if type(seats) is not list or not 1 <= len(seats) <= 16:
        raise BadGenesis("seats must list 1 to 16 public keys")
    if any(type(k) is not bytes or len(k) != 32 for k in seats) or len(set(seats)) != len(seats):
        raise BadGenesis("seats must be distinct 32-byte public keys")
    for seat, key in enumerate(seats):
        if not strong_key(key):
            raise BadGenesis(f"seat {seat}'s key is not a valid Ed25519 key of the prime-order subgroup "
                             "(small order, identity or non-canonical: anyone could sign for it)",
                             seat=seat, author=key)
    if type(tips) is not list or len(tips) != len(seats) or any(type(t) is not bytes or len(t) != 32 for t in tips):
        raise BadGenesis("beacon must hold one 32-byte chain tip per seat")
    if type(body["beacon_length"]) is not int or body["beacon_length"] < 1:
        raise BadGenesis("beacon_length must be a positive integer")
    if type(body["nonce"]) is not bytes or not 16 <= len(body["nonce"]) <= 64:
        raise BadGenesis("nonce must be 16 to 64 bytes")
    limit = body["time_limit"]
    if pace == LIVE and (type(limit) is not int or not 0 <= limit <= MAX_LIVE_LIMIT):
        raise BadGenesis(f"time_limit must be 0 (none) to {MAX_LIVE_LIMIT} seconds")
    if pace == TURN_BASED and (type(limit) is not int or not 1 <= limit <= MAX_MOVE_TIME):
        raise BadGenesis(f"a turn-based table's time_limit (its time per move) must be 1 to {MAX_MOVE_TIME} seconds")
    if len(sigs) != len(seats):
        raise BadGenesis(f"{len(sigs)} signatures for {len(seats)} seats")
    gid = game_id_of(body_bytes)
    for seat, (key, sig) in enumerate(zip(seats, sigs)):
        if type(sig) is not bytes or not verify(key, sig, _SIG_TAG + gid):
            raise BadGenesis(f"seat {seat} ({fingerprint(key)}) did not sign this genesis",
                             seat=seat, author=key)
    return Genesis(body["game"], body["options"], seats, tips, body["beacon_length"],
                   body["nonce"], body_bytes, sigs, body["time_limit"], pace)


def duration_text(seconds: int) -> str:
    """"3 d", "24 h", "90 min" or "45 s": a time per move as a person set it."""
    for unit, size in (("d", 86400), ("h", 3600), ("min", 60)):
        if seconds >= size and seconds % size == 0:
            return f"{seconds // size} {unit}"
    return f"{seconds} s"


def pace_text(pace: str, time_limit: int) -> str:
    """A table's pace in words, where its clock is shown: "turn-based, 24 h per move",
    "live, 300 s time limit" or "live, no time limit"."""
    if pace == TURN_BASED:
        return f"turn-based, {duration_text(time_limit)} per move"
    return f"live, {time_limit} s time limit" if time_limit else "live, no time limit"
