"""Sa-Rê: engine decisions/s with random play (legal actions + apply through the referee,
one core) against the 20,000/s target and a trivial baseline measured in the same run; the
heuristic bot's win rate against random bots (target ≥ 60% of 4-player games). The
networked game's wall time against its cryptographic floor is in bench_node."""

from __future__ import annotations

from tests.benchmarks.common import choice_baseline, play_rate_line, random_play, win_rate_line

SCENARIOS = ("scribe", "priest", "pharaoh")


def run() -> list[str]:
    base = choice_baseline()
    lines = [f"baseline: rng.choice on a 20-item list: {base:,.0f}/s (CPU, one core)"]
    for n in (2, 3, 4):
        dps, sps, played = random_play("sare", n, 2.0, lambda i: {
            "scenario": SCENARIOS[i % 3], "architect": i % 4 == 3, "turn_limit": 30})
        lines.append(play_rate_line(f"{n} players, full-length games", dps, sps, played, base))
    lines.append(win_rate_line("sare", options={"scenario": "priest", "architect": False, "turn_limit": 30}))
    return lines
