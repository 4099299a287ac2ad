"""The bot SDK: a bot sees its player's view and the legal actions, and picks one.

A bot never touches keys, commitments or the network; the node (or the referee, in
engine-only simulation) does all of that and only asks the bot to decide.
"""

from __future__ import annotations

import importlib
import random
from typing import Any


class Bot:
    """Subclass and override `choose`. Set `wants_view = False` if `view` is unused (faster)."""

    wants_view = True

    def __init__(self, seed: int | None = None):
        self.rng = random.Random(seed)

    def choose(self, view: dict[str, Any] | None, legal_actions: list[Any]) -> Any:
        raise NotImplementedError


class RandomBot(Bot):
    """Picks uniformly among the legal actions."""

    wants_view = False

    def choose(self, view: dict[str, Any] | None, legal_actions: list[Any]) -> Any:
        return legal_actions[self.rng.randrange(len(legal_actions))]


def make_bot(kind: str, game: str, seed: int | None = None, think: float = 1.0,
             iterations: int | None = None) -> Bot:
    """A bot by name: "random", "heuristic" (from clients/bots/<game>.py), or "search"
    (clients/bots/search.py, thinking `think` seconds or `iterations` iterations a decision)."""
    if kind == "random":
        return RandomBot(seed)
    if kind == "search":
        from .bots.search import SearchBot
        return SearchBot(game, seed, think=think, iterations=iterations)
    if kind == "heuristic":
        try:
            mod = importlib.import_module(f"clients.bots.{game}")
        except ImportError:
            raise ValueError(f"no heuristic bot for {game!r} yet") from None
        return mod.HeuristicBot(seed)
    raise ValueError(f"unknown bot kind {kind!r} (use random, heuristic or search)")


def chooser_for(bots: list[Bot]):
    """Adapt a list of bots (one per seat) to the referee's chooser signature."""

    def choose(seat: int, legal: list[Any], referee: Any) -> Any:
        bot = bots[seat]
        view = referee.view(seat) if bot.wants_view else None
        return bot.choose(view, legal)

    return choose
