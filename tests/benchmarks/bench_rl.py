"""The PettingZoo environment (clients/rl.py): random steps per CPU second for each game, against
the referee's random play measured in the same run; issue #13's target is ≥ 5,000 steps/s on one
core. A step here is one `last()` (the observation: view, flat vector, mask) and one `step()`."""

from __future__ import annotations

import time

from clients import games as presentations
from protocol import games
from tests.benchmarks.common import random_play
from tests.games.pick import installed

TARGET = 5_000


def lineups() -> list[tuple[str, int]]:
    """Each installed game with an RL action grammar, for 3 players where it seats them."""
    return [(game, max(games.get(game).min_players, min(3, games.get(game).max_players)))
            for game in installed() if presentations.get(game).rl_actions]


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
    try:
        import pettingzoo  # noqa: F401
    except ImportError:
        return ["pettingzoo not installed (pip install -e '.[rl]')"]
    lines = []
    for game, players in lineups():
        _, sps, _ = random_play(game, players, 1.0)
        rate = env_steps_per_s(game, players)
        lines.append(f"{games.get(game).title} {players}p env: {rate:,.0f} random steps/s (target ≥ {TARGET:,}: "
                     f"{'met' if rate >= TARGET else 'MISSED'}; baseline: referee alone {sps:,.0f} steps/s)")
    return lines
