"""Board pictures: a game's view as SVG (browser, replay, README) or as compact text (terminal).

Each game has a module (its presentation's `render`, see clients.games; by custom
`clients/render/<game>.py`) with two pure functions of a view (what
`engine.view(state, viewer, knowledge)` returns; never more, so a picture can never show
what its viewer may not see):

    svg(view: dict, names: list[str]) -> str
        a standalone <svg> document. Places a move can be chosen by clicking carry
        data-target="ID" (the same ID as the move's "target" in clients.narrate.<game>.moves).
        Colours come from the classes and CSS variables in `common.STYLE`, so one picture
        follows the page's light or dark theme.
    text(view: dict, names: list[str]) -> str
        what a player at the table sees, in a few dozen lines of plain text.
"""

from __future__ import annotations

import logging
from typing import Any

from .. import games as presentations

log = logging.getLogger("caravan.render")


def _module(game: str):
    return presentations.module(game, "render")


def svg(game: str, view: dict[str, Any], names: list[str]) -> str:
    """The game's picture, or a plain one (also when the game's renderer fails: a bug there is
    logged and must never stop a game)."""
    mod = _module(game)
    if mod is not None:
        try:
            return mod.svg(view, names)
        except Exception:
            log.error("%s board picture failed (a bug; a plain picture is shown)", game,
                      exc_info=log.isEnabledFor(logging.DEBUG))
    return generic_svg(view, names)


def text(game: str, view: dict[str, Any], names: list[str]) -> str:
    mod = _module(game)
    if mod is not None:
        try:
            return mod.text(view, names)
        except Exception:
            log.error("%s text board failed (a bug; plain facts are shown)", game,
                      exc_info=log.isEnabledFor(logging.DEBUG))
    return generic_text(view, names)


def _facts(view: dict[str, Any]) -> list[str]:
    return [f"{k}: {v}" for k, v in view.items() if isinstance(v, (int, str, bool)) and k not in ("state",)]


def generic_text(view: dict[str, Any], names: list[str]) -> str:
    """A game without a picture of its own: its view's plain facts, one a line."""
    return "\n".join(_facts(view))


def generic_svg(view: dict[str, Any], names: list[str]) -> str:
    from .common import Svg
    facts = _facts(view)
    pic = Svg(600, 40 + 18 * len(facts), str(view.get("game", "game")))
    for i, line in enumerate(facts):
        pic.text(16, 30 + 18 * i, line)
    return str(pic)
