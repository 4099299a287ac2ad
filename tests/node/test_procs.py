"""The process helpers every node test uses bound their waits: a silent process cannot hang
the test run (it is killed and the test fails with a clear reason)."""

import subprocess
import sys
import time

import pytest

from tests.node.procs import finish, read_until


def _silent() -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", "import time; print('{\"type\": \"x\"}', flush=True); "
                             "time.sleep(60)"], stdout=subprocess.PIPE, text=True)


def test_read_until_gives_up_on_a_silent_process():
    p = _silent()
    t0 = time.monotonic()
    assert read_until(p, "x", timeout=10)["type"] == "x"
    with pytest.raises(AssertionError, match="no 'y' line within 1"):
        read_until(p, "y", timeout=1)
    assert time.monotonic() - t0 < 10 and p.wait(timeout=5) == -9


def test_finish_kills_what_does_not_end():
    p = _silent()
    t0 = time.monotonic()
    assert finish([p], timeout=1) == [-9]
    assert time.monotonic() - t0 < 10


def test_finish_bounds_the_whole_wait_not_each_process():
    procs = [_silent() for _ in range(3)]
    t0 = time.monotonic()
    assert finish(procs, timeout=2) == [-9, -9, -9]
    assert time.monotonic() - t0 < 5
