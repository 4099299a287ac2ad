"""Signature and deck proof checks in worker processes for `caravan verify --jobs N` (issues
#17 and #25).

Each message's signature is independent of the others and costs most of a replay, so
N − 1 workers check chunks of them, starting from the end of the transcript, while this
process replays the game from the start (`protocol.verify.verify_bytes(signatures=...)`).
The replay never waits for a worker: it checks every signature no worker has reported yet
itself, and skips only those a worker accepted, so the verdict cannot change. Where the
two meet, the workers' remaining chunks are dropped. Deck proofs (most of a Sa-Rê or Nomads
replay) go to the same workers while the replay goes on as if they passed; its report stands
only if all did, and at the end the replay checks itself, from the last, those no worker has
started (`protocol.verify.ProofChecks`).
"""

from __future__ import annotations

import multiprocessing
import os
import threading
from collections.abc import Callable, Collection, Generator, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from contextlib import contextmanager

from protocol.identity import Checked
from protocol.verify import ProofChecks, SignatureChecks, check_signatures

# Opt-in (`caravan verify --jobs N`): a worker costs a process start (fork) and the traffic
# of the messages and results, and pays only with a core to spare. bench_core, 2,556
# messages, 2 shared cores: at load 5, 109 ms wall with --jobs 2 against 142 ms CPU alone;
# at load 9-13, in turn with the one-process replay, 0.73-1.26x as fast (the earlier
# design, whose replay waited for its 2 workers' chunks in order: 0.65-0.78x).

CHUNK = 128
"""Messages per worker task: small enough that little work is lost where the workers
meet the replay, large enough that the traffic stays a small part of the check."""


def usable_cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:      # not on Linux
        return os.cpu_count() or 1


def _chunks(total: int, size: int = CHUNK) -> list[tuple[int, int]]:
    """[start, end) spans of `size` messages covering 0..total in order."""
    return [(start, min(total, start + size)) for start in range(0, total, size)]


def _context() -> multiprocessing.context.BaseContext:
    # fork is the cheap start, and safe while this process runs no other thread
    fork = threading.active_count() == 1 and "fork" in multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("fork" if fork else "spawn")


@contextmanager
def workers(jobs: int) -> Iterator[ProcessPoolExecutor]:
    """jobs − 1 worker processes for one `caravan verify --jobs N` (this process replays and
    checks too), to pass to `in_processes` and `proofs_in`; their processes start (with a
    fork, before any thread) at the first task."""
    pool = ProcessPoolExecutor(max(1, jobs - 1), mp_context=_context())
    try:
        yield pool
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def in_processes(jobs: int, pool: ProcessPoolExecutor | None = None) -> SignatureChecks:
    """A `signatures` argument for verify_bytes: `jobs` processes in all check signatures,
    this one (the replay) and jobs − 1 workers (those of `pool`, left open, or of a pool
    made for each replay)."""

    def checks(messages: list[bytes]) -> Generator[tuple[int, Collection[Checked]], int, None]:
        own = ProcessPoolExecutor(max(1, jobs - 1), mp_context=_context()) if pool is None else None
        run = own or pool
        pending: list[tuple[int, Future]] = []
        try:
            # from the end backwards: the replay starts at the front
            pending = [(start, run.submit(check_signatures, messages[start:end]))
                       for start, end in reversed(_chunks(len(messages)))]
            while pending:
                batch: list[Checked] = []
                left = []
                for start, future in pending:
                    if future.done():
                        batch += future.result()
                    else:
                        left.append((start, future))
                pending = left
                done = yield len(batch), batch
                if done:    # the replay is past these chunks: checking them is wasted work
                    pending = [(s, f) for s, f in pending if s >= done or not f.cancel()]
        finally:
            if own is not None:
                own.shutdown(wait=True, cancel_futures=True)     # at most one chunk per worker to finish
            for _, future in pending:
                future.cancel()
    return checks


def proofs_in(pool: ProcessPoolExecutor) -> ProofChecks:
    """A `proofs` argument for verify_bytes: each message's deck proof checks go to the pool's
    workers; asked for the outcome, the replay runs them itself if no worker has started them."""
    def start(checks: Callable[[], bool]) -> Callable[[], bool]:
        future = pool.submit(checks)

        def passed() -> bool:
            if future.cancel():
                return checks()
            try:
                return future.result() is True
            except Exception:       # a worker died: no proof is taken as passed
                return False
        return passed
    return start
