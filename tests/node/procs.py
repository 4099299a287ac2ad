"""Run caravan nodes as OS processes (with the fixture game available to them)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

from tests.helpers import timeout as scaled

ROOT = Path(__file__).resolve().parents[2]


def env() -> dict[str, str]:
    e = dict(os.environ)
    e["CARAVAN_ENGINES"] = "tests.fixture_game"
    e["PYTHONPATH"] = str(ROOT) + os.pathsep + e.get("PYTHONPATH", "")
    return e


class Drained:
    """A process's stdout, read all the time by a thread into memory, so the process never
    blocks on a full pipe however long the test leaves it unread (issue 27: a node blocked
    in `print` looks connected but silent to its peers). Reads like the pipe it replaces:
    readline() ("" at the end), read() (the rest, at the end), iteration."""

    def __init__(self, pipe):
        self._pipe = pipe
        self._lines: list[str] = []
        self._pos = 0
        self._eof = False
        self._cond = threading.Condition()
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        for line in self._pipe:
            with self._cond:
                self._lines.append(line)
                self._cond.notify_all()
        with self._cond:
            self._eof = True
            self._cond.notify_all()

    def readline(self) -> str:
        with self._cond:
            while self._pos >= len(self._lines) and not self._eof:
                self._cond.wait()
            if self._pos >= len(self._lines):
                return ""
            self._pos += 1
            return self._lines[self._pos - 1]

    def read(self) -> str:
        with self._cond:
            while not self._eof:
                self._cond.wait()
            rest, self._pos = self._lines[self._pos:], len(self._lines)
            return "".join(rest)

    def __iter__(self):
        return iter(self.readline, "")

    def close(self) -> None:
        pass                                    # the pump ends with the process's end of the pipe


def node(args: list[str], data_dir: Path, log: Path, prefix: list[str] | None = None) -> subprocess.Popen:
    """A `caravan ... --json` process whose stdout is always drained (read it with read_until)."""
    proc = subprocess.Popen([*(prefix or []), sys.executable, "-m", "node", *args, "--data-dir", str(data_dir),
                             "--json"], stdout=subprocess.PIPE, stderr=log.open("ab"), text=True, env=env(),
                            cwd=ROOT)
    proc.stdout = Drained(proc.stdout)
    proc.log = log                              # type: ignore[attr-defined] - its tail goes into failures
    return proc


def log_tail(proc: subprocess.Popen, log: Path | None = None, lines: int = 12) -> str:
    """The last lines the process wrote to its log (stderr; `log`, else the one `node` gave
    it), to say why it ended."""
    log = log or getattr(proc, "log", None)
    try:
        text = log.read_text(errors="replace") if log else ""
    except OSError:
        text = ""
    tail = text.splitlines()[-lines:]
    return ("; its log ends:\n" + "\n".join(tail)) if tail else ""


class _Deadline:
    """Kills `proc` if the block it guards outlasts `timeout` (scaled by
    CARAVAN_TEST_TIMEOUT_SCALE): a blocking read of its output then ends (EOF) instead of
    hanging the test run; `expired` says whether that happened."""

    def __init__(self, proc: subprocess.Popen, timeout: float):
        self.proc, self.expired = proc, False
        self._timer = threading.Timer(scaled(timeout), self._expire)
        self._timer.daemon = True

    def _expire(self) -> None:
        self.expired = True
        if self.proc.poll() is None:
            self.proc.kill()

    def __enter__(self) -> "_Deadline":
        self._timer.start()
        return self

    def __exit__(self, *exc) -> None:
        self._timer.cancel()


def read_until(proc: subprocess.Popen, kind: str, timeout: float = 30.0, count: int = 1) -> dict:
    """Read JSON lines until the `count`-th line of type `kind`; a process still silent after
    `timeout` seconds (scaled by CARAVAN_TEST_TIMEOUT_SCALE) is killed and the test fails."""
    seen = 0
    with _Deadline(proc, timeout) as deadline:
        while True:
            line = proc.stdout.readline()
            if not line:
                if deadline.expired:
                    raise AssertionError(f"no {kind!r} line within {scaled(timeout):g} s (the process was killed)")
                raise AssertionError(f"process ended before a {kind!r} line (exit {proc.wait()}){log_tail(proc)}")
            msg = json.loads(line)
            if msg.get("type") == kind:
                seen += 1
                if seen >= count:
                    return msg


def finish(procs: list[subprocess.Popen], timeout: float = 60.0) -> list[int]:
    """Each process's exit code once it ends (its remaining output read and dropped); those
    still running `timeout` seconds (scaled) after the call are killed (-9)."""
    deadlines = [_Deadline(p, timeout) for p in procs]     # one shared deadline, not one each
    for d in deadlines:
        d.__enter__()
    try:
        codes = []
        for p, d in zip(procs, deadlines):
            p.stdout.read()
            code = p.wait()
            codes.append(-9 if d.expired else code)
        return codes
    finally:
        for d in deadlines:
            d.__exit__()
