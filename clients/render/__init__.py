"""Board pictures: a game's view as SVG (browser, replay, README) or as compact text (terminal).

Each game has a module `clients/render/<game>.py` with two pure functions of a view (what
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

import importlib
from typing import Any


def _module(game: str):
    return importlib.import_module(f"clients.render.{game}")


def svg(game: str, view: dict[str, Any], names: list[str]) -> str:
    return _module(game).svg(view, names)


def text(game: str, view: dict[str, Any], names: list[str]) -> str:
    return _module(game).text(view, names)
