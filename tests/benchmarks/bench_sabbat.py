"""Sabbat Magica: engine decisions/s with random play (legal actions, apply and the referee's
step, one core) for every player count and option set, against issue #17's 100,000/s target,
RLCard's Uno (≈ 18,000 actions/s) and a trivial baseline measured in the same run; the cost
of a mid-game clone against one apply (target ≤ 10×); the heuristic bot's win rate against
random bots (target ≥ 60% in 4-player games)."""

from __future__ import annotations

from typing import Any

from tests.benchmarks.common import choice_baseline, clone_line, play_rate_line, random_play, win_rate_line

RLCARD_UNO = 18_000
SECONDS = 1.5
"""CPU seconds of random play per line."""

OPTION_SETS: dict[str, dict[str, Any]] = {
    "": {},
    " +POWER": {"powers": True},
    " leftovers=discard": {"leftovers": "discard"},
    " magician_move=literal": {"magician_move": "literal"},
    " +POWER power_limit=trigger": {"powers": True, "power_limit": "trigger"},
}


def run() -> list[str]:
    base = choice_baseline()
    lines = [f"baseline: rng.choice on a 20-item list: {base:,.0f}/s (CPU, one core); RLCard Uno ≈ {RLCARD_UNO:,} actions/s"]
    for label, options in OPTION_SETS.items():
        for n in (2, 3, 4):
            dps, sps, played = random_play("sabbat", n, SECONDS, lambda i: dict(options))
            lines.append(play_rate_line(f"{n} players{label}", dps, sps, played, base))
    for n in (2, 4):
        lines.append(clone_line(f"{n} players +POWER", "sabbat", n, {"powers": True}))
    lines.append(win_rate_line("sabbat"))
    return lines
