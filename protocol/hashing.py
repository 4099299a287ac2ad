"""Domain-separated hashing: every hash input is a tag plus canonically encoded fields.

Encoding the fields as one canonical msgpack array gives unambiguous length
prefixes for free, so no two different inputs can produce the same bytes.
"""

from __future__ import annotations

import hashlib
from typing import Any

from .wire import encode, encode_known

_SCALARS = frozenset({bytes, str, int})
"""Field types msgpack writes canonically as they are (no map to sort, no float)."""


def _encode_fields(tag: str, fields: tuple) -> bytes:
    """encode([tag, *fields]); fields of `_SCALARS` types, or lists of them, alone skip
    encode's checks (a beacon chain link, a draw's preimages or a stream block, hashed for
    every draw)."""
    for f in fields:
        if type(f) not in _SCALARS:
            if type(f) is list and all(type(x) in _SCALARS for x in f):
                continue
            return encode([tag, *fields])
    try:
        return encode_known([tag, *fields])
    except Exception:       # an int out of range: encode names the problem
        return encode([tag, *fields])


def tagged_hash(tag: str, *fields: Any) -> bytes:
    """SHA-256 of the canonical encoding of [tag, *fields] (32 bytes)."""
    return hashlib.sha256(_encode_fields(tag, fields)).digest()


def tagged_hash512(tag: str, *fields: Any) -> bytes:
    """SHA-512 variant, for deriving group elements and scalars (64 bytes)."""
    return hashlib.sha512(_encode_fields(tag, fields)).digest()
