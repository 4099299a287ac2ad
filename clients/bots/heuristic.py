"""The heuristic bot of a game by name: its presentation's `bots` module defines `HeuristicBot`."""

from __future__ import annotations

from .. import games as presentations
from .base import Bot


def heuristic_bot(game: str, seed: int | None = None) -> Bot:
    """The game's heuristic bot; ValueError when the game has none."""
    mod = presentations.module(game, "bots")
    if mod is None:
        raise ValueError(f"no heuristic bot for {game!r} yet")
    return mod.HeuristicBot(seed)
