"""The arguments of a worker op: the msgpack map (or, from the page's own scripts, which have no
msgpack, the JSON object) the page sent, checked for the names the op needs, so every op refuses
a missing or undecodable argument with the same one line."""

from __future__ import annotations

import json
from typing import Any

import msgpack


class RequestError(ValueError):
    """A request an op cannot use: the worker answers {"error": why}, never a traceback."""


def request(data: bytes | None, op: str, *names: str) -> dict[str, Any]:
    """`data` as the map `op` needs (msgpack, or JSON text), holding each of `names`."""
    try:
        asked = msgpack.unpackb(data or b"", raw=False)
    except Exception:                                  # noqa: BLE001 - any undecodable input
        asked = None
    if type(asked) is not dict and (data or b"")[:1] == b"{":   # msgpack reads "{" as the number 123
        try:
            asked = json.loads(data)
        except ValueError:
            asked = None
    missing = [n for n in names if type(asked) is not dict or n not in asked]
    if missing:
        raise RequestError(f"{op} needs a msgpack map with {', '.join(names)} (missing: {', '.join(missing)})")
    return asked
