"""Measuring helpers shared by the benchmarks (one way to time each thing)."""

from __future__ import annotations

import random
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

from clients.simulate import simulate
from protocol import games
from protocol.referee import Referee

TARGET_DPS = 100_000
TARGET_CLONE = 10.0
"""Issue #17: a mid-game clone costs at most this many applies."""
TARGET_WIN = 0.60


def best_per_call(fn: Callable[[], Any], n: int = 2000, repeat: int = 3) -> float:
    """Seconds per call of fn: the best of `repeat` runs of n calls (wall clock)."""
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        best = min(best, (time.perf_counter() - t0) / n)
    return best


def interleaved(fns: list[Callable[[], Any]], n: int = 500, rounds: int = 15,
                clock: Callable[[], float] = time.perf_counter) -> list[float]:
    """Seconds per call of each fn, best of `rounds` short runs taken in turn, so that a
    noisy machine slows a measurement and its baseline alike (`clock=time.process_time`
    for CPU time, which other processes on a shared machine do not inflate)."""
    best = [float("inf")] * len(fns)
    for _ in range(rounds):
        for i, fn in enumerate(fns):
            t0 = clock()
            for _ in range(n):
                fn()
            best[i] = min(best[i], (clock() - t0) / n)
    return best


def choice_baseline(seconds: float = 1.0) -> float:
    """rng.choice calls per CPU second on a 20-item list: the trivial loop engines are compared to."""
    rng = random.Random(1)
    items = list(range(20))
    count = 0
    t0 = time.process_time()
    while time.process_time() - t0 < seconds:
        for _ in range(10_000):
            rng.choice(items)
        count += 10_000
    return count / (time.process_time() - t0)


def random_play(game: str, players: int, seconds: float = 3.0,
                options: Callable[[int], dict[str, Any] | None] = lambda i: None) -> tuple[float, float, int]:
    """Random games through the referee for `seconds` of CPU: (decisions/s, steps/s, games)."""
    engine = games.get(game)
    decisions = steps = played = 0
    t0 = time.process_time()
    while time.process_time() - t0 < seconds:
        rng = random.Random(played)
        ref = Referee(engine, players, options(played), seed=played)
        ref.play(lambda seat, legal, r: legal[rng.randrange(len(legal))])
        decisions += ref.decisions
        steps += ref.steps
        played += 1
    dt = time.process_time() - t0
    return decisions / dt, steps / dt, played


def clone_cost(game: str, players: int, options: dict[str, Any] | None = None, seed: int = 1) -> tuple[float, float]:
    """(seconds per clone of a mid-game state, mean seconds per apply over the same random game)."""
    engine = games.get(game)
    rng = random.Random(seed)
    ref = Referee(engine, players, options, seed=seed)
    events = []
    while (event := ref.step(lambda seat, legal, r: legal[rng.randrange(len(legal))])) is not None:
        events.append(event)
    state = engine.new_game(ref.options, players)
    mid = None
    t0 = time.perf_counter()
    for i, event in enumerate(events):
        engine.apply(state, event)
        if i == len(events) // 2:
            t_mid = time.perf_counter()
            mid = engine.clone(state)
            t0 += time.perf_counter() - t_mid       # the clone is not an apply
    per_apply = (time.perf_counter() - t0) / max(1, len(events))
    return best_per_call(lambda: engine.clone(mid), n=200), per_apply


def clone_line(label: str, game: str, players: int, options: dict[str, Any] | None = None) -> str:
    clone_s, apply_s = clone_cost(game, players, options)
    ratio = clone_s / apply_s
    return (f"{label}: mid-game clone {clone_s * 1e6:,.1f} µs = {ratio:.1f}× one apply ({apply_s * 1e6:,.1f} µs) "
            f"(target ≤ {TARGET_CLONE:.0f}×: {'met' if ratio <= TARGET_CLONE else 'MISSED'})")


def play_rate_line(label: str, dps: float, sps: float, played: int, base: float) -> str:
    return (f"{label}: {dps:,.0f} decisions/s, {sps:,.0f} engine steps/s over {played} games "
            f"(target ≥ {TARGET_DPS:,}/s: {'met' if dps >= TARGET_DPS else 'MISSED'}; "
            f"baseline is {base / dps:.0f}× faster)")


def win_rate_line(game: str, games_: int = 500, seed: int = 7, options: dict[str, Any] | None = None) -> str:
    """The heuristic bot against three random bots in 4-player games."""
    stats = simulate(game, 4, games_, ["heuristic", "random", "random", "random"], seed=seed, options=options)
    rate = stats.wins["heuristic#0"] / stats.games
    return (f"heuristic vs 3 random, {stats.games} 4-player games: win rate {rate:.1%} "
            f"(target ≥ {TARGET_WIN:.0%}: {'met' if rate >= TARGET_WIN else 'MISSED'}), "
            f"{stats.games_per_s:.1f} games/s")


def local_broker(prefix: str, persistent: bool = False) -> tuple[Any, Path] | str:
    """A local Mosquitto for a benchmark, started in a fresh temporary folder named `prefix`...:
    (broker, folder), or the line saying why the benchmark is skipped."""
    try:
        from tests.relay.broker import Broker, mosquitto_path
    except ImportError as exc:
        return f"skipped: {exc}"
    if mosquitto_path() is None:
        return "skipped: Mosquitto is not installed (apt-get install mosquitto)"
    work = Path(tempfile.mkdtemp(prefix=prefix))
    return Broker(work, persistent=persistent).start(), work
