"""The game registry: game name -> engine, found through the `caravan.games` entry points.

Each game declares itself in its distribution's metadata (pyproject.toml):

    [project.entry-points."caravan.games"]
    sare = "protocol.games.sare:ENGINE"

so a game can also come from a separate installed package. Reading entry points costs a
process about 35 ms (importing importlib.metadata is most of it), so they are read lazily,
once, on the first look-up, and a game's module is imported only when that game is asked
for. `register()` adds an engine by hand (tests' fixture games).
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any

from ..engine import Engine

GROUP = "caravan.games"
_extra: dict[str, Engine] = {}
_entries: dict[str, Any] | None = None        # name -> importlib.metadata.EntryPoint, read once
_loaded: dict[str, Engine] = {}


class UnknownGame(KeyError):
    def __str__(self) -> str:
        known = names()
        if not known:
            return (f"unknown game {self.args[0]!r}: no game is registered (entry points {GROUP}); "
                    "is the project installed? pip install -e .")
        return f"unknown game {self.args[0]!r}; known games: {', '.join(known)}"


class GameLoadError(ImportError):
    """A registered game's entry point could not be loaded (its package is broken or missing)."""


def register(engine: Engine) -> None:
    """Make an engine available by name (used by tests for their fixture game)."""
    _extra[engine.name] = engine


def entry_points(group: str) -> dict[str, Any]:
    """The installed entry points of `group`, by name (imports importlib.metadata: call lazily)."""
    from importlib.metadata import entry_points as installed
    return {ep.name: ep for ep in installed(group=group)}


def load_entry(group: str, ep: Any) -> Any:
    """The object an entry point names; GameLoadError saying which package and why."""
    try:
        return ep.load()
    except Exception as exc:
        dist = getattr(ep, "dist", None)
        where = f" (distribution {dist.name} {dist.version})" if dist is not None else ""
        raise GameLoadError(f"the {group} entry point {ep.name} = {ep.value!r}{where} failed to load: "
                            f"{type(exc).__name__}: {exc}") from exc


def _registered() -> dict[str, Any]:
    global _entries
    if _entries is None:
        _entries = entry_points(GROUP)
    return _entries


def names() -> list[str]:
    """Every game name registered here (without importing any game)."""
    return sorted(set(_extra) | set(_registered()))


def get(name: str) -> Engine:
    """The engine called `name`; raises UnknownGame, or GameLoadError when its package fails."""
    if name in _extra:
        return _extra[name]
    engine = _loaded.get(name)
    if engine is None:
        ep = _registered().get(name)
        if ep is None:
            raise UnknownGame(name)
        engine = load_entry(GROUP, ep)
        if getattr(engine, "name", None) != name:
            raise GameLoadError(f"the {GROUP} entry point {name} = {ep.value!r} is not that game's engine "
                                f"(its name is {getattr(engine, 'name', None)!r})")
        _loaded[name] = engine
    return engine


def options_module(name: str) -> ModuleType | None:
    """The game's `options` module (OPTIONS, PRESETS, OPTION_HELP) beside its engine, in the
    package its entry point names; None for a game without one."""
    package = type(get(name)).__module__.rpartition(".")[0]
    if not package:
        return None
    module = f"{package}.options"
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name and module.startswith(exc.name):
            return None
        raise
