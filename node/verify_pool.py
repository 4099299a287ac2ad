"""Signature checks in worker processes for `caravan verify` (issue #17 item 4).

Each message's signature is independent of the others and costs most of a replay, so
workers check chunks of them while this process replays the game in order
(`protocol.verify.verify_bytes(signatures=...)`): the replay skips only signatures a worker
accepted, and checks everything else itself, so the verdict cannot change.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
from collections.abc import Collection, Iterator
from concurrent.futures import ProcessPoolExecutor

from protocol.identity import Checked
from protocol.verify import SignatureChecks, check_signatures

# Opt-in (`caravan verify --jobs N`): on an idle 2-core machine bench_core measured 2,556
# messages in 267 ms on one core and 302 ms with 2 workers (their start and the traffic
# cost more than the signatures they take over), so nothing starts workers by default.

FIRST_CHUNK, MAX_CHUNK = 64, 1024
"""Small first chunks so the replay starts soon; larger later ones to cut the traffic."""


def usable_cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:      # not on Linux
        return os.cpu_count() or 1


def _chunks(total: int, jobs: int) -> Iterator[tuple[int, int]]:
    start, size = 0, FIRST_CHUNK
    biggest = max(FIRST_CHUNK, min(MAX_CHUNK, total // (4 * jobs)))
    while start < total:
        end = min(total, start + size)
        yield start, end
        start, size = end, min(biggest, size * 2)


def in_processes(jobs: int) -> SignatureChecks:
    """A `signatures` argument for verify_bytes that checks them in `jobs` worker processes."""
    def checks(messages: list[bytes]) -> Iterator[tuple[int, Collection[Checked]]]:
        # fork is the cheap start, and safe while this process runs no other thread
        method = "fork" if threading.active_count() == 1 and "fork" in multiprocessing.get_all_start_methods() \
            else "spawn"
        pool = ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context(method))
        try:
            futures = [(end, pool.submit(check_signatures, messages[start:end]))
                       for start, end in _chunks(len(messages), jobs)]
            for end, future in futures:
                yield end, future.result()
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
    return checks
