"""The heuristic bot of a game by name: clients/bots/<game>.py defines `HeuristicBot`."""

from __future__ import annotations

import importlib

from .base import Bot


def heuristic_bot(game: str, seed: int | None = None) -> Bot:
    """The game's heuristic bot; ValueError when the game has none."""
    try:
        mod = importlib.import_module(f"clients.bots.{game}")
    except ImportError:
        raise ValueError(f"no heuristic bot for {game!r} yet") from None
    return mod.HeuristicBot(seed)
