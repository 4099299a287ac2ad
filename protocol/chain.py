"""Per-author signed chains (in the style of Secure Scuttlebutt feeds).

A message is `encode([envelope_bytes, signature])` where the envelope is the canonical
array [version, game_id, author, seq, prev, refs, kind, body]. Its id is
SHA-256("caravan/msg/v1" || envelope_bytes) and the signature is the author's Ed25519
signature of "caravan/sig/v1" || id. `prev` is the id of the author's previous message
(the game id for seq 0), so each author's messages form a hash chain; two validly
signed messages with the same (game, author, seq) are a proof of equivocation.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

import msgpack

from . import wire
from .identity import SigningKey, verify

VERSION = 1
MAX_MESSAGE = 1 << 20
_MSG_TAG = b"caravan/msg/v1"
_SIG_TAG = b"caravan/sig/v1"


class ParseError(ValueError):
    """The bytes are not a well-formed Caravan message (before any signature check)."""


@dataclass(frozen=True, slots=True)
class Message:
    game_id: bytes
    author: bytes
    seq: int
    prev: bytes
    refs: list            # [[seat, seq, id], ...] sorted by seat, the author's own seat excluded
    kind: str
    body: Any
    id: bytes
    signature: bytes
    raw: bytes

    def signature_ok(self) -> bool:
        return verify(self.author, self.signature, _SIG_TAG + self.id)


def message_id(envelope_bytes: bytes) -> bytes:
    return hashlib.sha256(_MSG_TAG + envelope_bytes).digest()


def _bin_header(n: int) -> bytes:
    """The canonical msgpack bin header for n bytes."""
    if n < 1 << 8:
        return b"\xc4" + n.to_bytes(1, "big")
    if n < 1 << 16:
        return b"\xc5" + n.to_bytes(2, "big")
    return b"\xc6" + n.to_bytes(4, "big")


def _outer(env: bytes, sig: bytes) -> bytes:
    """canonical([env, sig]), written directly: this runs for every message."""
    return b"\x92" + _bin_header(len(env)) + env + b"\xc4\x40" + sig


def _split_outer(raw: bytes) -> tuple[bytes, bytes]:
    """The inverse of _outer; accepts exactly the canonical encoding of [bytes, 64 bytes]."""
    if len(raw) < 2 or raw[0] != 0x92:
        raise ParseError("a message is the array [envelope bytes, signature bytes]")
    width = {0xc4: 1, 0xc5: 2, 0xc6: 4}.get(raw[1])
    if width is None:
        raise ParseError("the envelope is not a byte string")
    n = int.from_bytes(raw[2:2 + width], "big")
    start = 2 + width
    if len(raw) < start or _bin_header(n) != raw[1:start]:
        raise ParseError("not canonical: a non-minimal length for the envelope")
    env = raw[start:start + n]
    rest = raw[start + n:]
    if len(env) != n or len(rest) < 66 or rest[:2] != b"\xc4\x40":
        raise ParseError("the signature is missing or not 64 bytes")
    if len(rest) != 66:
        raise ParseError("trailing bytes after the message")
    return env, rest[2:]


def seal(key: SigningKey, game_id: bytes, seq: int, prev: bytes, refs: list, kind: str,
         body: Any) -> Message:
    """Encode and sign a message; the result's `raw` is what goes on the wire."""
    # canonical([v, game, author, seq, prev, refs, kind, body]) is the array header followed
    # by each field's canonical encoding; the first seven hold only ints, bytes, str and
    # lists of those, which msgpack writes canonically, so only the body needs the checks
    head = msgpack.packb([VERSION, game_id, key.public, seq, prev, refs, kind], use_bin_type=True)
    env = b"\x98" + head[1:] + wire.encode(body)
    mid = message_id(env)
    sig = key.sign(_SIG_TAG + mid)
    return Message(game_id, key.public, seq, prev, refs, kind, body, mid, sig, _outer(env, sig))


def _is_hash(x: Any) -> bool:
    return type(x) is bytes and len(x) == 32


def parse(raw: bytes, max_size: int = MAX_MESSAGE) -> Message:
    """Decode and check the shape of a message; raises ParseError naming the problem.

    The signature is not checked here (see Message.signature_ok)."""
    if not isinstance(raw, (bytes, bytearray, memoryview)):
        raise ParseError(f"expected bytes, got {type(raw).__name__}")
    raw = bytes(raw)
    if len(raw) > max_size:
        raise ParseError(f"{len(raw)} bytes is over the size limit of {max_size}")
    env_bytes, sig = _split_outer(raw)
    try:
        env = wire.decode(env_bytes, max_size)
    except wire.WireError as exc:
        raise ParseError(f"envelope: {exc}") from None
    if type(env) is not list or len(env) != 8:
        raise ParseError("the envelope is an array of 8 fields")
    version, game_id, author, seq, prev, refs, kind, body = env
    if version != VERSION:
        raise ParseError(f"unsupported message version {version!r}")
    if not _is_hash(game_id):
        raise ParseError("game id is not 32 bytes")
    if type(author) is not bytes or len(author) != 32:
        raise ParseError("author is not a 32-byte public key")
    if type(seq) is not int or seq < 0:
        raise ParseError("seq is not a non-negative integer")
    if not _is_hash(prev):
        raise ParseError("prev is not 32 bytes")
    if type(kind) is not str or not 0 < len(kind) <= 32:
        raise ParseError("kind is not a short string")
    if type(refs) is not list:
        raise ParseError("refs is not an array")
    last = -1
    for ref in refs:
        if (type(ref) is not list or len(ref) != 3 or type(ref[0]) is not int
                or type(ref[1]) is not int or ref[1] < 0 or not _is_hash(ref[2])):
            raise ParseError("a ref is [seat, seq, id]")
        if ref[0] <= last:
            raise ParseError("refs are not sorted by seat without repeats")
        last = ref[0]
    return Message(game_id, author, seq, prev, refs, kind, body, message_id(env_bytes), sig, bytes(raw))


@dataclass(frozen=True)
class EquivocationProof:
    """Two messages signed by one author for the same (game, seq): checkable by anyone."""

    first: bytes
    second: bytes

    def to_wire(self) -> bytes:
        return wire.encode(["caravan/equivocation/v1", self.first, self.second])

    @classmethod
    def from_wire(cls, data: bytes) -> "EquivocationProof":
        try:
            obj = wire.decode(data)
        except wire.WireError as exc:
            raise ValueError(f"not an equivocation proof: {exc}") from None
        if (type(obj) is not list or len(obj) != 3 or obj[0] != "caravan/equivocation/v1"
                or type(obj[1]) is not bytes or type(obj[2]) is not bytes):
            raise ValueError("not an equivocation proof")
        return cls(obj[1], obj[2])

    def check(self) -> tuple[bytes, bytes, int]:
        """Return (game_id, author, seq) if this proves equivocation; else raise ValueError."""
        try:
            a, b = parse(self.first), parse(self.second)
        except ParseError as exc:
            raise ValueError(f"a message in the proof is malformed: {exc}") from None
        if (a.game_id, a.author, a.seq) != (b.game_id, b.author, b.seq):
            raise ValueError("the two messages differ in game, author or seq")
        if a.id == b.id:
            raise ValueError("the two messages are the same message")
        if not (a.signature_ok() and b.signature_ok()):
            raise ValueError("a signature in the proof does not verify: this is a forgery")
        return a.game_id, a.author, a.seq
