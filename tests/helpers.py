"""Helpers for tests: make a game's genesis and play it among in-process replicas that
exchange only bytes (protocol.local_table), wait with timeouts, skip without a system package."""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import threading
import time
from contextlib import contextmanager
from typing import Any, Awaitable, Callable, Iterator, NoReturn, TypeVar

import pytest

from protocol.local_table import Chooser, Table, make_genesis, new_table, play  # noqa: F401 - the tests' names


def missing_system_package(what: str, install: str) -> NoReturn:
    """A system package (or a right, such as making a network namespace or mounting a tmpfs)
    a test needs is missing: skip with one line saying how to get it, except with CI=true,
    where .ci/run installs it (and runs as root) and a missing one fails the run."""
    if os.environ.get("CI") == "true":
        pytest.fail(f"CI=true but {what} is missing: {install}")
    pytest.skip(install)


def free_udp_port() -> int:
    """A UDP port free on loopback now (for discovery: never the fixed default 47474, which
    tests running at the same time, or a real lobby on this machine, would share)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# --- waiting: every wait in the tests is bounded, and every bound scales with one setting ---

SCALE_ENV = "CARAVAN_TEST_TIMEOUT_SCALE"
T = TypeVar("T")


def timeout_scale() -> float:
    """CARAVAN_TEST_TIMEOUT_SCALE (default 1): every test timeout is multiplied by it, so a
    machine N times slower runs the suite with the setting at N (see CONTRIBUTING.md)."""
    raw = os.environ.get(SCALE_ENV, "").strip()
    if not raw:
        return 1.0
    try:
        scale = float(raw)
    except ValueError:
        raise ValueError(f"{SCALE_ENV}={raw!r} is not a number") from None
    if scale <= 0:
        raise ValueError(f"{SCALE_ENV}={raw!r} must be positive")
    return scale


def timeout(seconds: float) -> float:
    """A timeout for a wait on something real (a process, a socket, a browser, a thread):
    `seconds` on this project's reference machine, times CARAVAN_TEST_TIMEOUT_SCALE."""
    return seconds * timeout_scale()


def wait_until(predicate: Callable[[], T], within: float, what: str, interval: float = 0.05,
               why: Callable[[], object] | None = None) -> T:
    """Poll `predicate` until it returns something true and return that; after `within`
    seconds (scaled by timeout()) raise an AssertionError naming `what` was awaited, and,
    given `why`, what it returns then (the state that was not reached, a log's tail)."""
    deadline = time.monotonic() + timeout(within)
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() >= deadline:
            detail = f"; {why()}" if why is not None else ""
            raise AssertionError(f"timed out after {timeout(within):g} s waiting for {what}{detail}")
        time.sleep(interval)


async def wait_until_async(predicate: Callable[[], T | Awaitable[T]], within: float, what: str,
                           interval: float = 0.01) -> T:
    """wait_until for trio code: the pause is trio.sleep, the deadline is trio's clock (so under
    the autojump_clock fixture it is virtual time); `predicate` may be sync or async."""
    import inspect

    import trio
    deadline = trio.current_time() + timeout(within)
    while True:
        value = predicate()
        if inspect.isawaitable(value):
            value = await value
        if value:
            return value
        if trio.current_time() >= deadline:
            raise AssertionError(f"timed out after {timeout(within):g} s waiting for {what}")
        await trio.sleep(interval)


async def wait_until_asyncio(predicate: Callable[[], T], within: float, what: str, interval: float = 0.01) -> T:
    """wait_until for asyncio code (the tab's seats in CPython): the pause is asyncio.sleep."""
    async def poll() -> T:
        while not (value := predicate()):
            await asyncio.sleep(interval)
        return value
    try:
        return await asyncio.wait_for(poll(), timeout(within))
    except asyncio.TimeoutError:
        raise AssertionError(f"timed out after {timeout(within):g} s waiting for {what}") from None


def wait_exit(proc: subprocess.Popen, within: float, what: str) -> int:
    """The process's exit code; if it has not exited within `within` seconds (scaled), kill it
    and fail naming `what` (a hang is a failure, never a pass or a skip)."""
    try:
        return proc.wait(timeout=timeout(within))
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        raise AssertionError(f"{what} did not exit within {timeout(within):g} s") from None


def communicate(proc: subprocess.Popen, within: float, what: str, input: Any = None) -> tuple[Any, Any]:
    """proc.communicate() bounded by `within` seconds (scaled): on a hang the process is
    killed and the test fails naming `what`."""
    try:
        return proc.communicate(input, timeout=timeout(within))
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        raise AssertionError(f"{what} did not exit within {timeout(within):g} s") from None


@contextmanager
def killed_on_exit() -> Iterator[list[subprocess.Popen]]:
    """A list for a test's processes: those still running when the block ends (an assertion
    failed, or they hung) are killed and reaped, so that none outlives the test."""
    procs: list[subprocess.Popen] = []
    try:
        yield procs
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()


def join(thread: threading.Thread, within: float, what: str) -> None:
    """Join the thread, failing (naming `what`) if it is still running after `within` seconds
    (scaled): `Thread.join(timeout=...)` alone returns quietly on a hang."""
    thread.join(timeout=timeout(within))
    assert not thread.is_alive(), f"{what} still running after {timeout(within):g} s"
