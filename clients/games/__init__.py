"""The presentation registry: game name -> where its narration, board picture, bots and
sampler live, and its per-game client settings (RL action grammar, screenshot).

The rules side (`protocol.games`, entry-point group `caravan.games`) cannot name anything in
`clients/` (the layering), so a game's presentation is declared in a second entry-point group:

    [project.entry-points."caravan.presentations"]
    <game> = "clients.games.<game>:PRESENTATION"

The value is a `Presentation`: the modules are named by their import path and imported only
when first used, so looking a game's presentation up costs one small module. A game without a
presentation entry (a test's fixture game, a rules-only package) gets the generic narration
and picture, and no heuristic bot or sampler. Entry points are read once, on first use.
"""

from __future__ import annotations

import dataclasses
import importlib
from types import ModuleType
from typing import Any, Callable

from protocol.games import Registry

GROUP = "caravan.presentations"


@dataclasses.dataclass(frozen=True)
class Presentation:
    """What the clients need of one game, besides its engine."""

    narrate: str | None = None
    """module: narrate(event, before, after, names) -> lines | None, moves(...) (clients.narrate)"""
    render: str | None = None
    """module: svg(view, names) -> str, text(view, names) -> str (clients.render)"""
    bots: str | None = None
    """module: HeuristicBot(seed) (clients.bots.heuristic)"""
    sampler: str | None = None
    """module: Sampler(view), optional evaluate(state, truth) and clock(state) (clients.bots.sampling)"""
    search_horizon: int | None = None
    """decisions a search playout runs before it is cut (None: the search bot's default)"""
    heuristic_playouts: bool = False
    """the heuristic bot is cheap enough to guide the search bot's playouts"""
    rl_actions: tuple[tuple, ...] = ()
    """the RL action grammar (clients.rl): ("=", values) or (name, domain, ...); append only"""
    rl_key: Callable[[Any, dict[int, Any]], tuple | None] | None = None
    """an action's seat-independent RL key where the plain one would name a hidden handle"""
    rl_obs_size: int = 1024
    """the RL observation vector's length"""
    screenshot: tuple[int, int] | None = None
    """(players, engine steps) of the README's board picture (clients.screenshots)"""
    how_to_play: tuple[tuple[str, str], ...] = ()
    """the table page's How to play: (heading, paragraph) pairs in the rulebook's terms"""
    result_labels: dict[str, str] = dataclasses.field(default_factory=dict)
    """the game-over table's row captions for the result's keys ("scores": the total's)"""
    tie_break: tuple[str, str] | None = None
    """(the result key that breaks a tie on score, or "", its words) when the rules break ties"""
    order: int = 100
    """where the game comes when the house picks one for you (`caravan demo` without a game)"""

    def module(self, part: str) -> ModuleType | None:
        """The imported module of `part` ("narrate", "render", "bots", "sampler"), or None."""
        path = getattr(self, part)
        return None if path is None else importlib.import_module(path)


NONE = Presentation()


def _not_a_presentation(name: str, found: Any) -> str | None:
    return None if isinstance(found, Presentation) else "not a Presentation"


REGISTRY: Registry[Presentation] = Registry(GROUP, _not_a_presentation)


def register(name: str, presentation: Presentation) -> None:
    """Give a game a presentation by hand (tests)."""
    REGISTRY.add(name, presentation)


def names() -> list[str]:
    """The games with a presentation here."""
    return REGISTRY.names()


def get(game: str) -> Presentation:
    """The game's presentation (NONE for a game without one); GameLoadError if it fails to load."""
    found = REGISTRY.find(game)
    return NONE if found is None else found


def page(game: str) -> dict[str, Any]:
    """What the table page shows of the game besides its board (JSON-able): how to play, the
    result's captions and the tie-break."""
    found = get(game)
    return {"rules": [list(pair) for pair in found.how_to_play], "labels": dict(found.result_labels),
            "tie_break": list(found.tie_break) if found.tie_break else None}


def first(available: list[str]) -> str | None:
    """The game the house picks when none is named: the lowest `order`, then by name."""
    return min(available, key=lambda game: (get(game).order, game), default=None)


def module(game: str, part: str) -> ModuleType | None:
    """The game's `part` module ("narrate", "render", "bots", "sampler"), or None without one."""
    return get(game).module(part)
