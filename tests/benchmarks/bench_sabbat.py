"""Sabbat Magica: engine decisions/s with random play (legal actions + apply, one core) against
the 20,000/s target and a trivial baseline loop measured in the same run, and the heuristic
bot's win rate against random bots (target >= 60% in 4-player games)."""

from __future__ import annotations

import random
import time

from clients.simulate import simulate
from protocol import engine as E
from protocol.games.sabbat import ENGINE

TARGET_DPS = 20_000
RLCARD_UNO = 18_000
TARGET_WIN = 0.60


def _random_games(n: int, games: int, powers: bool) -> tuple[int, float]:
    """Play `games` games calling only the engine: legal_actions + apply per decision."""
    rng = random.Random(n)
    decisions = 0
    t0 = time.perf_counter()
    for g in range(games):
        st = ENGINE.new_game({"powers": powers, "peoples": list(range(n)), "leftovers": "keep"}, n)
        know = [dict() for _ in range(n)]
        handle = 1
        while True:
            step = ENGINE.expected(st)
            if isinstance(step, E.Decide):
                legal = ENGINE.legal_actions(st, step.seat, know[step.seat])
                ENGINE.apply(st, E.Act(step.seat, legal[rng.randrange(len(legal))]))
                decisions += 1
            elif isinstance(step, E.Simultaneous):
                ENGINE.apply(st, E.Choices(tuple(rng.randrange(len(ENGINE.legal_actions(st, s))) for s in step.seats)))
                decisions += len(step.seats)
            elif isinstance(step, E.Commit):
                hs = tuple(range(handle, handle + n))
                handle += n
                for s, h in zip(step.seats, hs):
                    know[s][h] = rng.choice(ENGINE.legal_actions(st, s))
                ENGINE.apply(st, E.Committed(step.tag, hs))
                decisions += n
            elif isinstance(step, E.Random):
                vals = []
                for kind, k in step.draws:
                    if kind == "int":
                        vals.append(rng.randrange(k))
                    else:
                        p = list(range(k))
                        rng.shuffle(p)
                        vals.append(tuple(p))
                ENGINE.apply(st, E.Rolled(tuple(vals)))
            else:
                break
    return decisions, time.perf_counter() - t0


def _baseline(count: int) -> float:
    rng = random.Random(0)
    items = list(range(20))
    t0 = time.perf_counter()
    for _ in range(count):
        rng.choice(items)
    return count / (time.perf_counter() - t0)


def run() -> list[str]:
    lines = []
    base = _baseline(300_000)
    lines.append(f"baseline: rng.choice on a 20-item list: {base:,.0f}/s")
    for powers in (False, True):
        for n in (2, 3, 4):
            d, s = _random_games(n, 200, powers)
            dps = d / s
            lines.append(f"{n} players{' +POWER' if powers else ''}: {dps:,.0f} decisions/s "
                         f"(target {TARGET_DPS:,}: {'met' if dps >= TARGET_DPS else 'MISSED'}; "
                         f"RLCard Uno ~{RLCARD_UNO:,} actions/s; {dps / base:.3f} x baseline), "
                         f"{200 / s:,.1f} games/s")
    stats = simulate("sabbat", 4, 500, ["heuristic", "random", "random", "random"], seed=7)
    rate = stats.wins["heuristic#0"] / stats.games
    lines.append(f"heuristic vs 3 random, 500 4-player games: win rate {rate:.1%} "
                 f"(target {TARGET_WIN:.0%}: {'met' if rate >= TARGET_WIN else 'MISSED'}), "
                 f"{stats.games_per_s:.1f} games/s")
    stats = simulate("sabbat", 2, 200, ["heuristic", "random"], seed=7)
    lines.append(f"heuristic vs random, 200 2-player games: win rate {stats.wins['heuristic#0'] / stats.games:.1%}")
    return lines
