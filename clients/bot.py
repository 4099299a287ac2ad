"""The bot SDK: a bot sees its player's view and the legal actions, and picks one.

A bot never touches keys, commitments or the network; the node (or the referee, in
engine-only simulation) does all of that and only asks the bot to decide.
"""

from __future__ import annotations

from typing import Any

from .bots.base import Bot
from .bots.heuristic import heuristic_bot

__all__ = ["Bot", "RandomBot", "make_bot", "chooser_for"]


class RandomBot(Bot):
    """Picks uniformly among the legal actions."""

    wants_view = False

    def choose(self, view: dict[str, Any] | None, legal_actions: list[Any]) -> Any:
        return legal_actions[self.rng.randrange(len(legal_actions))]


def make_bot(kind: str, game: str, seed: int | None = None, think: float = 1.0,
             iterations: int | None = None) -> Bot:
    """A bot by name: "random", "heuristic" (its presentation's bots module, clients.games), or "search"
    (clients/bots/search.py, thinking `think` seconds or `iterations` iterations a decision)."""
    if kind == "random":
        return RandomBot(seed)
    if kind == "search":
        from .bots.search import SearchBot
        return SearchBot(game, seed, think=think, iterations=iterations)
    if kind == "heuristic":
        return heuristic_bot(game, seed)
    raise ValueError(f"unknown bot kind {kind!r} (use random, heuristic or search)")


def chooser_for(bots: list[Bot]):
    """Adapt a list of bots (one per seat) to the referee's chooser signature."""

    def choose(seat: int, legal: list[Any], referee: Any) -> Any:
        bot = bots[seat]
        view = referee.view(seat) if bot.wants_view else None
        return bot.choose(view, legal)

    return choose
