"""The message log's format, kept here once for both stores that write it: a desktop node's
(node/storage/store.py) and a browser tab's (clients/tab/py/tab_games.py). Pure: the stores
read and write the files, and each words the errors for its user (specs/node.md, "Message
log format").

A log is MAGIC, then one record per message: HEADER (its 4-byte big-endian length, 1 to
MAX_RECORD, and the 4-byte big-endian CRC-32 of the message), then the message. A crash or a
full disk mid-append leaves a torn tail — the last record cut short, or failing its checksum
at the very end, or zero bytes past the last good record — which `parse` drops: that message
was never sent, or is fetched back from the peers. A bad record with more data after it is
damage (LogDamaged, with its offset), never silently dropped with the messages after it."""

from __future__ import annotations

import struct
import zlib

MAGIC = b"CARAVAN-LOG\x02\n"
HEADER = struct.Struct(">II")           # length, CRC-32 of the message
MAX_RECORD = 1 << 20


class LogDamaged(ValueError):
    """A record at `offset` is bad (`problem`) with more data after it, so it is no torn tail;
    `length` is the length its header gives (None for a bad MAGIC)."""

    def __init__(self, offset: int, problem: str, length: int | None = None):
        super().__init__(f"damaged at offset {offset} ({problem})")
        self.offset, self.problem, self.length = offset, problem, length


class NotALog(LogDamaged):
    """The data does not begin with MAGIC (nor is it a MAGIC cut short)."""

    def __init__(self) -> None:
        super().__init__(0, "bad header")


def record(message: bytes) -> bytes:
    """One message as appended to a log (after MAGIC, which a new log begins with)."""
    return HEADER.pack(len(message), zlib.crc32(message)) + message


def parse(data: bytes) -> list[bytes]:
    """The messages of a log's bytes, a torn tail dropped; raises LogDamaged (or NotALog)."""
    return scan(data)[0]


def scan(data: bytes) -> tuple[list[bytes], int]:
    """(messages, length of the good part) of a log's bytes: what `parse` gives, and where a
    store that cuts the torn tail off cuts it (0 for a MAGIC cut short: the log is made anew)."""
    if len(data) < len(MAGIC) and MAGIC.startswith(data):
        return [], 0                                         # torn while being created
    if not data.startswith(MAGIC):
        raise NotALog()
    out: list[bytes] = []
    pos = len(MAGIC)
    while pos + HEADER.size <= len(data):                    # (a header cut short: torn)
        n, crc = HEADER.unpack_from(data, pos)
        start, end = pos + HEADER.size, pos + HEADER.size + n
        if n == 0 or n > MAX_RECORD:
            if not any(data[pos:]):
                break                                        # zeros a crash left
            raise LogDamaged(pos, f"a record length of {n} bytes", n)
        if end > len(data):
            break                                            # the last record cut short
        if zlib.crc32(data[start:end]) != crc:
            if end == len(data):
                break                                        # the last record torn
            raise LogDamaged(pos, "a record fails its checksum", n)
        out.append(data[start:end])
        pos = end
    return out, pos
