"""The search bot: figures, not pass/fail.

* Search iterations per second in each game and player count (decisions at a few positions
  of a heuristic game), against the referee's random-play steps/s measured in the same run.
* The search bot's win share against the heuristic bot, seats rotated (caravan tournament):
  4 players, 1 search + 3 heuristic (target ≥ 45 %, fair share 25 %); 2 players (target
  ≥ 70 %); 3-player Nomads (target ≥ 55 %), at a small and a larger budget so the cost of
  strength is visible. Budgets are iteration counts, so the games do not depend on the
  machine's load; each line gives the seconds per decision they equal here (from the
  iterations/s above) and a 95 % Wilson interval for the share.

The issue's figure is ≥ 100 games per line at 1 s per decision: many hours on one core. The
default is a few games per line (noisy, ~half an hour); the real figure, on a Ray cluster
(tests/benchmarks/README.md):

    CARAVAN_BENCH_SEARCH_GAMES=100 CARAVAN_BENCH_SEARCH_THINK=1 CARAVAN_BENCH_SEARCH_RAY=HEAD:6379 \\
        .venv/bin/python -m tests.benchmarks search

CARAVAN_BENCH_SEARCH_THINK=S plays S seconds per decision instead of the iteration budgets;
CARAVAN_BENCH_SEARCH_RAY=ADDRESS plays the games on that Ray cluster (`auto`: the one `ray
start` runs here), CARAVAN_BENCH_SEARCH_JOBS=N on N local processes.
"""

from __future__ import annotations

import math
import os
import random
import time

from clients import tournament
from clients.bot import make_bot
from clients.bots.search import SearchBot
from protocol import games
from protocol.referee import Referee
from tests.benchmarks.common import random_play
from tests.games.pick import games_with

GAMES = int(os.environ.get("CARAVAN_BENCH_SEARCH_GAMES", "2"))
BUDGETS = [int(b) for b in os.environ.get("CARAVAN_BENCH_SEARCH_BUDGETS", "20,100").split(",") if b]
JOBS = int(os.environ.get("CARAVAN_BENCH_SEARCH_JOBS", "1"))
THINK = float(os.environ.get("CARAVAN_BENCH_SEARCH_THINK", "0"))      # > 0: seconds per decision
RAY = os.environ.get("CARAVAN_BENCH_SEARCH_RAY")                        # a Ray cluster's address
TARGETS = {4: 0.45, 2: 0.70, 3: 0.55}


def lineups() -> list[tuple[str, int]]:
    """Each installed game with a heuristic bot (the search bot's opponents) at 4 players, then
    each at its fewest players."""
    found = games_with("heuristic", players=4)
    return [(game, 4) for game in found] + [(game, games.get(game).min_players) for game in found]


def iterations_per_s(game: str, players: int, iterations: int = 60, positions: int = 3) -> float:
    """Search iterations per CPU second at a few positions of one heuristic game."""
    engine = games.get(game)
    ref = Referee(engine, players, seed=11)
    guide = make_bot("heuristic", game, 11)
    done, spent = 0, 0.0
    for i in range(20_000):
        step = engine.expected(ref.state)
        seat = getattr(step, "seat", None)
        if i % 41 == 40 and seat is not None and len(ref.legal(seat)) > 1:
            bot = SearchBot(game, seed=i, iterations=iterations)
            t0 = time.process_time()
            bot.choose(ref.view(seat), ref.legal(seat))
            spent += time.process_time() - t0
            done += bot.last_iterations
            positions -= 1
            if positions == 0:
                break
        if ref.step(lambda s, legal, r: guide.choose(r.view(s), legal)) is None:
            break
    return done / spent if spent else 0.0


def wilson(share: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """95 % Wilson score interval of a proportion observed over n games."""
    if n == 0:
        return 0.0, 1.0
    centre = (share + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(share * (1 - share) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def win_share(game: str, players: int, iterations: int | None, count: int) -> float:
    """The search bot's share of the wins; iterations=None: THINK seconds per decision."""
    tour = tournament.run(game, players, ["search"] + ["heuristic"] * (players - 1), count, seed=5,
                          jobs=JOBS, iterations=iterations, think=THINK or 1.0, ray=RAY,
                          say=lambda text: print("  " + text, flush=True))
    search = next(s for s in tour.standings if s.bot == "search")
    return search.wins / search.games


def run() -> list[str]:
    lines = []
    rates = {}
    for game, players in lineups():
        _, sps, _ = random_play(game, players, 1.0)
        rates[game, players] = iterations_per_s(game, players)
        lines.append(f"{games.get(game).title} {players}p: {rates[game, players]:,.0f} search iterations/s "
                     f"(baseline: referee random play {sps:,.0f} steps/s)")
    if GAMES <= 0:
        return lines
    for iterations in [None] if THINK > 0 else BUDGETS:
        for game, players in lineups():
            share = win_share(game, players, iterations, GAMES)
            lo, hi = wilson(share, GAMES)
            rate = rates[game, players]
            if iterations is None:
                budget = f"{THINK:g} s per decision (≈ {THINK * rate:,.0f} iterations here)"
            else:
                budget = f"{iterations} iterations" + (f" (≈ {iterations / rate:.2g} s)" if rate else "")
            target = TARGETS.get(players, 1 / players)
            lines.append(f"{games.get(game).title} {players}p, search {budget} vs heuristic, {GAMES} games: "
                         f"win share {share:.0%} (95 % CI {lo:.0%}–{hi:.0%}; fair {1 / players:.0%}; "
                         f"target ≥ {target:.0%}: {'met' if share >= target else 'not met'})")
    return lines
