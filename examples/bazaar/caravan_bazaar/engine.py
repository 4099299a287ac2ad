"""Bazaar's rules engine (RULES.md): sans-I/O, deterministic, importing only `protocol`.

The hand is a mental deck's cards shown to one seat (`DeckShow`), the bid a `Simultaneous`
choice of one of the seat's own handles, revealed afterwards with `DeckReveal`: a seat cannot
bid a card it does not hold, and nobody learns a bid before every seat has committed to its own.
"""

from __future__ import annotations

from typing import Any

from protocol import engine as E

from .options import DEFAULTS, OPTIONS

DECK = "deck"
CARDS = 30            # card ids 0..29 are the numbers 1..30
DEALT = 2             # R1
HAND_LIMIT = 4        # R3
FIELDS = ("n", "rounds", "pass_bonus", "phase", "round", "turn", "deck", "hands", "drew", "bids",
          "played", "scores")


def number(card: int) -> str:
    """A card as people read it: "«7»" (marked on both sides, so no card's words are inside another's)."""
    return f"«{card + 1}»"


def leaders(scores: list[int]) -> list[int]:
    """The seats with the most points."""
    return [seat for seat, x in enumerate(scores) if x == max(scores)]


class State:
    __slots__ = FIELDS

    def __init__(self, n: int, rounds: int, pass_bonus: bool):
        self.n, self.rounds, self.pass_bonus = n, rounds, pass_bonus
        self.phase = "shuffle"                          # shuffle deal market show bid reveal over
        self.round = 0
        self.turn = 0                                   # the dealt seat, or the market turn in this round
        self.deck: list[int] = []                       # handles, index 0 = top
        self.hands: list[list[int]] = [[] for _ in range(n)]
        self.drew = [False] * n                         # who drew in this round's market
        self.bids: list[int] = []                       # the handles bid this round, in seat order
        self.played: list[list[int]] = []               # the revealed cards of every round
        self.scores = [0] * n


