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


# ----------------------------------------------------------------- options, described

@dataclass(frozen=True)
class Option:
    """One game option, described once (in protocol/games/<game>/options.py) so that the
    engine's own check, `caravan options` and the home's controls cannot disagree.

    kind: "choice" (one of `choices`), "yesno" (true or false), "number" (a whole number in
    min..max, max None for no bound) or "seats" (one of `choices` per seat, all different).
    `labels` name the choices for people (same order); `rule` is the passage it comes from."""
    kind: str
    help: str
    rule: str = ""
    choices: tuple[Any, ...] = ()
    labels: tuple[str, ...] = ()
    min: int | None = None
    max: int | None = None

    def check(self, key: str, value: Any, players: int) -> None:
        """Raise BadOptions (one line, naming the rule) unless `value` fits this description."""
        if not self.fits(value, players):
            rule = f" ({self.rule})" if self.rule else ""
            raise BadOptions(f"option {key!r} must be {self.words(players)}, not {_short(value)}{rule}")

    def fits(self, value: Any, players: int) -> bool:
        if self.kind == "yesno":
            return type(value) is bool
        if self.kind == "number":
            return (type(value) is int and (self.min is None or value >= self.min)
                    and (self.max is None or value <= self.max))
        if self.kind == "choice":       # type-exact: True is not 1, "1" is not 1
            return any(type(value) is type(c) and value == c for c in self.choices)
        if self.kind == "seats":
            return (isinstance(value, list) and len(value) == players and len(set(map(repr, value))) == players
                    and all(any(type(v) is type(c) and v == c for c in self.choices) for v in value))
        return False

    def words(self, players: int | None = None) -> str:
        """The allowed values in words, for `caravan options` and error messages."""
        named = [f"{c} {lab}" if lab else _word(c) for c, lab in zip(self.choices, self.labels or [""] * len(self.choices))]
        if self.kind == "yesno":
            return "true or false"
        if self.kind == "number":
            if self.max is None:
                return f"a whole number {self.min} or more"
            return f"a whole number {self.min}-{self.max}"
        if self.kind == "choice":
            return " or ".join([", ".join(named[:-1]), named[-1]] if len(named) > 1 else named)
        count = "one per seat" if players is None else f"{players}, one per seat"
        return f"a list of different values ({count}) from: {', '.join(named)}"

    def to_json(self) -> dict[str, Any]:
        """What a client needs to draw the control (the home's select, checkbox or number)."""
        out: dict[str, Any] = {"kind": self.kind, "rule": self.rule}
        if self.choices:
            out["choices"] = list(self.choices)
            out["labels"] = list(self.labels) if self.labels else [_word(c) for c in self.choices]
        if self.kind == "number":
            out["min"], out["max"] = self.min, self.max
        return out


def _short(value: Any) -> str:
    """A refused value as the error line shows it: its repr, cut short (a hand-made request can
    send anything, a 10,000-digit number included)."""
    try:
        text = repr(value)
    except ValueError:                   # an int too long to print
        return "a number too long"
    return text if len(text) <= 60 else text[:57] + "..."


def _word(value: Any) -> str:
    return ("true" if value else "false") if isinstance(value, bool) else str(value)


def check_options(described: dict[str, Option], defaults: dict[str, Any], options: Any,
                  players: int) -> dict[str, Any]:
    """The defaults overridden by `options`, each checked against its description: the engines'
    own check (raises BadOptions)."""
    if not isinstance(options, dict):
        raise BadOptions("options must be a map")
    unknown = set(options) - set(defaults)
    if unknown:
        raise BadOptions(f"unknown options: {', '.join(sorted(map(str, unknown)))}")
    opts = dict(defaults)
    opts.update(options)
    for key, value in opts.items():
        described[key].check(key, value, players)
    return opts


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

    name: str            # registry name (its caravan.games entry point's)
    title: str           # human name, as people read it
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
