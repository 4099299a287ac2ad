"""Placements and Plackett-Luce ratings (openskill), shared by `caravan tournament` (bots)
and `caravan record` (people): one way to turn a game's result into ranks, so a rating
means the same thing in both."""

from __future__ import annotations

from typing import Any, Sequence


def ranks(players: int, winners: Sequence[int], scores: Sequence[Any] | None = None,
          failed: int | None = None) -> list[int]:
    """Per seat, its place (1 = best): the winners first, then by score (higher is better;
    equal scores share a place), a failed seat last. Only the order matters to the rating."""
    def key(seat: int) -> tuple:
        if seat == failed:
            return (2, 0)
        score = scores[seat] if scores is not None and isinstance(scores[seat], (int, float)) else 0
        return (0 if seat in winners else 1, -score)
    keys = [key(s) for s in range(players)]
    order = sorted(set(keys))
    return [order.index(k) + 1 for k in keys]


def model() -> Any:
    """The rating model: openskill's Plackett-Luce with its defaults (mu 25, sigma 25/3),
    imported when first needed (it is not light)."""
    from openskill.models import PlackettLuce
    return PlackettLuce()
