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

    @property
    def game_id(self) -> bytes:
        return game_id_of(self.body)

    def to_wire(self) -> bytes:
        return wire.encode(["caravan/genesis/v1", self.body, self.signatures])


def game_id_of(body: bytes) -> bytes:
    return hashlib.sha256(_ID_TAG + body).digest()


def make_body(game: str, options: dict[str, Any], seats: list[bytes], beacon_tips: list[bytes],
              nonce: bytes, beacon_length: int, time_limit: int = 0) -> bytes:
    """The canonical genesis body every player signs."""
    return wire.encode({
        "v": 1, "game": game, "options": options, "seats": seats,
        "beacon": beacon_tips, "beacon_length": beacon_length, "nonce": nonce, "time_limit": time_limit,
    })


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
    if type(body) is not dict or set(body) != BODY_FIELDS or body["v"] != 1:
        raise BadGenesis(f"genesis body must have exactly the fields {sorted(BODY_FIELDS)}")
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
    if type(body["time_limit"]) is not int or not 0 <= body["time_limit"] <= 86400:
        raise BadGenesis("time_limit must be 0 (none) to 86400 seconds")
    if len(sigs) != len(seats):
        raise BadGenesis(f"{len(sigs)} signatures for {len(seats)} seats")
    gid = game_id_of(body_bytes)
    for seat, (key, sig) in enumerate(zip(seats, sigs)):
        if type(sig) is not bytes or not verify(key, sig, _SIG_TAG + gid):
            raise BadGenesis(f"seat {seat} ({fingerprint(key)}) did not sign this genesis",
                             seat=seat, author=key)
    return Genesis(body["game"], body["options"], seats, tips, body["beacon_length"],
                   body["nonce"], body_bytes, sigs, body["time_limit"])
