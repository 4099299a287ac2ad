"""`caravan tournament ... --ray [ADDRESS]`: the tournament's games as Ray tasks on a cluster.

    pip install 'caravan[ray]'                    # on every machine of the cluster
    ray start --head                              # here; `ray start --address HEAD:6379` on the others
    caravan tournament GAME --players 4 --bots search,heuristic --games 400 --ray HEAD:6379

Each game is one task running the local runner's own `play_one` on the same GameJob (both
given by clients/tournament.py, which imports this module only for --ray: seeds
derived from --seed and the game's number), and the results are folded in game order, so the
standings are the ones `--jobs` gives for the same seed (with --iterations rather than the
clock-bound --think for the search bot). A game whose worker or machine is lost is played
again from its seed, up to RETRIES more times; an error inside a game stops the tournament as
it does locally.

A worker is not trusted with the standings: it returns the game's record (every decision's
move) with its result, and the driver plays the moves again from the game's seed with the
engine alone (`check_result`) before it counts the game. A result that does not match its
moves, or comes without them, is named and the game played again (up to RETRIES more times;
then the tournament stops with that line, exit 1)."""

from __future__ import annotations

import logging
import socket
from typing import Any, Callable

RETRIES = 3


class RayUnavailable(RuntimeError):
    """Ray is not installed or the cluster cannot be reached: one line for the user."""


def play_all(jobs: list[Any], play_one: Callable[[Any], dict[str, Any]],
             check_result: Callable[[Any, Any], str | None], address: str | None,
             progress: Callable[[int, int], None] | None = None,
             say: Callable[[str], None] = lambda text: None) -> list[dict[str, Any]]:
    """Every job's result (`play_one(job)` on a worker, checked by `check_result(job, result)`
    here: None, or why it does not check), in job order. `address`: the cluster's (HOST:PORT,
    ray://..., or "auto"); None joins the cluster `ray start` runs on this machine, else
    starts a local one."""
    try:
        import ray
        from ray import exceptions as rex
    except ImportError:
        raise RayUnavailable("--ray needs Ray: pip install 'caravan[ray]'") from None
    _check_reachable(address)
    try:
        ray.init(address=address, logging_level=logging.WARNING, log_to_driver=False)
    except (ConnectionError, RuntimeError, ValueError) as exc:
        raise RayUnavailable(f"cannot reach the Ray cluster at {address or 'this machine'}: "
                             f"{str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__}"
                             ) from None
    try:
        say(f"Ray cluster: {int(ray.cluster_resources().get('CPU', 0))} CPUs on {len(ray.nodes())} node(s); "
            f"{len(jobs)} games")
        # no retries by Ray itself: lost games are resubmitted below, where they can be counted and told
        task = ray.remote(num_cpus=1, max_retries=0)(play_one)
        pending = {task.remote(job): (i, 0) for i, job in enumerate(jobs)}
        results: list[dict[str, Any] | None] = [None] * len(jobs)
        done = 0

        def again(i: int, retries: int, what: str) -> None:
            """Play game i again after `what` went wrong, or stop after RETRIES more tries."""
            if retries >= RETRIES:
                raise RayUnavailable(f"game {i + 1}: {what}, {retries + 1} times; stopping")
            say(f"game {i + 1}: {what}; playing it again")
            pending[task.remote(jobs[i])] = (i, retries + 1)

        while pending:
            ready, _ = ray.wait(list(pending), num_returns=1)
            i, retries = pending.pop(ready[0])
            try:
                result = ray.get(ready[0])
            except rex.RayTaskError as exc:      # the game itself failed: as locally, that is an error
                raise exc.as_instanceof_cause() from None
            except rex.RayError as exc:          # its worker process or node was lost
                again(i, retries, f"its worker was lost ({type(exc).__name__})")
                continue
            why = check_result(jobs[i], result)
            if why is not None:                  # a worker that lies, or a broken one: not counted
                again(i, retries, f"the result its worker returned does not check ({why})")
                continue
            results[i] = result
            done += 1
            if progress:
                progress(done, len(jobs))
        return results
    finally:
        ray.shutdown()


def _check_reachable(address: str | None) -> None:
    """A HOST:PORT nobody answers on fails in seconds here (ray.init would retry for minutes)."""
    if not address or address == "auto":
        return
    host, _, port = address.removeprefix("ray://").rpartition(":")
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=10).close()
    except ValueError:
        raise RayUnavailable(f"--ray {address}: expected HOST:PORT (the head's, e.g. 10.0.0.5:6379)") from None
    except OSError as exc:
        raise RayUnavailable(f"cannot reach the Ray cluster at {address}: {exc.strerror or exc}") from None
