"""Nomads of Arabia's presentation (clients.games): its modules and per-game client settings."""

from __future__ import annotations

from typing import Any

from . import Presentation

_r = lambda n: tuple(range(n))          # noqa: E731


def rl_key(action: Any, knowledge: dict[int, Any]) -> tuple | None:
    """A yellow tile played (["tile", handle, tile]) is named by its tile, not its handle."""
    if isinstance(action, (list, tuple)) and len(action) == 3 and action[0] == "tile":
        return ("tile", action[2])
    return None


PRESENTATION = Presentation(
    narrate="clients.narrate.nomads",
    render="clients.render.nomads",
    bots="clients.bots.nomads",
    sampler="clients.bots.sample_nomads",
    search_horizon=24,          # a Nomads turn is many small decisions (3p vs heuristic: 1/3 -> 2/3 at 0.3 s)
    heuristic_playouts=True,
    rl_actions=(
        ("box", _r(5)), ("catch",), ("depart",), ("done",), ("goto", _r(5), _r(8)), ("hire", _r(4)),
        ("keep", _r(8), _r(8)),
        ("lure",), ("move", _r(5), _r(8)), ("pass",), ("pilgrim",), ("place", _r(5), _r(8)),
        ("sell", _r(4), _r(8)), ("stay",), ("take", _r(4)), ("take", _r(5), _r(4)),
        ("tile", _r(8)),                        # a yellow tile played, by its tile (not its handle)
        ("walk",),
    ),
    rl_key=rl_key,
    rl_obs_size=512,
    screenshot=(4, 300),
)
