"""Lines for a reader that may stop reading: a node's `--json` stdout, and its human status
and log lines on stderr when that is a pipe.

A `print` to a pipe nobody reads blocks once the pipe is full (64 KiB on Linux), and a node
blocked there signs nothing while its links look alive: its peers see a connected, silent
seat (issue 27). So the node hands each line to a bounded buffer that a thread writes out;
when the buffer is full, lines are dropped and counted, a warning says so on stderr, and
the next line that gets through says how many were lost. At the end the node waits a
bounded time for the reader, then exits anyway.
"""

from __future__ import annotations

import atexit
import collections
import json
import logging
import os
import re
import sys
import threading
import time
import unicodedata
from typing import Any, Callable

log = logging.getLogger("caravan.output")

_ESCAPE = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]?"                     # CSI: cursor moves, colours, clear screen
    r"|\x1b[\]PX^_][^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?"     # OSC (52: the clipboard), DCS, SOS, PM, APC
    r"|\x1b[ -/]*[0-~]?"                             # any other ESC sequence
    r"|\x9b[0-?]*[ -/]*[@-~]?"                       # C1 CSI
    r"|[\x90\x98\x9d\x9e\x9f][^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?")   # C1 string controls


def plain(text: object, lines: bool = False) -> str:
    """`text` as plain printable text for a terminal or a log line: escape sequences (ESC …,
    C1 CSI/OSC …) removed whole, every other control character (C0, C1, DEL, bidi and other
    format characters) removed, a tab or another kind of space made a space, and a line break
    made a space too unless `lines`. Every string that came from elsewhere (a lobby title, a
    refusal, an announcement, a spectator's end text, a name) goes through this before it is
    printed or logged (issue 34, item 5a); JSON lines need it not (json escapes controls)."""
    text = _ESCAPE.sub("", str(text))
    return "".join(c if c.isprintable() else "\n" if c == "\n" and lines
                   else " " if c in "\t\n\r\v\f" or unicodedata.category(c) == "Zs" else ""
                   for c in text)


class PlainFormatter(logging.Formatter):
    """A log line with its remote strings made plain (`plain`); one line unless `lines`
    (-v keeps a traceback's lines)."""

    def __init__(self, fmt: str, lines: bool = False):
        super().__init__(fmt)
        self.lines = lines

    def format(self, record: logging.LogRecord) -> str:
        return plain(super().format(record), self.lines)

MAX_BUFFERED = 1 << 20
"""Bytes of output held for a slow reader before lines are dropped."""
EXIT_DRAIN = 3.0
"""At exit, how long the process waits for a reader to take the lines still held."""


class LineOutput:
    """Write lines to `fd` from a daemon thread, never blocking the caller."""

    def __init__(self, fd: int = 1, max_bytes: int = MAX_BUFFERED, name: str = "stdout"):
        self.fd, self.max_bytes, self.name = fd, max_bytes, name
        self.dropped = 0                      # lines lost so far
        self._unreported = 0                  # of them, not yet told to the reader
        self._lines: collections.deque[bytes] = collections.deque()
        self._size = 0
        self._writing = False
        self._closed = False                  # the reader is gone (EPIPE): drop everything quietly
        self._cond = threading.Condition()
        threading.Thread(target=self._run, name="caravan-output", daemon=True).start()

    def line(self, text: str) -> None:
        data = (text + "\n").encode()
        with self._cond:
            if self._closed:
                return
            if self._size + len(data) > self.max_bytes:
                if not self.dropped and self.name != "stderr":     # (the warning itself goes there)
                    log.warning("stdout is not being read: output lines are dropped (and counted) "
                                "until it is; the game goes on")
                self.dropped += 1
                self._unreported += 1
                return
            self._lines.append(data)
            self._size += len(data)
            self._cond.notify()

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._lines:
                    self._cond.wait()
                data = self._lines.popleft()
                size = len(data)
                lost, self._unreported = self._unreported, 0
                self._writing = True
            if lost:
                data = self._dropped_line(lost) + data
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(self.fd, view):]
            except OSError:                   # the reader closed its end: nothing more to say
                with self._cond:
                    self._closed = True
                    self._lines.clear()
            with self._cond:
                self._size -= size
                self._writing = False
                self._cond.notify_all()

    def _dropped_line(self, count: int) -> bytes:
        text = f"{count} output line(s) were dropped: {self.name} was not read fast enough"
        if self.name == "stderr":
            return f"caravan: WARNING: {text}\n".encode()
        return (json.dumps({"type": "warning", "text": text, "dropped": count}) + "\n").encode()

    def drain(self, timeout: float) -> bool:
        """Wait up to `timeout` s for every buffered line to be written; False if the reader
        is still not reading (the lines left are then lost with the process)."""
        end = time.monotonic() + timeout
        with self._cond:
            while (self._lines or self._writing) and not self._closed:
                left = end - time.monotonic()
                if left <= 0:
                    return False
                self._cond.wait(left)
        return True


