"""Sa-Rê engine: decisions/s with random play against the 20,000/s target (with a trivial
rng.choice loop measured in the same run as the baseline), and the heuristic bot's win rate
against random bots over 500 4-player games (target ≥ 60%)."""

from __future__ import annotations

import random
import time

from clients.simulate import simulate
from protocol.games import get
from protocol.referee import Referee


def _random_play(seconds: float = 3.0) -> tuple[float, float, int]:
    eng = get("sare")
    decisions = steps = games = 0
    t0 = time.process_time()
    seed = 0
    while time.process_time() - t0 < seconds:
        n = 2 + seed % 3
        opts = {"scenario": ("scribe", "priest", "pharaoh")[seed % 3], "architect": seed % 4 == 3,
                "turn_limit": 30}
        rng = random.Random(seed)
        ref = Referee(eng, n, opts, seed=seed)
        ref.play(lambda s, legal, r: legal[rng.randrange(len(legal))])
        decisions += ref.decisions
        steps += ref.steps
        games += 1
        seed += 1
    dt = time.process_time() - t0
    return decisions / dt, steps / dt, games


def _baseline(seconds: float = 1.0) -> float:
    rng = random.Random(1)
    items = [["continue"], ["stop"], ["gold"], ["temple"], ["done"], ["pass"], ["palace"], ["library"]]
    count = 0
    t0 = time.process_time()
    while time.process_time() - t0 < seconds:
        for _ in range(10_000):
            rng.choice(items)
        count += 10_000
    return count / (time.process_time() - t0)


def run() -> list[str]:
    base = _baseline()
    dps, sps, games = _random_play()
    lines = [
        f"baseline: rng.choice on an 8-item list {base:,.0f}/s (one core)",
        f"random play, 2-4 players, full-length games ({games} games): {dps:,.0f} decisions/s "
        f"(target ≥ 20,000/s: {'met' if dps >= 20_000 else 'NOT met'}), {sps:,.0f} engine steps/s; "
        f"baseline/decision ratio {base / dps:.0f}×",
    ]
    t0 = time.perf_counter()
    stats = simulate("sare", 4, 500, ["heuristic", "random", "random", "random"], seed=2024,
                     options={"scenario": "priest", "architect": False, "turn_limit": 30})
    rate = stats.wins["heuristic#0"] / stats.games
    lines.append(f"heuristic vs 3 random, 4 players, Priest, {stats.games} games: heuristic wins "
                 f"{rate:.1%} (target ≥ 60%: {'met' if rate >= 0.6 else 'NOT met'}); "
                 f"{time.perf_counter() - t0:.1f} s")
    stats = simulate("sare", 4, 100, ["heuristic"], seed=7,
                     options={"scenario": "pharaoh", "architect": False, "turn_limit": 30})
    lines.append(f"4 heuristic bots, Pharaoh, 100 games: wins by seat rotation label "
                 + ", ".join(f"{k} {v:.0f}" for k, v in stats.wins.items()))
    return lines
