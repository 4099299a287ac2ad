"""Game options given as KEY=VALUE on a command line (`-o`), checked by the engine itself:
one parser for the node's commands and for engine-only play."""

from __future__ import annotations

import json
from typing import Any

from protocol import engine as E


def parse(eng: E.Engine, pairs: list[str], n: int) -> dict[str, Any]:
    """The engine's defaults overridden by KEY=VALUE (values are JSON, else text), checked by
    the engine's own new_game; a bad pair is a ValueError whose text is one line for the user."""
    opts = eng.default_options(n)
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise ValueError(f"option {pair!r} is not KEY=VALUE")
        if key not in opts:
            raise ValueError(f"unknown option {key!r} for {eng.name}; its options are: "
                             f"{', '.join(sorted(opts)) or 'none'} (caravan options {eng.name})")
        try:
            opts[key] = json.loads(value)
        except ValueError:
            opts[key] = value
    return _checked(eng, opts, n)


def typed(eng: E.Engine, values: dict[str, Any], n: int) -> dict[str, Any]:
    """The engine's defaults overridden by typed values (the home's controls send true/false,
    numbers and strings as JSON), checked by the engine's own new_game. A string is read as on a
    command line (JSON, else text), so a hand-typed "3" still means 3; a bad value is a
    ValueError whose text is one line for the user."""
    pairs = [f"{k}={v}" for k, v in values.items() if isinstance(v, str)]
    opts = parse(eng, pairs, n) if pairs else eng.default_options(n)
    for key, value in values.items():
        if isinstance(value, str):
            continue
        if key not in opts:
            raise ValueError(f"unknown option {key!r} for {eng.name}; its options are: "
                             f"{', '.join(sorted(opts)) or 'none'} (caravan options {eng.name})")
        opts[key] = value
    return _checked(eng, opts, n)


def _checked(eng: E.Engine, opts: dict[str, Any], n: int) -> dict[str, Any]:
    try:
        eng.new_game(dict(opts), n)
    except E.BadOptions as exc:
        raise ValueError(f"bad option for {eng.name}: {exc} (caravan options {eng.name})") from None
    return opts
