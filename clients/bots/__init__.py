"""Heuristic bots, one module per game (clients/bots/<game>.py defines HeuristicBot)."""

from __future__ import annotations

import random
from typing import Any, Callable, Iterable, TypeVar

T = TypeVar("T")


def best_of(rng: random.Random, items: Iterable[T], key: Callable[[T], Any], lowest: bool = False) -> T:
    """The item with the highest (or lowest) key, ties broken by the bot's seeded random source, so
    identical bots on identical boards do not play identical games (issue #15)."""
    items = list(items)
    keys = [key(x) for x in items]
    best = min(keys) if lowest else max(keys)
    tied = [x for x, k in zip(items, keys) if k == best]
    return tied[rng.randrange(len(tied))] if len(tied) > 1 else tied[0]
