"""Narration: each applied engine event as sentences for one viewer, and the legal moves in words.

Everything here is a pure function of *views* (what `engine.view(state, viewer, knowledge)`
returns for that viewer) and of public event data, so narration can never tell a viewer
more than their own view holds. Each game has a narration module (its presentation's `narrate`,
see clients.games; by custom `clients/narrate/<game>.py`) with

    narrate(event: dict, before: dict, after: dict, names: list[str]) -> list[str]
        sentences for the viewer whose views `before` and `after` are (view["seat"], None for a
        spectator), describing `event` (see `event_dict`), which turned `before` into `after`.
    moves(view: dict, legal: list, seat: int) -> list[dict]
        one dict per legal action, same order: {"text": readable words, "group": the kind of
        move (moves are offered grouped by it), "target": id of the board place the move is
        chosen by clicking (a `data-target` in the game's SVG), or None}.

A game's `moves` is the one source of an action's words (engines have no words of their own):
the move list, the bots' action texts (`words`) and the narration of an action the game's
`narrate` cannot tell all take them from it.

`Table` keeps a mirror of the public state so that every event gets its own before and
after view, whatever batch of events a message applied.
"""

from __future__ import annotations

import logging
from typing import Any

from protocol import engine as E

from .. import games as presentations

log = logging.getLogger("caravan.narrate")


def seat_name(names: list[str], seat: int | None) -> str:
    """"Ann (seat 1)" when the seat has a chosen name, else "seat 1"."""
    if seat is None:
        return "nobody"
    name = names[seat] if 0 <= seat < len(names) else ""
    return f"{name} (seat {seat})" if name and name != f"seat {seat}" else f"seat {seat}"


def awaited(names: list[str], waiting: list[int], what: str, person: bool, me: int | None = None) -> str:
    """Whom the game waits for and for what: "Bea (seat 1): a move" for a person's decision,
    "Bea (seat 1)'s node: decryption shares" for a step a node takes by itself (a node that
    is not running holds the game up, not its player). `me`: the reader's seat ("you")."""
    if not waiting:
        return ""
    who = ", ".join("you" if s == me else seat_name(names, s) for s in waiting)
    if not person:
        who = ", ".join("your node" if s == me else f"{seat_name(names, s)}'s node" for s in waiting)
    return f"{who}: {what}"


def event_dict(event: E.Event, step: E.Step | None = None) -> dict[str, Any]:
    """The public content of an event as a JSON-able dict with a "kind" key. `step` is the step
    the event answers (it tells which seats a Choices or Committed event is for, and what a
    Rolled draw was drawn from)."""
    if isinstance(event, E.Act):
        return {"kind": "act", "seat": event.seat, "action": _jsonable(event.action)}
    seats = list(getattr(step, "seats", ()) or ())
    if isinstance(event, E.Choices):
        return {"kind": "choices", "seats": seats, "values": _jsonable(list(event.values))}
    if isinstance(event, E.Committed):
        return {"kind": "committed", "tag": event.tag, "seats": seats, "handles": list(event.handles)}
    if isinstance(event, E.Rolled):
        draws = [list(d) for d in getattr(step, "draws", ())]
        return {"kind": "rolled", "draws": draws, "values": _jsonable(list(event.values))}
    if isinstance(event, E.DeckShuffled):
        return {"kind": "deck_shuffled", "deck": event.deck, "handles": list(event.handles)}
    if isinstance(event, E.DeckRevealed):
        return {"kind": "deck_revealed", "handles": list(event.handles), "cards": list(event.cards)}
    if isinstance(event, E.DeckShown):
        return {"kind": "deck_shown", "seat": event.seat, "handles": list(event.handles)}
    if isinstance(event, E.DeckReturned):
        return {"kind": "deck_returned", "seat": event.seat, "deck": event.deck, "position": event.position,
                "returned": event.returned, "kept": list(event.kept)}
    raise TypeError(f"not an engine event: {event!r}")


def acting_seat(event: dict[str, Any]) -> int | None:
    """The seat an event is by (None for chance and joint steps)."""
    return event.get("seat") if event["kind"] in ("act", "deck_shown", "deck_returned") else None


def _jsonable(value: Any) -> Any:
    if isinstance(value, (bytes, bytearray)):
        return value.hex()
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    return value


