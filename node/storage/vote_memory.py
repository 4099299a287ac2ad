"""What a postbox node keeps of an abandon vote between its runs (issue 33, item 5): the
memory of protocol/seat/vote_memory.py (what is kept and why, its encoding and checks) in
`games/<id>/votes.bin`, written atomically."""

from __future__ import annotations

from pathlib import Path

from protocol.seat.vote_memory import FILE, KEPT, VoteMemory, decode

from .files import write_atomic

__all__ = ["FILE", "KEPT", "VoteMemory", "load", "save"]


def load(folder: Path) -> VoteMemory:
    """The memory kept in `folder` (empty if none); ValueError naming the file if damaged."""
    path = folder / FILE
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return VoteMemory()
    except OSError as exc:
        raise ValueError(f"{path} is damaged ({exc})") from None
    return decode(data, str(path))


def save(folder: Path, memory: VoteMemory) -> bytes:
    """Write `memory` to `folder` (OSError if it cannot be); returns what was written."""
    data = memory.encode()
    write_atomic(folder / FILE, data)
    return data
