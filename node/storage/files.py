"""Writing a file in a folder the node owns (a game folder, the data dir) without ever
following a link planted there (issue 34, item 5b).

Someone who can write in a game folder but not elsewhere (another local account, a sync
tool, a shared disk) could plant a symbolic link at a name the node writes — the
transcript's temporary file, `chat.jsonl`, `web.json.tmp`, `home.json.tmp` — pointing at a
file of the user's outside it: a write that follows it would overwrite or grow that file.
So every such write goes through here:

* `write_atomic` replaces a file whole: a temporary file `NAME.tmp` beside it, created
  exclusively (`O_CREAT | O_EXCL | O_NOFOLLOW`: never an existing file or link), written,
  `fsync`'d, renamed over `NAME` (a rename replaces a link at `NAME` itself, never its
  target) and the folder `fsync`'d. A `NAME.tmp` already there (a crash's leftover, or a
  planted link) is removed first: removing a link never touches its target.
* `open_append` opens a file for appending with `O_NOFOLLOW`: a link at that name makes it
  fail (ELOOP) instead of writing through it.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


def write_all(fd: int, data: bytes) -> None:
    """Write every byte of `data` to `fd` (short writes are continued)."""
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        if n <= 0:
            raise OSError(errno.EIO, "short write")
        view = view[n:]


def fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_atomic(path: Path, data: bytes, mode: int = 0o600) -> None:
    """Replace `path` with `data` atomically (file mode `mode`), following no link planted at
    `path` or at its temporary name; OSError when that cannot be done."""
    path = Path(path)
    tmp = path.with_name(path.name + ".tmp")
    try:
        os.unlink(tmp)                       # a leftover, or a planted link: only the name goes
    except FileNotFoundError:
        pass
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | NOFOLLOW, mode)
    try:
        write_all(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, path)
    fsync_dir(path.parent)


def open_append(path: Path, mode: int = 0o600) -> int:
    """A file descriptor appending to `path` (created with `mode` if missing; readable too,
    with `read_all`); OSError (ELOOP) when `path` is a symbolic link."""
    return os.open(path, os.O_RDWR | os.O_CREAT | os.O_APPEND | NOFOLLOW, mode)


def read_all(fd: int) -> bytes:
    """Everything in the file open at `fd`, from its start."""
    chunks, offset = [], 0
    while chunk := os.pread(fd, 1 << 16, offset):
        chunks.append(chunk)
        offset += len(chunk)
    return b"".join(chunks)
