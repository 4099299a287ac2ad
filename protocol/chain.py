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
from typing import Any, NamedTuple

import msgpack

from . import wire
from .identity import SigningKey, verify

_unpackb = msgpack.unpackb
_sha256 = hashlib.sha256

VERSION = 1
MAX_MESSAGE = 1 << 20
_MSG_TAG = b"caravan/msg/v1"
SIG_TAG = b"caravan/sig/v1"


class ParseError(ValueError):
    """The bytes are not a well-formed Caravan message (before any signature check)."""


class Message(NamedTuple):
    """One parsed or sealed message, immutable (a NamedTuple: it is built for every message
    sent or received, and a tuple is built several times faster than a frozen dataclass)."""

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
        return verify(self.author, self.signature, SIG_TAG + self.id)


def message_id(envelope_bytes: bytes) -> bytes:
    # (seal and parse inline this line: a call costs a tenth of the hash)
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


_MIN_LENGTH = {0xc4: (1, 0), 0xc5: (2, 1 << 8), 0xc6: (4, 1 << 16)}
"""bin header byte -> (bytes of length, least length that needs this header)."""


def split_outer(raw: bytes) -> tuple[bytes, bytes]:
    """The inverse of _outer; accepts exactly the canonical encoding of [bytes, 64 bytes]."""
    if len(raw) < 2 or raw[0] != 0x92:
        raise ParseError("a message is the array [envelope bytes, signature bytes]")
    header = _MIN_LENGTH.get(raw[1])
    if header is None:
        raise ParseError("the envelope is not a byte string")
    width, least = header
    start = 2 + width
    n = int.from_bytes(raw[2:start], "big")
    if len(raw) < start or n < least:
        raise ParseError("not canonical: a non-minimal length for the envelope")
    end = start + n
    if len(raw) == end + 66 and raw[end] == 0xc4 and raw[end + 1] == 0x40:
        return raw[start:end], raw[end + 2:]
    if len(raw) < end + 66 or raw[end:end + 2] != b"\xc4\x40":
        raise ParseError("the signature is missing or not 64 bytes")
    raise ParseError("trailing bytes after the message")


def seal(key: SigningKey, game_id: bytes, seq: int, prev: bytes, refs: list, kind: str,
         body: Any) -> Message:
    """Encode and sign a message; the result's `raw` is what goes on the wire."""
    # canonical([v, game, author, seq, prev, refs, kind, body]) is the array header followed
    # by each field's canonical encoding; the first seven hold only ints, bytes, str and
    # lists of those, which msgpack writes canonically, so only the body needs the checks
    head = wire.encode_known([VERSION, game_id, key.public, seq, prev, refs, kind])
    env = b"\x98" + head[1:] + wire.encode(body)
    mid = hashlib.sha256(_MSG_TAG + env).digest()
    sig = key.sign(SIG_TAG + mid)
    return Message(game_id, key.public, seq, prev, refs, kind, body, mid, sig, _outer(env, sig))


def _is_hash(x: Any) -> bool:
    return type(x) is bytes and len(x) == 32


def parse(raw: bytes, max_size: int = MAX_MESSAGE) -> Message:
    """Decode and check the shape of a message; raises ParseError naming the problem.

    The signature is not checked here (see Message.signature_ok)."""
    if type(raw) is not bytes:
        if not isinstance(raw, (bytes, bytearray, memoryview)):
            raise ParseError(f"expected bytes, got {type(raw).__name__}")
        raw = bytes(raw)
    if len(raw) > max_size:
        raise ParseError(f"{len(raw)} bytes is over the size limit of {max_size}")
    env_bytes, sig = split_outer(raw)
    msg = _parse_fast(raw, env_bytes, sig)
    if msg is not None:
        return msg
    try:
        env = wire.decode(env_bytes, max_size)
    except wire.WireError as exc:
        raise ParseError(f"envelope: {exc}") from None
    if type(env) is not list or len(env) != 8:
        raise ParseError("the envelope is an array of 8 fields")
    version, game_id, author, seq, prev, refs, kind, body = env
    if not (type(version) is int and version == VERSION and type(game_id) is bytes and len(game_id) == 32
            and type(author) is bytes and len(author) == 32 and type(seq) is int and seq >= 0
            and type(prev) is bytes and len(prev) == 32
            and type(kind) is str and 0 < len(kind) <= 32 and type(refs) is list):
        _explain_fields(version, game_id, author, seq, prev, kind)
        raise ParseError("refs is not an array")
    last = -1
    for ref in refs:
        if type(ref) is not list or len(ref) != 3:
            raise ParseError("a ref is [seat, seq, id]")
        seat, ref_seq, ref_id = ref
        if (type(seat) is not int or type(ref_seq) is not int or ref_seq < 0
                or type(ref_id) is not bytes or len(ref_id) != 32):
            raise ParseError("a ref is [seat, seq, id]")
        if seat <= last:
            raise ParseError("refs are not sorted by seat without repeats")
        last = seat
    return Message(game_id, author, seq, prev, refs, kind, body, hashlib.sha256(_MSG_TAG + env_bytes).digest(), sig, raw)


def _parse_fast(raw: bytes, env_bytes: bytes, sig: bytes) -> Message | None:
    """The message, if its envelope is well formed, or None to let `parse` find and name the
    problem. One unpack, one re-encoding and the field checks, inlined: this runs for every
    message received or verified. It accepts only what `parse`'s checked path accepts (the
    same value): the bytes are exactly the canonical encoding of what they decode to (map
    keys in order by `wire.ordered`), the fields have their types, and there is no float.
    A float could only be in the body (the other fields are ints, bytes, str and lists of
    those), and its encoding holds a 0xcb byte, so a body is packed again only then."""
    try:
        env = _unpackb(env_bytes, raw=False, strict_map_key=False, ext_hook=wire.no_ext,
                       object_hook=wire.ordered)
        if type(env) is not list or len(env) != 8:
            return None
        version, game_id, author, seq, prev, refs, kind, body = env
        if not (type(version) is int and version == VERSION and type(game_id) is bytes and len(game_id) == 32
                and type(author) is bytes and len(author) == 32 and type(seq) is int and seq >= 0
                and type(prev) is bytes and len(prev) == 32
                and type(kind) is str and 0 < len(kind) <= 32 and type(refs) is list):
            return None
        last = -1
        for ref in refs:
            if type(ref) is not list or len(ref) != 3:
                return None
            seat, ref_seq, ref_id = ref
            if not (type(seat) is int and seat > last and type(ref_seq) is int and ref_seq >= 0
                    and type(ref_id) is bytes and len(ref_id) == 32):
                return None
            last = seat
        pack, pack_single = wire.packers_of_this_thread()
        if pack.pack(env) != env_bytes:
            return None
        if b"\xcb" in env_bytes:
            body_bytes = pack.pack(body)
            if b"\xcb" in body_bytes and pack_single.pack(body) != body_bytes:
                return None
    except Exception:
        return None
    return Message(game_id, author, seq, prev, refs, kind, body, _sha256(_MSG_TAG + env_bytes).digest(), sig, raw)


def _explain_fields(version: Any, game_id: Any, author: Any, seq: Any, prev: Any, kind: Any) -> None:
    """Raise the ParseError naming the first bad field (parse checks them all at once first)."""
    if type(version) is not int or version != VERSION:        # true == 1 in Python, not on the wire
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
