"""The process helpers every node test uses bound their waits: a silent process cannot hang
the test run (it is killed and the test fails with a clear reason)."""

import subprocess
import sys
import time

import pytest

from tests.helpers import timeout
from tests.node.procs import finish, read_until


def _silent() -> subprocess.Popen:
    # silent (after one line) for longer than any wait here: the silence is what is tested
    return subprocess.Popen([sys.executable, "-c", "import time; print('{\"type\": \"x\"}', flush=True); "
                             f"time.sleep({timeout(60):g})"], stdout=subprocess.PIPE, text=True)


def test_read_until_gives_up_on_a_silent_process():
    p = _silent()
    t0 = time.monotonic()
    assert read_until(p, "x", timeout=10)["type"] == "x"
    with pytest.raises(AssertionError, match=f"no 'y' line within {timeout(1):g} s"):
        read_until(p, "y", timeout=1)
    assert time.monotonic() - t0 < timeout(10) and p.wait(timeout=timeout(5)) == -9


def test_finish_kills_what_does_not_end():
    p = _silent()
    t0 = time.monotonic()
    assert finish([p], timeout=1) == [-9]
    assert time.monotonic() - t0 < timeout(10)


def test_finish_bounds_the_whole_wait_not_each_process():
    procs = [_silent() for _ in range(3)]
    t0 = time.monotonic()
    assert finish(procs, timeout=2) == [-9, -9, -9]
    assert time.monotonic() - t0 < timeout(5)          # 3 × 2 s would be 6
