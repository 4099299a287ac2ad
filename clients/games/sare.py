"""Sa-Rê's presentation (clients.games): its modules and per-game client settings."""

from __future__ import annotations

from typing import Any

from . import Presentation

_r = lambda n: tuple(range(n))          # noqa: E731
_WGS, _WGSJ = ("W", "G", "S"), ("W", "G", "S", "J")
_KINDS = ("warehouse", "master_builder", "carpenter", "stonemason", "goldsmith", "temple", "library", "barracks",
          "market", "palace", "gardens", "port", "pyramid")


def rl_key(action: Any, knowledge: dict[int, Any]) -> tuple | None:
    """The Temple's bare handle (which card goes back) is named by its card."""
    if type(action) is int:
        return ("card", knowledge.get(action))
    return None


PRESENTATION = Presentation(
    narrate="clients.narrate.sare",
    render="clients.render.sare",
    bots="clients.bots.sare",
    sampler="clients.bots.sample_sare",
    heuristic_playouts=True,
    rl_actions=(
        ("card", _r(32)),                       # the Temple card put back, by its card (not its handle)
        ("barracks", _r(4)), ("build", _r(24), _WGS + ("-",), _r(2), _r(8)), ("cancel", _r(24)),
        ("charter", _WGS, _WGSJ), ("continue",), ("demolish", _r(24)), ("discard", _WGSJ), ("done",),
        ("gardens",), ("gold",), ("joker", _WGS), ("library",), ("market", _r(4)), ("move", _r(24), _r(12)),
        ("oracle",), ("palace",), ("pass",), ("place", _r(12), _r(12)), ("project", _KINDS, _r(12)),
        ("return", ("top", "bottom")), ("stop",), ("swap", _WGSJ, _WGSJ), ("temple",),
        # added with the rules options of issue 15 (appended: earlier ids keep their meaning)
        ("project", ("pyramid",), _r(12), _r(5)), ("spare", _WGS),
        ("cash", _WGS),                         # issue 24 item 13
    ),
    rl_key=rl_key,
    rl_obs_size=768,
    screenshot=(3, 260),
)
