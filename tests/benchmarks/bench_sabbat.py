"""Sabbat Magica: engine decisions/s with random play (legal actions + apply through the
referee, one core) against the 20,000/s target, RLCard's Uno (≈ 18,000 actions/s) and a
trivial baseline measured in the same run; the heuristic bot's win rate against random
bots (target ≥ 60% in 4-player games)."""

from __future__ import annotations

from tests.benchmarks.common import choice_baseline, play_rate_line, random_play, win_rate_line

RLCARD_UNO = 18_000


def run() -> list[str]:
    base = choice_baseline()
    lines = [f"baseline: rng.choice on a 20-item list: {base:,.0f}/s (CPU, one core); RLCard Uno ≈ {RLCARD_UNO:,} actions/s"]
    for powers in (False, True):
        for n in (2, 3, 4):
            dps, sps, played = random_play("sabbat", n, 2.0, lambda i: {"powers": powers} if powers else None)
            lines.append(play_rate_line(f"{n} players{' +POWER' if powers else ''}", dps, sps, played, base))
    lines.append(win_rate_line("sabbat"))
    return lines
