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

PAYS_FROM = 1000
"""Messages from which parallel checks pay for starting the workers. bench_core measures
the pool costing this process ~13 ms more CPU on a 438-message transcript (about 150
signatures' worth), while on 2556 messages the replay left to it (182 ms CPU) and each of 2
workers (~176 ms) stay below the one-core signature bound (224 ms): see its verify lines."""

FIRST_CHUNK, MAX_CHUNK = 64, 1024
"""Small first chunks so the replay starts soon; larger later ones to cut the traffic."""


def usable_cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:      # not on Linux
        return os.cpu_count() or 1


def auto_jobs(messages: int) -> int:
    """Worker processes worth starting for a transcript of this many messages (1: none)."""
    cpus = usable_cpus()
    return cpus if cpus > 1 and messages >= PAYS_FROM else 1


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
