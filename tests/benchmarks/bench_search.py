"""The search bot and the RL environment: figures, not pass/fail.

* Search iterations per second in each game (1 s decisions at a few positions of a random
  game), against the referee's random-play steps/s measured in the same run.
* The search bot's win share against the heuristic bot, seats rotated (caravan tournament, one
  process): 4 players (1 search + 3 heuristic; target ≥ 45 %), 2 players (target ≥ 70 %) and
  3-player Nomads (target ≥ 55 %), at 0.1 s and at 1 s per decision so the cost of strength is
  visible. The issue's figure is ≥ 100 games per line at 1 s: that takes hours on one core, so
  the default is a few games (noisy, about half an hour in all); set CARAVAN_BENCH_SEARCH_GAMES (games per line at 0.1 s)
  and CARAVAN_BENCH_SEARCH_GAMES_1S (at 1 s) for the real figure.
* The PettingZoo environment's random steps per second per game (target ≥ 5,000/s).
"""

from __future__ import annotations

import os
import random
import time

from clients import tournament
from clients.bots.search import SearchBot
from protocol import games
from protocol.referee import Referee
from tests.benchmarks.common import random_play

GAMES_FAST = int(os.environ.get("CARAVAN_BENCH_SEARCH_GAMES", "6"))
GAMES_1S = int(os.environ.get("CARAVAN_BENCH_SEARCH_GAMES_1S", "2"))
TARGET_ENV_SPS = 5_000
TARGETS = {4: 0.45, 2: 0.70, 3: 0.55}
LINEUPS = [("sabbat", 4), ("sare", 4), ("nomads", 4), ("sabbat", 2), ("sare", 2), ("nomads", 3)]


def iterations_per_s(game: str, players: int, think: float = 1.0, positions: int = 3) -> float:
    """Mean iterations per second of 1 s decisions at a few positions of one random game."""
    engine = games.get(game)
    ref = Referee(engine, players, seed=11)
    rng = random.Random(11)
    rates = []
    for i in range(20_000):
        step = engine.expected(ref.state)
        seat = getattr(step, "seat", None)
        if i % 37 == 36 and seat is not None and len(ref.legal(seat)) > 1:
            bot = SearchBot(game, seed=i, think=think)
            t0 = time.perf_counter()
            bot.choose(ref.view(seat), ref.legal(seat))
            rates.append(bot.last_iterations / (time.perf_counter() - t0))
            if len(rates) >= positions:
                break
        if ref.step(lambda s, legal, r: legal[rng.randrange(len(legal))]) is None:
            break
    return sum(rates) / len(rates) if rates else 0.0


def win_share(game: str, players: int, think: float, count: int) -> float:
    tour = tournament.run(game, players, ["search"] + ["heuristic"] * (players - 1), count, seed=5, think=think)
    search = next(s for s in tour.standings if s.bot == "search")
    return search.wins / search.games


def env_steps_per_s(game: str, players: int, seconds: float = 2.0) -> float:
    import numpy as np

    from clients.rl import env
    e = env(game, players)
    rng = np.random.default_rng(0)
    steps, seed = 0, 0
    t0 = time.process_time()
    while time.process_time() - t0 < seconds:
        e.reset(seed=seed)
        seed += 1
        for agent in e.agent_iter():
            obs, reward, term, trunc, info = e.last()
            e.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            steps += 1
    return steps / (time.process_time() - t0)


def run() -> list[str]:
    lines = []
    for game, players in (("sabbat", 2), ("sare", 2), ("nomads", 3)):
        _, sps, _ = random_play(game, players, 1.0)
        lines.append(f"{game} {players}p: {iterations_per_s(game, players):,.0f} search iterations/s "
                     f"(baseline: referee random play {sps:,.0f} steps/s)")
    try:
        for game, players in (("sabbat", 3), ("sare", 3), ("nomads", 4)):
            _, sps, _ = random_play(game, players, 1.0)
            rate = env_steps_per_s(game, players)
            lines.append(f"{game} {players}p env: {rate:,.0f} random steps/s (target ≥ {TARGET_ENV_SPS:,}: "
                         f"{'met' if rate >= TARGET_ENV_SPS else 'MISSED'}; baseline: referee alone "
                         f"{sps:,.0f} steps/s)")
    except ImportError:
        lines.append("env: pettingzoo not installed (pip install -e '.[rl]')")
    for think, count in ((0.1, GAMES_FAST), (1.0, GAMES_1S)):
        if count <= 0:
            continue
        for game, players in LINEUPS:
            share = win_share(game, players, think, count)
            target = TARGETS[players]
            lines.append(f"{game} {players}p, search {think:g} s vs heuristic, {count} games: win share "
                         f"{share:.0%} (fair {1 / players:.0%}; target ≥ {target:.0%} at 1 s: "
                         f"{'met' if share >= target else 'not met'})")
    return lines
