"""Commitments for hidden choices: hiding (256-bit salt) and bound to game, seat and context.

Binding the seat stops the copy attack (another player re-posting my commitment and
later my opening); binding the context stops an opening being reused in another step.
"""

from __future__ import annotations

import hmac
from typing import Any

from .hashing import tagged_hash

SALT_SIZE = 32


def commitment(game_id: bytes, seat: int, context: Any, value: Any, salt: bytes) -> bytes:
    """The 32-byte commitment to `value` (see specs/protocol.md, "Commitments")."""
    return tagged_hash("caravan/commit/v1", game_id, seat, context, value, salt)


def opens(digest: bytes, game_id: bytes, seat: int, context: Any, value: Any, salt: Any) -> bool:
    """True if (value, salt) opens `digest`; never raises on malformed input."""
    if type(salt) is not bytes or len(salt) != SALT_SIZE:
        return False
    try:
        expect = commitment(game_id, seat, context, value, salt)
    except ValueError:
        return False
    return hmac.compare_digest(expect, digest)


def derive_salt(secret: bytes, game_id: bytes, context: Any) -> bytes:
    """A salt derived from the player's per-game secret, so a restarted node recommits identically."""
    return tagged_hash("caravan/salt/v1", secret, game_id, context)
