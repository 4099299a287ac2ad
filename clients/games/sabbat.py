"""Sabbat Magica's presentation (clients.games): its modules and per-game client settings."""

from __future__ import annotations

from . import Presentation

_r = lambda n: tuple(range(n))          # noqa: E731
_MODES = ("fight", "place", "retreat")

PRESENTATION = Presentation(
    narrate="clients.narrate.sabbat",
    render="clients.render.sabbat",
    bots="clients.bots.sabbat",
    sampler="clients.bots.sample_sabbat",
    rl_actions=(
        ("=", _r(41) + ("done", "pass")),
        ("bonus", _r(4)), ("bonus", _r(4), _r(4)), ("give", _r(4)), ("keep", _r(4)), ("magician", _r(16)),
        ("mirror", _r(16)),
        ("move", _r(15), _r(8), _r(15), _MODES), ("pay", _r(4), _r(4)), ("power", _r(12)),
        ("power", _r(12), _r(16)), ("power", _r(12), _r(16), _r(16) + _MODES), ("steal", _r(4)),
        ("take", _r(4)), ("tile",), ("tile", _r(4)), ("tile", _r(4), _r(4)), ("unfed", _r(15), _r(8)),
        # added with issue 24 (appended: earlier ids keep their meaning)
        ("canteen", _r(2)),
    ),
    rl_obs_size=512,
    screenshot=(3, 160),
)
