"""This seat's signing between its decider and its links, without a clock or links: what a
shell's game loop (the trio node, the tab's driver) does each time the replica changed.

A shell calls `may_sign` (the gate, the vote and its own outcome allow it), then `owed` (the
automatic messages: reveals, beacon, deck steps, final signatures), then `question` (the
choice to put to its decider, if any), awaits the decider however it likes, and hands the
answer to `answer`, which signs it only if the replica did not move meanwhile."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..player import Player
from .core import SeatCore


@dataclass(frozen=True)
class Question:
    """A choice for the decider: `view` (None when the decider wants none), the `legal`
    actions, the decision's `kind` ("act", "commit", "return"), and the replica's `version`
    when asked (an answer to an older version is not signed)."""
    view: Any
    legal: list[Any]
    kind: str
    version: tuple[int, ...]


class Turn:
    """One seat's signing steps over its SeatCore and Player (see the module doc)."""

    def __init__(self, core: SeatCore, player: Player):
        self.core, self.player = core, player
        self.session = player.session

    def may_sign(self, stopped: bool = False) -> bool:
        """The seat may sign a chain message now: it recovered its own chain, signed no abandon
        statement, and the shell has not `stopped` (its outcome is set)."""
        return self.core.mesh.recovered and self.core.ballot.vote is None and not stopped

    def owed(self) -> list[bytes]:
        """The automatic messages this seat owes now, signed and applied."""
        return self.player.automatic()

    def question(self, wants_view: bool = True) -> Question | None:
        """The decision this seat must make now, if any (its view only if `wants_view`)."""
        decision = self.player.decision()
        if decision is None:
            return None
        return Question(self.view() if wants_view else None, decision.legal, decision.kind, self.session.version())

    def view(self) -> Any:
        """What this seat sees of the game now (the engine's view, with what it knows)."""
        s = self.session
        return s.engine.view(s.state, self.player.seat, self.player.knowledge)

    def answer(self, question: Question, action: Any, stopped: bool = False) -> bytes | None:
        """The decider's `action` signed and applied, or None when the game moved on meanwhile
        (or the seat may no longer sign): then ask again."""
        if self.session.version() != question.version or not self.may_sign(stopped):
            return None
        return self.player.decide(action)
