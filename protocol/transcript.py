"""The `.caravan` transcript: the genesis and every message, as the verbatim signed bytes.

Layout: the 8-byte magic "CARAVAN\\x01", then frames of a 4-byte big-endian length and
that many bytes. Frame 0 is the genesis record; frames 1.. are messages in the order
the session applied them (the same on every replica). Appending a frame is all a node
needs to do to extend it, and a torn last frame (a crash mid-write) is detected.
"""

from __future__ import annotations

import struct
from typing import Iterable

MAGIC = b"CARAVAN\x01"
MAX_FRAME = 1 << 20


class TranscriptError(ValueError):
    """The file is not a readable transcript; `position` is the frame where it breaks."""

    def __init__(self, message: str, position: int | None = None):
        super().__init__(message)
        self.position = position


def frame(data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + data


def dump(genesis: bytes, messages: Iterable[bytes]) -> bytes:
    return MAGIC + frame(genesis) + b"".join(frame(m) for m in messages)


def load(data: bytes) -> tuple[bytes, list[bytes]]:
    """(genesis, messages) from a transcript's bytes; raises TranscriptError."""
    if not data.startswith(MAGIC):
        raise TranscriptError("not a Caravan transcript (bad magic bytes)", 0)
    frames: list[bytes] = []
    pos = len(MAGIC)
    while pos < len(data):
        if pos + 4 > len(data):
            raise TranscriptError("the file ends inside a frame header", len(frames))
        (n,) = struct.unpack_from(">I", data, pos)
        if n > MAX_FRAME:
            raise TranscriptError(f"frame of {n} bytes is over the limit", len(frames))
        if pos + 4 + n > len(data):
            raise TranscriptError("the file ends inside a frame (torn write?)", len(frames))
        frames.append(data[pos + 4:pos + 4 + n])
        pos += 4 + n
    if not frames:
        raise TranscriptError("the transcript has no genesis", 0)
    return frames[0], frames[1:]