_stdout: LineOutput | None = None
_stderr: LineOutput | None = None


def stdout() -> LineOutput:
    """The process's one non-blocking writer of stdout (drained for EXIT_DRAIN s at exit)."""
    global _stdout
    if _stdout is None:
        import sys
        try:
            sys.stdout.flush()                # whatever was printed before goes first
        except (OSError, ValueError):
            pass
        _stdout = LineOutput(1)
        atexit.register(_stdout.drain, EXIT_DRAIN)
    return _stdout


def stderr() -> LineOutput:
    """The process's one non-blocking writer of stderr (drained for EXIT_DRAIN s at exit)."""
    global _stderr
    if _stderr is None:
        import sys
        try:
            sys.stderr.flush()
        except (OSError, ValueError):
            pass
        _stderr = LineOutput(2, name="stderr")
        atexit.register(_stderr.drain, EXIT_DRAIN)
    return _stderr


def stderr_is_a_pipe() -> bool:
    """Whether stderr may block on a reader that stops reading (a pipe or socket, not a
    terminal or a file): then status and log lines go through `stderr()`."""
    import stat
    import sys
    try:
        mode = os.fstat(sys.stderr.fileno()).st_mode
        return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)
    except (OSError, ValueError, AttributeError):
        return False


class StderrHandler(logging.Handler):
    """Log records as lines on stderr that never block the node (see `stderr`)."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            stderr().line(self.format(record))
        except Exception:
            self.handleError(record)


class Status:
    """Human status on stderr (rich when available; NO_COLOR respected), or JSON lines on
    stdout with --json."""

    def __init__(self, json_lines: bool = False, quiet: bool = False):
        self.json_lines, self.quiet = json_lines, quiet
        self.lobby_page: Callable[[str], None] | None = None
        """--client web before the game: the page shows the lobby's lines too."""
        self.console = None
        self.piped = stderr_is_a_pipe()
        """stderr is a pipe: lines go through a writer that never blocks (node/app/output.py)."""
        if not json_lines and not self.piped:
            try:
                from rich.console import Console
                self.console = Console(stderr=True, highlight=False)
            except ImportError:
                pass

    def __call__(self, text: str, kind: str = "status", **fields: Any) -> None:
        if self.lobby_page is not None and kind in ("lobby", "invite", "hint", "status", "bots", "genesis", "warning",
                                                    "lobby_seats"):
            self.lobby_page(text)
        if self.json_lines:                     # never blocks: a reader may stop reading (node/app/output.py)
            stdout().line(json.dumps({"type": kind, "text": text, **fields}, default=str))
        elif not self.quiet:
            text = plain(text, lines=True)      # a remote string never drives the terminal
            if self.piped:
                stderr().line(text)
            elif self.console is not None:
                self.console.print(text, markup=False)
            else:
                print(text, file=sys.stderr, flush=True)
