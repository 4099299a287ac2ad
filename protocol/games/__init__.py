"""The game registry: game name -> engine, found through the `caravan.games` entry points.

Each game declares itself in its distribution's metadata (pyproject.toml):

    [project.entry-points."caravan.games"]
    <game> = "protocol.games.<game>:ENGINE"

so a game can also come from a separate installed package. Reading entry points costs a
process about 35 ms (importing importlib.metadata is most of it), so they are read lazily,
once, on the first look-up, and a game's module is imported only when that game is asked
for. `register()` adds an engine by hand (tests' fixture games).
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any, Callable, Generic, TypeVar

from ..engine import Engine

T = TypeVar("T")

GROUP = "caravan.games"


class UnknownGame(KeyError):
    def __str__(self) -> str:
        known = names()
        if not known:
            return (f"unknown game {self.args[0]!r}: no game is registered (entry points {GROUP}); "
                    "is the project installed? pip install -e .")
        return f"unknown game {self.args[0]!r}; known games: {', '.join(known)}"


class GameLoadError(ImportError):
    """A registered game's entry point could not be loaded (its package is broken or missing)."""


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


class Registry(Generic[T]):
    """The objects of one entry-point group by name: read lazily, once, on the first look-up;
    each loaded once, when first asked for, and checked by `wrong` (which says what is wrong
    with it, or None); plus objects given by hand (`add`: tests' fixture games)."""

    def __init__(self, group: str, wrong: Callable[[str, Any], str | None]):
        self.group, self.wrong = group, wrong
        self.extra: dict[str, T] = {}
        self.entries: dict[str, Any] | None = None     # name -> importlib.metadata.EntryPoint
        self.loaded: dict[str, T] = {}

    def add(self, name: str, obj: T) -> None:
        self.extra[name] = obj

    def registered(self) -> dict[str, Any]:
        if self.entries is None:
            self.entries = entry_points(self.group)
        return self.entries

    def names(self) -> list[str]:
        """Every name here (without importing what they name)."""
        return sorted(set(self.extra) | set(self.registered()))

    def find(self, name: str) -> T | None:
        """The object called `name`, None when there is none; GameLoadError when it fails to load."""
        if name in self.extra:
            return self.extra[name]
        obj = self.loaded.get(name)
        if obj is None:
            ep = self.registered().get(name)
            if ep is None:
                return None
            obj = load_entry(self.group, ep)
            why = self.wrong(name, obj)
            if why is not None:
                raise GameLoadError(f"the {self.group} entry point {name} = {ep.value!r} is {why}")
            self.loaded[name] = obj
        return obj


def _not_its_engine(name: str, engine: Any) -> str | None:
    found = getattr(engine, "name", None)
    return None if found == name else f"not that game's engine (its name is {found!r})"


REGISTRY: Registry[Engine] = Registry(GROUP, _not_its_engine)


def register(engine: Engine) -> None:
    """Make an engine available by name (used by tests for their fixture game)."""
    REGISTRY.add(engine.name, engine)


def names() -> list[str]:
    """Every game name registered here (without importing any game)."""
    return REGISTRY.names()


def get(name: str) -> Engine:
    """The engine called `name`; raises UnknownGame, or GameLoadError when its package fails."""
    engine = REGISTRY.find(name)
    if engine is None:
        raise UnknownGame(name)
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
