"""Sa-Rê: engine decisions/s with random play (legal actions, the referee's step, expected and
apply, one core) against issue #17's 100,000/s target and a trivial baseline measured in the same
run, per player count and per option set; a mid-game clone against one apply; the heuristic bot's
win rate against random bots (target ≥ 60% of 4-player games). The networked game's wall time
against its cryptographic floor is in bench_node."""

from __future__ import annotations

from tests.benchmarks.common import choice_baseline, clone_line, play_rate_line, random_play, win_rate_line

SCENARIOS = ("scribe", "priest", "pharaoh")
OPTION_SETS = {
    "scenario scribe": {"scenario": "scribe"},
    "scenario priest": {"scenario": "priest"},
    "scenario pharaoh": {"scenario": "pharaoh"},
    "architect": {"architect": True},
    "pyramid_pick free": {"pyramid_pick": "free"},
    "shoe up": {"shoe": "up"},
}
SECONDS = 1.5


def _mixed(i: int) -> dict:
    return {"scenario": SCENARIOS[i % 3], "architect": i % 4 == 3, "turn_limit": 30}


def run() -> list[str]:
    base = choice_baseline()
    lines = [f"baseline: rng.choice on a 20-item list: {base:,.0f}/s (CPU, one core)"]
    for n in (2, 3, 4):
        dps, sps, played = random_play("sare", n, SECONDS, _mixed)
        lines.append(play_rate_line(f"{n} players, full-length games, mixed options", dps, sps, played, base))
    for label, options in OPTION_SETS.items():
        # every player count, a third of the time each: the line reports the slowest
        rates = [random_play("sare", n, SECONDS / 3, lambda i: {**options, "turn_limit": 30}) for n in (2, 3, 4)]
        worst = min(range(3), key=lambda k: rates[k][0])
        dps, sps, played = rates[worst]
        each = ", ".join(f"{n}p {r[0]:,.0f}" for n, r in zip((2, 3, 4), rates))
        lines.append(play_rate_line(f"{label} (slowest of {each}: {worst + 2}p)", dps, sps, played, base))
    lines.append(clone_line("4 players, priest", "sare", 4, {"scenario": "priest", "turn_limit": 30}))
    lines.append(clone_line("3 players, architect", "sare", 3, {"architect": True, "turn_limit": 30}))
    lines.append(win_rate_line("sare", options={"scenario": "priest", "architect": False, "turn_limit": 30}))
    return lines