class BazaarEngine:
    name = "bazaar"
    title = "Bazaar"
    min_players, max_players = 2, 4

    def default_options(self, players: int) -> dict[str, Any]:
        return dict(DEFAULTS)

    def new_game(self, options: dict[str, Any], players: int) -> State:
        opts = E.check_options(OPTIONS, DEFAULTS, options, players)
        if not self.min_players <= players <= self.max_players:
            raise E.BadOptions(f"Bazaar is for {self.min_players} to {self.max_players} players")
        return State(players, opts["rounds"], opts["pass_bonus"])

    # ------------------------------------------------------------------ steps
    def expected(self, s: State) -> E.Step:
        p = s.phase
        if p == "shuffle":
            return E.DeckShuffle(DECK, tuple(range(CARDS)))
        if p == "deal":
            return E.DeckShow(s.turn, tuple(s.deck[:DEALT]))
        if p == "market":
            return E.Decide(self.market_seat(s))
        if p == "show":
            seat = self.market_seat(s)
            return E.DeckShow(seat, (s.hands[seat][-1],))
        if p == "bid":
            return E.Simultaneous(tuple(range(s.n)))
        if p == "reveal":
            return E.DeckReveal(tuple(s.bids))
        return E.Finished()

    def market_seat(self, s: State) -> int:
        return (s.round + s.turn) % s.n

    def legal_actions(self, s: State, seat: int, knowledge: E.Knowledge | None = None) -> list[E.Action]:
        if s.phase == "bid":
            return list(s.hands[seat])
        if s.phase != "market" or seat != self.market_seat(s):
            return []
        held = len(s.hands[seat])
        return ["draw"] if held == 0 else ["pass"] if held >= HAND_LIMIT else ["draw", "pass"]

    def reveals(self, s: State, seat: int, action: E.Action) -> list[tuple[int, Any]]:
        return []                                       # a bid is revealed by the deck, not claimed

    # ------------------------------------------------------------------ events
    def apply(self, s: State, ev: E.Event) -> None:
        step = self.expected(s)
        if isinstance(step, E.Finished):
            raise E.IllegalAction("the game is over", "R6")
        handler = {E.DeckShuffle: self._shuffled, E.DeckShow: self._shown, E.Decide: self._market,
                   E.Simultaneous: self._bid, E.DeckReveal: self._revealed}[type(step)]
        handler(s, step, ev)

    def _shuffled(self, s: State, step: E.DeckShuffle, ev: E.Event) -> None:
        if not isinstance(ev, E.DeckShuffled) or ev.deck != DECK or len(ev.handles) != CARDS:
            raise E.IllegalAction("expected the shuffle of the deck", "R1")
        s.deck, s.phase, s.turn = list(ev.handles), "deal", 0

    def _shown(self, s: State, step: E.DeckShow, ev: E.Event) -> None:
        if not isinstance(ev, E.DeckShown) or ev.seat != step.seat or tuple(ev.handles) != step.handles:
            raise E.IllegalAction(f"expected seat {step.seat} to see its cards", "R1" if s.phase == "deal" else "R3")
        if s.phase == "deal":
            s.hands[s.turn], s.deck = s.deck[:DEALT], s.deck[DEALT:]
            s.turn += 1
            if s.turn == s.n:
                s.phase, s.turn = "market", 0
        else:
            self._next_market_turn(s)

    def _market(self, s: State, step: E.Decide, ev: E.Event) -> None:
        if not isinstance(ev, E.Act) or ev.seat != step.seat:
            raise E.IllegalAction(f"it is seat {step.seat}'s turn in the market", "R3")
        if ev.action not in self.legal_actions(s, ev.seat):
            raise E.IllegalAction(f"{ev.action!r}: draw or pass (an empty hand draws, a full hand of "
                                  f"{HAND_LIMIT} passes)", "R3")
        if ev.action == "draw":
            s.hands[ev.seat].append(s.deck.pop(0))
            s.drew[ev.seat] = True
            s.phase = "show"
        else:
            self._next_market_turn(s)

    def _next_market_turn(self, s: State) -> None:
        s.turn += 1
        s.phase = "bid" if s.turn == s.n else "market"

    def _bid(self, s: State, step: E.Simultaneous, ev: E.Event) -> None:
        if (not isinstance(ev, E.Choices) or len(ev.values) != s.n
                or any(type(h) is not int or h not in s.hands[seat] for seat, h in enumerate(ev.values))):
            raise E.IllegalAction("each player bids one card of their own hand", "R4")
        s.bids = list(ev.values)
        for seat, h in enumerate(s.bids):
            s.hands[seat].remove(h)
        s.phase = "reveal"

    def _revealed(self, s: State, step: E.DeckReveal, ev: E.Event) -> None:
        if (not isinstance(ev, E.DeckRevealed) or tuple(ev.handles) != step.handles
                or len(ev.cards) != s.n or any(type(c) is not int or not 0 <= c < CARDS for c in ev.cards)):
            raise E.IllegalAction("expected the bids revealed", "R4")
        cards = list(ev.cards)
        winner = cards.index(max(cards))
        s.scores[winner] += 2 if s.pass_bonus and not s.drew[winner] else 1
        s.played.append(cards)
        s.bids, s.drew, s.turn = [], [False] * s.n, 0
        s.round += 1
        s.phase = "over" if s.round == s.rounds else "market"

    # ------------------------------------------------------------------ views and results
    def view(self, s: State, seat: int | None, knowledge: E.Knowledge | None = None) -> dict[str, Any]:
        """The public state, and the seat's own hand (and its bid before the reveal) as [handle, card]
        pairs (card None if unknown)."""
        v: dict[str, Any] = {
            "game": self.name, "seat": seat, "state": self.encode(s), "phase": s.phase,
            "round": min(s.round + 1, s.rounds),          # the round under way, for people (1 to rounds)
            "rounds": s.rounds, "pass_bonus": s.pass_bonus, "deck": len(s.deck),
            "hands": [len(h) for h in s.hands], "drew": list(s.drew), "played": [list(r) for r in s.played],
            "scores": list(s.scores), "to_move": self.market_seat(s) if s.phase in ("market", "show") else None}
        if seat is not None:
            k = knowledge or {}
            v["my_hand"] = [[h, k.get(h)] for h in s.hands[seat]]
            if s.bids:                                # bid, not yet revealed: the seat knows its own card
                v["my_bid"] = [s.bids[seat], k.get(s.bids[seat])]
        return v

    def result(self, s: State) -> dict[str, Any] | None:
        """R6: the most points wins; equal scores share the victory."""
        return None if s.phase != "over" else {"winners": leaders(s.scores), "scores": list(s.scores)}

    def clone(self, s: State) -> State:
        return self.decode(self.encode(s))

    def encode(self, s: State) -> list:
        return [[list(x) for x in v] if k in ("hands", "played") else list(v) if isinstance(v, list) else v
                for k, v in ((k, getattr(s, k)) for k in FIELDS)]

    def decode(self, value: list) -> State:
        s = State(value[0], value[1], value[2])
        for k, v in zip(FIELDS, value):
            setattr(s, k, [list(x) for x in v] if k in ("hands", "played") else list(v) if isinstance(v, list) else v)
        return s


ENGINE = BazaarEngine()
