"""The game registry: engine name -> engine object, imported on first use."""

from __future__ import annotations

import importlib

from ..engine import Engine

_MODULES = {
    "sabbat": "protocol.games.sabbat",
    "nomads": "protocol.games.nomads",
    "sare": "protocol.games.sare",
}
_extra: dict[str, Engine] = {}


class UnknownGame(KeyError):
    def __str__(self) -> str:
        return f"unknown game {self.args[0]!r}; known games: {', '.join(names())}"


def register(engine: Engine) -> None:
    """Make an engine available by name (used by tests for their fixture game)."""
    _extra[engine.name] = engine


def names() -> list[str]:
    """Every game name that can be loaded here."""
    found = sorted(_extra)
    for name, module in _MODULES.items():
        try:
            importlib.import_module(module)
        except ImportError:
            continue
        found.append(name)
    return sorted(set(found))


def get(name: str) -> Engine:
    """The engine called `name`; raises UnknownGame."""
    if name in _extra:
        return _extra[name]
    module = _MODULES.get(name)
    if module is None:
        raise UnknownGame(name)
    try:
        mod = importlib.import_module(module)
    except ImportError as exc:
        if exc.name and module.startswith(exc.name):
            raise UnknownGame(name) from None
        raise
    return mod.ENGINE
