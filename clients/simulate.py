"""Engine-only simulation: many games among bots, no network and no cryptography."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable

from protocol import games
from protocol.referee import Referee

from .bot import chooser_for, make_bot


@dataclass
class SimulationStats:
    game: str
    players: int
    games: int = 0
    decisions: int = 0
    steps: int = 0
    seconds: float = 0.0
    wins: dict[str, float] = field(default_factory=dict)   # bot label -> wins (shared wins split)

    @property
    def games_per_s(self) -> float:
        return self.games / self.seconds if self.seconds else 0.0

    @property
    def decisions_per_s(self) -> float:
        return self.decisions / self.seconds if self.seconds else 0.0


def simulate(game: str, players: int, count: int, bots: list[str], seed: int = 0,
             options: dict[str, Any] | None = None,
             progress: Callable[[int], None] | None = None) -> SimulationStats:
    """Play `count` games; seat assignment of bot kinds rotates so no kind keeps seat 0."""
    engine = games.get(game)
    if not engine.min_players <= players <= engine.max_players:
        raise ValueError(f"{engine.title} is for {engine.min_players}-{engine.max_players} players")
    kinds = (bots * players)[:players] if bots else ["random"] * players
    labels = [f"{k}#{i}" for i, k in enumerate(kinds)]
    stats = SimulationStats(game, players, wins={label: 0.0 for label in labels})
    start = time.perf_counter()
    for g in range(count):
        shift = g % players
        order = labels[shift:] + labels[:shift]      # seat -> label
        seat_bots = [make_bot(lbl.split("#")[0], game, seed * 1_000_003 + g * 7 + i)
                     for i, lbl in enumerate(order)]
        ref = Referee(engine, players, options, seed=seed * 1_000_003 + g)
        result = ref.play(chooser_for(seat_bots))
        winners = result["winners"]
        for w in winners:
            stats.wins[order[w]] += 1 / len(winners)
        stats.games += 1
        stats.decisions += ref.decisions
        stats.steps += ref.steps
        if progress:
            progress(g + 1)
    stats.seconds = time.perf_counter() - start
    return stats
