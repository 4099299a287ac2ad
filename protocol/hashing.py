"""Domain-separated hashing: every hash input is a tag plus canonically encoded fields.

Encoding the fields as one canonical msgpack array gives unambiguous length
prefixes for free, so no two different inputs can produce the same bytes.
"""

from __future__ import annotations

import hashlib
from typing import Any

from .wire import encode


def tagged_hash(tag: str, *fields: Any) -> bytes:
    """SHA-256 of the canonical encoding of [tag, *fields] (32 bytes)."""
    return hashlib.sha256(encode([tag, *fields])).digest()


def tagged_hash512(tag: str, *fields: Any) -> bytes:
    """SHA-512 variant, for deriving group elements and scalars (64 bytes)."""
    return hashlib.sha512(encode([tag, *fields])).digest()
