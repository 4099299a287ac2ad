"""The wait helpers every test uses (tests/helpers.py): timeouts scale with
CARAVAN_TEST_TIMEOUT_SCALE, and a wait that runs out, a process or a thread that hangs, fails
naming what was awaited (never passes, never skips)."""

from __future__ import annotations

import subprocess
import sys
import threading

import pytest
import trio

from tests import helpers


def test_timeouts_scale_with_one_setting(monkeypatch):
    monkeypatch.delenv(helpers.SCALE_ENV, raising=False)
    assert helpers.timeout(2) == 2
    monkeypatch.setenv(helpers.SCALE_ENV, "3")
    assert helpers.timeout(2) == 6
    for bad in ("zero", "0", "-1"):
        monkeypatch.setenv(helpers.SCALE_ENV, bad)
        with pytest.raises(ValueError, match=helpers.SCALE_ENV):
            helpers.timeout(1)


def test_wait_until_returns_the_value_or_fails_naming_what(monkeypatch):
    monkeypatch.setenv(helpers.SCALE_ENV, "1")
    calls = []
    assert helpers.wait_until(lambda: calls.append(1) or (len(calls) >= 3 and "ready"), 5, "three calls",
                              interval=0.001) == "ready"
    with pytest.raises(AssertionError, match="waiting for the moon"):
        helpers.wait_until(lambda: False, 0.05, "the moon", interval=0.01)


async def test_wait_until_async_runs_on_trios_clock(autojump_clock):
    start = trio.current_time()
    with pytest.raises(AssertionError, match="waiting for nothing"):
        await helpers.wait_until_async(lambda: False, 30, "nothing")     # virtual time: no real 30 s
    assert trio.current_time() - start >= helpers.timeout(30)

    async def later() -> int:
        return 7 if trio.current_time() - start > 40 else 0
    assert await helpers.wait_until_async(later, 30, "an async predicate") == 7


def test_a_hung_process_or_thread_fails():
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    with pytest.raises(AssertionError, match="the sleeper did not exit"):
        helpers.wait_exit(sleeper, 0.2, "the sleeper")
    assert sleeper.poll() is not None, "killed once it had hung"
    quick = subprocess.Popen([sys.executable, "-c", "print('hi')"], stdout=subprocess.PIPE, text=True)
    assert helpers.communicate(quick, 30, "the quick one") == ("hi\n", None) and quick.returncode == 0

    release = threading.Event()
    stuck = threading.Thread(target=release.wait, daemon=True)
    stuck.start()
    with pytest.raises(AssertionError, match="the stuck thread still running"):
        helpers.join(stuck, 0.05, "the stuck thread")
    release.set()
    helpers.join(stuck, 10, "the released thread")