def generic_narrate(event: dict[str, Any], before: dict[str, Any], after: dict[str, Any],
                    names: list[str]) -> list[str]:
    """Plain sentences for any game (used where a game says nothing of an event; an action is
    told by `narrate`, in the game's words)."""
    kind = event["kind"]
    if kind == "committed":
        who = ", ".join(seat_name(names, s) for s in event["seats"])
        return [f"{who} committed a secret choice (revealed later)"]
    if kind == "choices":
        return [f"{seat_name(names, s)} chose {v}" for s, v in zip(event["seats"], event["values"])]
    if kind == "rolled":
        return [f"chance: {event['values']}"]
    if kind == "deck_shuffled":
        return [f"the {event['deck']} deck is shuffled by everyone together"]
    if kind == "deck_revealed":
        return [f"cards revealed: {event['cards']}"]
    if kind == "deck_shown":
        n = len(event["handles"])
        return [f"{seat_name(names, event['seat'])} looks at {n} card{'s' if n != 1 else ''} privately"]
    if kind == "deck_returned":
        return [f"{seat_name(names, event['seat'])} puts a card back face down on the "
                f"{event['position']} of the {event['deck']} deck"]
    return []


def _module(game: str):
    return presentations.module(game, "narrate")


def narrate(game: str, event: dict[str, Any], before: dict[str, Any], after: dict[str, Any],
            names: list[str]) -> list[str]:
    """The game's sentences for `event`, or the generic ones (also when the game's narration
    fails: a bug there is logged and must never stop a game)."""
    mod = _module(game)
    lines = None
    if mod is not None:
        try:
            lines = mod.narrate(event, before, after, names)
        except Exception:
            log.error("%s narration failed on %r (a bug; plain words are used)", game, event,
                      exc_info=log.isEnabledFor(logging.DEBUG))
    if lines is None and event["kind"] == "act":
        seat = event["seat"]
        return [f"{seat_name(names, seat)}: {words(game, before, event['action'], seat)}"]
    return lines if lines is not None else generic_narrate(event, before, after, names)


def words(game: str, view: dict[str, Any], action: Any, seat: int) -> str:
    """The words of one action of `seat`: the game's move-list text for it."""
    return moves(game, view, [action], seat)[0]["text"]


def moves(game: str, view: dict[str, Any], legal: list[Any], seat: int) -> list[dict[str, Any]]:
    """Each legal action in words, grouped; plain words when the game has none or they fail."""
    mod = _module(game)
    if mod is not None:
        try:
            found = mod.moves(view, legal, seat)
            if len(found) == len(legal):
                return found
            log.error("%s moves() gave %d entries for %d actions (a bug)", game, len(found), len(legal))
        except Exception:
            log.error("%s moves() failed (a bug; plain words are used)", game,
                      exc_info=log.isEnabledFor(logging.DEBUG))
    return [{"text": str(a), "group": "moves", "target": None} for a in legal]


class Table:
    """A viewer's running picture of a game: a mirror of the public state, the viewer's view
    before and after every event, and the sentences for it. Feed it every event the session
    applies, in order (`apply`); `knowledge` is the viewer's own (None for a spectator)."""

    def __init__(self, engine: E.Engine, options: dict[str, Any], players: int, viewer: int | None,
                 names: list[str] | None = None):
        self.engine, self.viewer = engine, viewer
        self.names = list(names or [f"seat {s}" for s in range(players)])
        self.state = engine.new_game(options, players)
        self.view = engine.view(self.state, viewer, {} if viewer is not None else None)

    def apply(self, event: E.Event, knowledge: dict | None = None) -> tuple[dict[str, Any], list[str]]:
        """Apply one event to the mirror; returns (the event as a dict, its sentences)."""
        step = self.engine.expected(self.state)
        info = event_dict(event, step)
        before = self.view
        self.engine.apply(self.state, event)
        self.view = self.engine.view(self.state, self.viewer, knowledge if self.viewer is not None else None)
        return info, narrate(self.engine.name, info, before, self.view, self.names)

    def resync(self, state: Any, knowledge: dict | None = None) -> None:
        """Start again from `state` (a copy of the replica's), e.g. after an event was missed."""
        self.state = state
        self.refresh(knowledge)

    def refresh(self, knowledge: dict | None) -> dict[str, Any]:
        """The current view again, e.g. after the viewer's knowledge grew."""
        self.view = self.engine.view(self.state, self.viewer, knowledge if self.viewer is not None else None)
        return self.view
