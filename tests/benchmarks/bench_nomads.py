"""Nomads of Arabia: engine decisions/s with random play (legal actions + apply through the
referee, one core) for every player count and option set against issue #17's 100,000/s target
and a trivial baseline measured in the same run; the cost of a mid-game clone in applies
(target ≤ 10); the heuristic bot's win rate against random bots (target ≥ 60% of 4-player games)."""

from __future__ import annotations

from typing import Any

from tests.benchmarks.common import choice_baseline, clone_line, play_rate_line, random_play, win_rate_line

SECONDS = 1.5
OPTION_SETS: list[tuple[str, int, dict[str, Any]]] = [
    ("4 players yellow_tiles=0", 4, {"yellow_tiles": 0}),
    ("4 players short_blue", 4, {"short_blue": True}),
    ("4 players full_market=gamebox", 4, {"full_market": "gamebox"}),
    ("4 players lost_turns=1", 4, {"lost_turns": 1}),
    ("3 players all four options", 3, {"yellow_tiles": 0, "short_blue": True, "full_market": "gamebox",
                                       "lost_turns": 1}),
]
"""Each option away from its default (the shortest games, so the most setup per decision, with
all of them at once)."""


def run() -> list[str]:
    base = choice_baseline()
    lines = [f"baseline: rng.choice on a 20-item list: {base:,.0f}/s (CPU, one core)"]
    for n in (3, 4, 5, 6):
        dps, sps, played = random_play("nomads", n, SECONDS)
        lines.append(play_rate_line(f"{n} players", dps, sps, played, base))
    for label, n, opts in OPTION_SETS:
        dps, sps, played = random_play("nomads", n, SECONDS, lambda i, o=opts: o)
        lines.append(play_rate_line(label, dps, sps, played, base))
    lines.append(clone_line("4 players", "nomads", 4))
    lines.append(win_rate_line("nomads", games_=200))   # the heuristic bot plays ~9 games/s
    return lines
