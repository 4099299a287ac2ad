"""The contract between the session (crypto, network, signatures) and a game's rules engine.

An engine is a deterministic state machine that knows nothing about cryptography or
networks. It says what it needs next (a *step*), and receives what happened (an
*event*). Hidden things (a committed choice, a card in a mental deck) are *handles*:
small ints allocated by the session and carried in events; a player's private
knowledge (handle -> value) lives outside the public state. specs/engine.md is the
prose version of this module.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

Action = Any
"""A canonical-msgpack value (str, int, bytes, bool, None, lists of those)."""

Knowledge = dict[int, Any]
"""What one seat privately knows: handle -> value."""


class IllegalAction(ValueError):
    """An event the rules do not allow; `rule` names the rule it breaks (spec section)."""

    def __init__(self, message: str, rule: str = ""):
        super().__init__(message)
        self.rule = rule


class BadOptions(ValueError):
    """The game options are invalid for this game or player count."""


# ----------------------------------------------------------------- steps (engine -> session)

@dataclass(frozen=True)
class Decide:
    """One seat picks one action from legal_actions(state, seat, knowledge)."""
    seat: int


@dataclass(frozen=True)
class Simultaneous:
    """Each seat picks secretly from legal_actions(state, seat); the picks are committed,
    then revealed together, and delivered as one `Choices` event."""
    seats: tuple[int, ...]


@dataclass(frozen=True)
class Commit:
    """Each seat commits to a value picked from legal_actions(state, seat), revealed later
    (by an action that `reveals` the handle, or at the end). Answered by `Committed`."""
    seats: tuple[int, ...]
    tag: str


@dataclass(frozen=True)
class Random:
    """Joint randomness from the beacon. Each draw is ("int", n): uniform in 0..n-1, or
    ("perm", n): a uniform permutation of range(n). Answered by `Rolled`."""
    draws: tuple[tuple[str, int], ...]


# Mental-deck steps: a deck is an ordered pile of face-down cards (index 0 = top) whose
# order nobody knows. Piles that nobody may ever look at privately do not need a mental
# deck: keep the remaining cards in the public state and draw with `Random`.

@dataclass(frozen=True)
class DeckShuffle:
    """(Re)build `deck` from `cards` and shuffle it jointly. Each item of `cards` is a public
    card id (int >= 0) or ["h", handle] for a hidden card the engine already tracks.
    Answered by `DeckShuffled` with one fresh handle per position."""
    deck: str
    cards: tuple[Any, ...]


@dataclass(frozen=True)
class DeckReveal:
    """Reveal the given handles publicly. Answered by `DeckRevealed`."""
    handles: tuple[int, ...]


@dataclass(frozen=True)
class DeckShow:
    """Let `seat` alone learn the given handles (a private draw or a peek). Answered by
    `DeckShown`; the seat's knowledge then holds handle -> card."""
    seat: int
    handles: tuple[int, ...]


@dataclass(frozen=True)
class DeckReturn:
    """`seat` puts one of `handles` (cards it knows privately) face down into `deck` at
    `position` ("top" or "bottom") without the others learning which. The seat's node picks
    from legal_actions(state, seat, knowledge) (each is a handle from `handles`). Answered by
    `DeckReturned`: the returned card and the cards kept all get fresh handles."""
    seat: int
    deck: str
    handles: tuple[int, ...]
    position: str


@dataclass(frozen=True)
class Finished:
    """The game is over; result(state) is not None."""


Step = Decide | Simultaneous | Commit | Random | DeckShuffle | DeckReveal | DeckShow | DeckReturn | Finished


# ---------------------------------------------------------------- events (session -> engine)

@dataclass(frozen=True)
class Act:
    """Answer to Decide (and to DeckReturn's public part is not an Act: see DeckReturned)."""
    seat: int
    action: Action


@dataclass(frozen=True)
class Choices:
    """Answer to Simultaneous: one value per seat, in the order of the step's seats."""
    values: tuple[Action, ...]


@dataclass(frozen=True)
class Committed:
    """Answer to Commit: one fresh handle per seat, in the order of the step's seats."""
    tag: str
    handles: tuple[int, ...]


@dataclass(frozen=True)
class Rolled:
    """Answer to Random: one value per draw (an int, or a tuple for "perm")."""
    values: tuple[Any, ...]


@dataclass(frozen=True)
class DeckShuffled:
    deck: str
    handles: tuple[int, ...]


@dataclass(frozen=True)
class DeckRevealed:
    handles: tuple[int, ...]
    cards: tuple[int, ...]


@dataclass(frozen=True)
class DeckShown:
    seat: int
    handles: tuple[int, ...]


@dataclass(frozen=True)
class DeckReturned:
    """`returned` is the new handle of the card put into the deck; `kept` are the new
    handles of the cards the seat still holds (same order as the step's handles minus one)."""
    seat: int
    deck: str
    position: str
    returned: int
    kept: tuple[int, ...]


Event = Act | Choices | Committed | Rolled | DeckShuffled | DeckRevealed | DeckShown | DeckReturned


# ---------------------------------------------------------------------------- the engine

@runtime_checkable
class Engine(Protocol):
    """What every game implements (see specs/engine.md for the full contract)."""

    name: str            # registry name, e.g. "sabbat"
    title: str           # human name, e.g. "Sabbat Magica"
    min_players: int
    max_players: int

    def default_options(self, players: int) -> dict[str, Any]: ...

    def new_game(self, options: dict[str, Any], players: int) -> Any:
        """Initial state; raises BadOptions. Randomness in setup is asked for by steps."""

    def expected(self, state: Any) -> Step: ...

    def legal_actions(self, state: Any, seat: int, knowledge: Knowledge | None = None) -> list[Action]:
        """The seat's options for the current step, in a stable order."""

    def apply(self, state: Any, event: Event) -> None:
        """Validate the event completely, then mutate state. Raises IllegalAction (naming the
        rule) before changing anything."""

    def reveals(self, state: Any, seat: int, action: Action) -> list[tuple[int, Any]]:
        """(handle, value) pairs that this action claims about the seat's hidden things; the
        session checks each against the commitment or the deck before `apply`."""

    def view(self, state: Any, seat: int | None, knowledge: Knowledge | None = None) -> dict[str, Any]:
        """A JSON-able view for `seat` (None: a spectator). Only public state plus `knowledge`."""

    def result(self, state: Any) -> dict[str, Any] | None:
        """None while playing; then {"winners": [seats], "scores": [int per seat], ...}."""

    def clone(self, state: Any) -> Any: ...

    def encode(self, state: Any) -> Any:
        """A canonical-msgpack value that decode() turns back into an equal state."""

    def decode(self, value: Any) -> Any: ...

    def describe(self, state: Any, seat: int, action: Action) -> str:
        """A short readable form of an action, for people and logs."""
