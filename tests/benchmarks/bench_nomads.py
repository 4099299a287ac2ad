"""Nomads of Arabia: engine decisions/s with random play (legal actions + apply through the
referee, one core) against the 20,000/s target and a trivial baseline measured in the same
run; the heuristic bot's win rate against random bots (target ≥ 60% of 4-player games)."""

from __future__ import annotations

from tests.benchmarks.common import choice_baseline, play_rate_line, random_play, win_rate_line


def run() -> list[str]:
    base = choice_baseline()
    lines = [f"baseline: rng.choice on a 20-item list: {base:,.0f}/s (CPU, one core)"]
    for n in (3, 4, 5, 6):
        dps, sps, played = random_play("nomads", n, 2.0)
        lines.append(play_rate_line(f"{n} players", dps, sps, played, base))
    lines.append(win_rate_line("nomads"))
    return lines
