"""Determinization: a full engine state sampled from one seat's view alone.

A search bot cannot read hidden values; it imagines them. Each game has a module (its
presentation's `sampler`, see clients.games; by custom clients/bots/sample_<game>.py) with a
`Sampler(view)` whose `sample(rng)` deals every hidden handle a value consistent with what the
view shows (public cards, the seat's own cards and commitments) and returns a `World` the referee
can play on. Nothing but the view is read. A module may also define `evaluate(state, truth)`, the
value of an unfinished imagined position per seat, which lets the search cut its playouts short.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Any, Callable, Protocol

from .. import games as presentations


@dataclass
class World:
    """One imagined truth: the public state, a value for every hidden handle, and what each
    seat would know privately in that world."""
    state: Any
    truth: dict[int, Any]
    knowledge: list[dict[int, Any]]


class Sampler(Protocol):
    seat: int
    players: int

    def sample(self, rng: random.Random) -> World: ...


def sampler_for(game: str, view: dict[str, Any]) -> Sampler:
    """The game's sampler, prepared from this view (raises ValueError for a game without one)."""
    mod = presentations.module(game, "sampler")
    if mod is None:
        raise ValueError(f"no determinization sampler for {game!r}")
    return mod.Sampler(view)


def evaluator_for(game: str) -> Callable[[Any, dict[int, Any]], list[float]] | None:
    """The game's `evaluate(state, truth)`: per seat, a reward in [0, 1] for an unfinished
    position of an imagined world (None: the game has none, playouts run to the end)."""
    return getattr(presentations.module(game, "sampler"), "evaluate", None)


def clock_for(game: str) -> Callable[[Any], Any] | None:
    """The game's `clock(state)`, if it has one: a playout is cut (and the position evaluated)
    as soon as the clock moves on from the root's, e.g. at the end of the turn, where the
    evaluation means most. Without it, a playout is cut after a fixed number of decisions."""
    return getattr(presentations.module(game, "sampler"), "clock", None)


def stateless(engine: Any) -> Any:
    """The engine, but its views leave out `state` (the encoded public state, which repeats what
    the rest of the view shows, for search bots): copying it was half the cost of a Sa-Rê view.
    For the heuristic bot guiding a playout and for the RL environment's observations. (A game
    whose view does not go through `engine.encode` keeps its full view.)"""
    if not hasattr(engine, "__dict__"):             # an engine with slots: keep its full views
        return engine
    light = object.__new__(type(engine.name + "Stateless", (type(engine),), {"encode": lambda self, st: None}))
    light.__dict__.update(engine.__dict__)
    return light


def leader_rewards(values: list[float], scale: float) -> list[float]:
    """Turn per-seat position values into rewards in [0, 1]: how far ahead of (or behind) the
    best other seat, squashed by a logistic of width `scale`."""
    out = []
    for s, v in enumerate(values):
        best_other = max(values[:s] + values[s + 1:])
        out.append(1.0 / (1.0 + math.exp(-(v - best_other) / scale)))
    return out


def deal(rng: random.Random, handles: list[int], pool: list[Any]) -> dict[int, Any]:
    """Give each handle a distinct value from `pool`, uniformly. Should the pool not match the
    handles in size (an engine change this sampler does not know yet), the missing values are
    drawn with replacement rather than failing: a slightly wrong world is still playable."""
    values = list(pool)
    rng.shuffle(values)
    while len(values) < len(handles):
        values.append(pool[rng.randrange(len(pool))] if pool else 0)
    return dict(zip(handles, values))
