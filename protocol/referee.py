"""Engine-only play with a trusted, seeded random source: simulation, bots and rules tests.

The referee stands in for the whole protocol (beacon, commitments, mental decks) by
keeping the truth itself, so an engine can be played and tested without any
cryptography. It answers every step exactly as the session would, with the same
events, so an engine that plays correctly here plays the same way over the network.
It is never used for networked play: there the session replaces it.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any, Callable

from . import engine as E

Chooser = Callable[[int, list[E.Action], Any], E.Action]
"""chooser(seat, legal_actions, referee) -> one of legal_actions."""


class RefereeError(RuntimeError):
    """The engine asked for something impossible (a bug in the engine, not in a player)."""


@dataclass
class Referee:
    engine: E.Engine
    players: int
    options: dict[str, Any] | None = None
    seed: int = 0
    state: Any = None
    truth: dict[int, Any] = field(default_factory=dict)
    knowledge: list[dict[int, Any]] = field(default_factory=list)
    next_handle: int = 1
    steps: int = 0
    decisions: int = 0

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)
        if self.options is None:
            self.options = self.engine.default_options(self.players)
        if self.state is None:
            self.state = self.engine.new_game(self.options, self.players)
        self.knowledge = [dict() for _ in range(self.players)]

    # -- helpers
    def _handles(self, n: int) -> tuple[int, ...]:
        hs = tuple(range(self.next_handle, self.next_handle + n))
        self.next_handle += n
        return hs

    def view(self, seat: int | None) -> dict[str, Any]:
        return self.engine.view(self.state, seat, None if seat is None else self.knowledge[seat])

    def legal(self, seat: int) -> list[E.Action]:
        return self.engine.legal_actions(self.state, seat, self.knowledge[seat])

    def _choose(self, chooser: Chooser, seat: int) -> E.Action:
        legal = self.legal(seat)
        if not legal:
            raise RefereeError(f"{self.engine.name}: seat {seat} must act but has no legal action")
        self.decisions += 1
        return chooser(seat, legal, self)

    # -- the loop
    def step(self, chooser: Chooser) -> E.Event | None:
        """Resolve the engine's next step; returns the applied event, or None when finished."""
        eng, st = self.engine, self.state
        step = eng.expected(st)
        if type(step) is _DECIDE:                      # the common step first, with _choose inlined (issue #17)
            seat = step.seat
            legal = eng.legal_actions(st, seat, self.knowledge[seat])
            if not legal:
                raise RefereeError(f"{eng.name}: seat {seat} must act but has no legal action")
            self.decisions += 1
            action = chooser(seat, legal, self)
            claims = eng.reveals(st, seat, action)
            for handle, value in claims:
                if self.truth.get(handle, _MISSING) != value:
                    raise E.IllegalAction(f"seat {seat} claims handle {handle} is {value!r}; it is not",
                                          "hidden-claim")
            event: E.Event = _ACT(seat, action)
            eng.apply(st, event)
            for handle, value in claims:
                for k in self.knowledge:
                    k[handle] = value
            self.steps += 1
            return event
        if isinstance(step, E.Finished):
            return None
        if isinstance(step, E.Simultaneous):
            event = E.Choices(tuple(self._choose(chooser, s) for s in step.seats))
            eng.apply(st, event)
        elif isinstance(step, E.Commit):
            values = [self._choose(chooser, s) for s in step.seats]
            handles = self._handles(len(values))
            event = E.Committed(step.tag, handles)
            eng.apply(st, event)
            for s, h, v in zip(step.seats, handles, values):
                self.truth[h] = v
                self.knowledge[s][h] = v
        elif isinstance(step, E.Random):
            values: list[Any] = []
            for kind, n in step.draws:
                if kind == "int":
                    values.append(self.rng.randrange(n))
                elif kind == "perm":
                    p = list(range(n))
                    self.rng.shuffle(p)
                    values.append(tuple(p))
                else:
                    raise RefereeError(f"unknown draw kind {kind!r}")
            event = E.Rolled(tuple(values))
            eng.apply(st, event)
        elif isinstance(step, E.DeckShuffle):
            cards = self._cards_of(step.cards)
            self.rng.shuffle(cards)
            handles = self._handles(len(cards))
            event = E.DeckShuffled(step.deck, handles)
            eng.apply(st, event)
            self.truth.update(zip(handles, cards))
        elif isinstance(step, E.DeckReveal):
            cards = tuple(map(self.truth.__getitem__, step.handles))
            event = E.DeckRevealed(step.handles, cards)
            eng.apply(st, event)
            for k in self.knowledge:
                k.update(zip(step.handles, cards))
        elif isinstance(step, E.DeckShow):
            event = E.DeckShown(step.seat, step.handles)
            eng.apply(st, event)
            self.knowledge[step.seat].update((h, self.truth[h]) for h in step.handles)
        elif isinstance(step, E.DeckReturn):
            chosen = self._choose(chooser, step.seat)
            if chosen not in step.handles:
                raise RefereeError(f"DeckReturn choice {chosen!r} is not one of {step.handles}")
            kept_old = [h for h in step.handles if h != chosen]
            new = self._handles(len(step.handles))
            event = E.DeckReturned(step.seat, step.deck, step.position, new[0], new[1:])
            eng.apply(st, event)
            self.truth[new[0]] = self.truth[chosen]
            self.knowledge[step.seat][new[0]] = self.truth[chosen]
            for old, h in zip(kept_old, new[1:]):
                self.truth[h] = self.truth[old]
                self.knowledge[step.seat][h] = self.truth[old]
        else:
            raise RefereeError(f"unknown step {step!r}")
        self.steps += 1
        return event

    def _cards_of(self, items: Any) -> list[Any]:
        """[_card_of(item) for item in items], with the common items (cards, known handles) inline."""
        truth = self.truth
        out = []
        for item in items:
            if type(item) is int:
                out.append(item)
            elif type(item) is list and len(item) == 2 and item[0] == "h" and item[1] in truth:
                out.append(truth[item[1]])
            else:
                out.append(self._card_of(item))
        return out

    def _card_of(self, item: Any) -> Any:
        if isinstance(item, int):
            return item
        if isinstance(item, (list, tuple)) and len(item) == 2 and item[0] == "h":
            if item[1] not in self.truth:
                raise RefereeError(f"unknown handle {item[1]}")
            return self.truth[item[1]]
        raise RefereeError(f"bad deck item {item!r}")

    def play(self, chooser: Chooser, max_steps: int = 1_000_000) -> dict[str, Any]:
        """Play to the end; returns the engine's result."""
        for _ in range(max_steps):
            if self.step(chooser) is None:
                result = self.engine.result(self.state)
                if result is None:
                    raise RefereeError(f"{self.engine.name}: Finished step but result() is None")
                return result
        raise RefereeError(f"{self.engine.name}: no end after {max_steps} steps")


_MISSING = object()
_DECIDE, _ACT = E.Decide, E.Act


def random_chooser(rng: random.Random) -> Chooser:
    """A chooser that picks uniformly among the legal actions."""
    return lambda seat, legal, ref: legal[rng.randrange(len(legal))]
