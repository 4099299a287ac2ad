"""What a session waits for and what one `receive` did: shared by the session and its
mental-deck steps."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple

from . import chain, engine as E
from .errors import Rejected


class Need(NamedTuple):
    """What the session waits for: `kind` messages from each seat in `seats`. Immutable (a
    NamedTuple, as chain.Message: one is built for every step, several times faster than a
    frozen dataclass).

    kinds: "act", "commit", "reveal", "beacon", "final" and the mental-deck ones
    "deckkey", "shuffle", "share", "remask", "return" (specs/protocol.md §10)."""
    kind: str
    seats: tuple[int, ...]
    step: Any                  # the engine step it serves
    context: Any = None        # "commit"/"reveal": the commitment context; "shuffle": the deck
                               # name; "share": {seat: (handles, ...)}; "remask": (handles, ...)


@dataclass
class Receipt:
    """What one `receive` call did: applied (with the engine events it caused), buffered or
    duplicate."""
    status: str
    events: list[E.Event] = field(default_factory=list)
    messages: list[chain.Message] = field(default_factory=list)
    rejected: list[Rejected] = field(default_factory=list)


class EngineFault(RuntimeError):
    """The engine asked for something no message can answer (an unknown handle, a malformed
    deck item) or refused the event answering its own step: a bug in the engine, never a
    player's fault."""


def unique(handles: Any) -> list[int]:
    """The handles once each, in their first order."""
    out: list[int] = []
    for h in handles:
        if h not in out:
            out.append(h)
    return out
