"""The client API's JSON form of views and actions (specs/client-api.md), shared by the node
(which speaks the API to programs and pages) and by engine-only play (`caravan tournament`)."""

from __future__ import annotations

from typing import Any


def to_json(value: Any) -> Any:
    """Actions and views hold bytes and tuples; JSON gets hex strings and lists."""
    if isinstance(value, (bytes, bytearray)):
        return value.hex()
    if isinstance(value, (list, tuple)):
        return [to_json(v) for v in value]
    if isinstance(value, dict):
        return {str(k): to_json(v) for k, v in value.items()}
    return value
