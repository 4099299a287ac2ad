"""A random game told to a spectator, event by event, with the engine's own state before and
after each event: the loop the games' narration batteries (tests/games/<game>/
test_present_battery.py) check their stated numbers against, written once. Every legal move on
the way must have words of its own (never the raw action under "Other")."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterator

from clients import games as presentations
from clients.narrate import Table
from protocol import engine as E
from protocol.referee import Referee


@dataclass
class Told:
    """One event: `lines` what the spectator was told, `before` and `after` the engine's encoded
    state around it (the truth), `ref` the referee (its `state` is the game's now)."""
    ref: Referee
    event: Any
    lines: list[str]
    before: dict
    after: dict


def told_events(ref: Referee, names: list[str], choose: Callable, max_steps: int = 20_000) -> Iterator[Told]:
    """Play the referee's game on (decisions by `choose`) and yield each event as told to a
    spectator; the game ends within `max_steps` events."""
    engine = ref.engine
    words_of = presentations.module(engine.name, "narrate").moves
    table = Table(engine, ref.options, ref.players, None, names[:ref.players])
    for _ in range(max_steps):
        before = engine.encode(ref.state)
        step = engine.expected(ref.state)
        if isinstance(step, E.Decide) and step.seat >= 0:
            legal = ref.legal(step.seat)
            for m in words_of(ref.view(step.seat), legal, step.seat):
                assert m["group"] != "Other" and "[" not in m["text"], m
        event = ref.step(choose)
        if event is None:
            return
        after = engine.encode(ref.state)
        _, lines = table.apply(event)
        assert lines and all(lines), event
        yield Told(ref, event, lines, before, after)
    raise AssertionError(f"{engine.name}: no end within {max_steps} events")
