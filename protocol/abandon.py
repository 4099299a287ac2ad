"""Abandon records: the co-signed statement that a game stopped because seats stalled.

Non-response cannot be proven, only attested: when the seats the game waits for send
nothing within the genesis's time limit, every other seat signs the same statement —
which seats stalled, and the exact state the game was in: every message received so far,
logged or pending (the contributions to an unfinished joint step, in seat order) — and
the record holding all those signatures ends the transcript, right after those messages.
It lives outside the per-author chains, so no replica's log diverges over who noticed the
stall first. specs/protocol.md §11 says what a signer promises (it signs nothing after).
"""

from __future__ import annotations

import hashlib
from typing import Any

from . import wire
from .errors import BadSignature, Rejected
from .hashing import tagged_hash
from .identity import SigningKey, verify

_SIG_TAG = b"caravan/abandon-sig/v1"
RECORD_TAG = "caravan/abandon/v1"


class BadAbandon(Rejected):
    code = "bad-abandon"


def state_frames(session: Any) -> list[bytes]:
    """The messages an abandon statement covers: the log, then the contributions to the
    unfinished joint step in seat order (what a verifier replays before the record)."""
    return session.log + [session.pending[s].raw for s in sorted(session.pending)]


def stalled_seats(session: Any) -> list[int]:
    """The seats an abandon statement may name now: those the game waits for, unless the
    game is complete or at its final signatures (a stall there cannot be abandoned: the
    result is fixed, and a late final would complete the game beside the record)."""
    need = session.need
    if need is None or need.kind == "final":
        return []
    waiting = session.waiting_for()
    return waiting if enough_signers(session.n, waiting) else []


def enough_signers(n: int, stalled: list[int]) -> bool:
    """A record needs more than half the seats as signers (one of two in a 2-player game),
    so that a minority cut off by a partition cannot name the majority (specs/protocol.md §11)."""
    signers = n - len(stalled)
    return signers * 2 > n or (n == 2 and signers == 1)


def log_digest(log: list[bytes]) -> bytes:
    return tagged_hash("caravan/log/v1", [hashlib.sha256(raw).digest() for raw in log])


def statement(game_id: bytes, stalled: list[int], length: int, digest: bytes) -> bytes:
    return tagged_hash("caravan/abandon/v1", game_id, stalled, length, digest)


def sign(key: SigningKey, game_id: bytes, stalled: list[int], length: int, digest: bytes) -> bytes:
    return key.sign(_SIG_TAG + statement(game_id, stalled, length, digest))


def signature_ok(public: bytes, sig: Any, game_id: bytes, stalled: list[int], length: int, digest: bytes) -> bool:
    return type(sig) is bytes and verify(public, sig, _SIG_TAG + statement(game_id, stalled, length, digest))


def record(stalled: list[int], length: int, signatures: dict[int, bytes]) -> bytes:
    return wire.encode([RECORD_TAG, stalled, length, [[s, signatures[s]] for s in sorted(signatures)]])


def parse_record(raw: bytes) -> tuple[list[int], int, dict[int, bytes]] | None:
    """(stalled, length, signatures) if `raw` is an abandon record, else None (a message)."""
    try:
        obj = wire.decode(raw)
    except wire.WireError:
        return None
    if type(obj) is not list or len(obj) != 4 or obj[0] != RECORD_TAG:
        return None
    _, stalled, length, sigs = obj
    if (type(stalled) is not list or not stalled or any(type(s) is not int for s in stalled)
            or stalled != sorted(set(stalled))
            or type(length) is not int or type(sigs) is not list
            or any(type(x) is not list or len(x) != 2 or type(x[0]) is not int for x in sigs)
            or [x[0] for x in sigs] != sorted({x[0] for x in sigs})):
        raise BadAbandon("malformed abandon record")
    return stalled, length, {s: sig for s, sig in sigs}


def check_signatures(seats: list[bytes], game_id: bytes, stalled: list[int], length: int, digest: bytes,
                     signatures: dict[int, bytes]) -> None:
    """Every seat not named stalled, and no other, signed this statement; raises."""
    signers = [s for s in range(len(seats)) if s not in stalled]
    if not enough_signers(len(seats), stalled):
        raise BadAbandon(f"{len(signers)} of {len(seats)} seats cannot sign an abandon record: more than half must")
    if sorted(signatures) != signers:
        raise BadAbandon(f"the record must be signed by seats {signers}, it is by {sorted(signatures)}")
    for s in signers:
        if not signature_ok(seats[s], signatures[s], game_id, stalled, length, digest):
            raise BadSignature("this seat's abandon signature does not verify", seat=s, author=seats[s])


def check(session: Any, stalled: list[int], length: int, signatures: dict[int, bytes]) -> None:
    """The record is valid for this session (every message before the record replayed,
    pending contributions included); raises BadAbandon or BadSignature."""
    frames = state_frames(session)
    if length != len(frames):
        raise BadAbandon(f"the record is for {length} messages; the transcript has {len(frames)}")
    if session.need is not None and session.need.kind == "final":
        raise BadAbandon("the game is at its final signatures, which cannot be abandoned")
    if sorted(stalled) != sorted(session.waiting_for()):
        raise BadAbandon(f"the record names seats {stalled}, but the game waits for {session.waiting_for()}")
    check_signatures(session.seats, session.game_id, stalled, length, log_digest(frames), signatures)
