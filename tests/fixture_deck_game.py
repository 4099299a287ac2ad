"""A small card game that uses every mental-deck operation (test-only engine).

"Temple draw": one deck "main" of `cards` physical cards (ids 0..cards-1), two rounds.

* Round 0: the deck is shuffled jointly and its top card is burned (set aside unseen).
  Each seat in turn: the top card is revealed to everyone (it goes to the table); the
  seat draws the next two cards privately; it puts one of them face down on top of the
  deck (even turns) or at the bottom (odd turns) and keeps the other; then it peeks at
  the burned card.
* Between the rounds the table cards, the deck and the burned card are gathered and
  reshuffled (hands stay in hands), and the new top card is burned.
* Round 1: each seat in turn draws two cards privately and returns one face down (top on
  even turns, bottom on odd ones); seat 0 also peeks at the new burned card together with
  the first card of its hand (which it knows already); each turn ends with a decision:
  claim one card of the hand ("my card 17 is card 5": scores its id) or pass.
* At the end the burned card is revealed, then shown to seat 0 once more (a step that
  needs no message); the highest total of claimed ids wins.
"""

from __future__ import annotations

from typing import Any

from protocol import engine as E

FIELDS = ("n", "cards", "phase", "round", "turn", "deck", "aside", "table", "hands", "drawn",
          "claimed", "aside_card")


class State:
    __slots__ = FIELDS

    def __init__(self, n: int, cards: int):
        self.n, self.cards = n, cards
        self.phase = "shuffle"      # shuffle, reveal, draw, return, peek, claim, gather, end_reveal,
                                    # end_show, over
        self.round = 0
        self.turn = 0
        self.deck: list[int] = []   # handles, index 0 = top
        self.aside = 0
        self.table: list[int] = []  # card ids face up
        self.hands: list[list[int]] = [[] for _ in range(n)]
        self.drawn: list[int] = []
        self.claimed: list[list[int]] = [[] for _ in range(n)]
        self.aside_card = -1


class TempleDraw:
    name = "deckfixture"
    title = "Temple draw (mental-deck test fixture)"
    min_players, max_players = 2, 6

    def default_options(self, players: int) -> dict[str, Any]:
        return {"cards": 2 * players + 4}

    def new_game(self, options: dict[str, Any], players: int) -> State:
        cards = options.get("cards")
        if set(options) != {"cards"} or type(cards) is not int or not 2 * players + 2 <= cards <= 64:
            raise E.BadOptions(f"options are {{'cards': {2 * players + 2}..64}}")
        return State(players, cards)

    # -------------------------------------------------------------- steps
    def expected(self, s: State) -> E.Step:
        p = s.phase
        if p == "shuffle":
            return E.DeckShuffle("main", tuple(range(s.cards)))
        if p == "gather":
            return E.DeckShuffle("main", tuple(s.table) + tuple(["h", h] for h in s.deck) + (["h", s.aside],))
        if p == "reveal":
            return E.DeckReveal((s.deck[0],))
        if p == "draw":
            return E.DeckShow(s.turn, (s.deck[0], s.deck[1]))
        if p == "return":
            return E.DeckReturn(s.turn, "main", tuple(s.drawn), "top" if s.turn % 2 == 0 else "bottom")
        if p == "peek":
            if s.round == 1:
                return E.DeckShow(s.turn, (s.aside, s.hands[s.turn][0]))
            return E.DeckShow(s.turn, (s.aside,))
        if p == "claim":
            return E.Decide(s.turn)
        if p == "end_reveal":
            return E.DeckReveal((s.aside,))
        if p == "end_show":
            return E.DeckShow(0, (s.aside,))
        return E.Finished()

    def legal_actions(self, s: State, seat: int, knowledge: dict | None = None) -> list:
        if s.phase == "return" and seat == s.turn:
            return list(s.drawn)
        if s.phase == "claim" and seat == s.turn:
            if knowledge is None:
                claims = [["claim", h, c] for h in s.hands[seat] for c in range(s.cards)]
            else:
                claims = [["claim", h, knowledge[h]] for h in s.hands[seat] if h in knowledge]
            return claims + [["pass"]]
        return []

    def reveals(self, s: State, seat: int, action: Any) -> list[tuple[int, Any]]:
        if s.phase == "claim" and type(action) is list and len(action) == 3 and action[0] == "claim":
            return [(action[1], action[2])]
        return []

    def apply(self, s: State, ev: E.Event) -> None:
        step = self.expected(s)
        p = s.phase
        if isinstance(step, E.DeckShuffle):
            if not isinstance(ev, E.DeckShuffled) or ev.deck != "main" or len(ev.handles) != len(step.cards):
                raise E.IllegalAction("expected the shuffle of the deck", "shuffle")
            s.deck = list(ev.handles)
            s.aside = s.deck.pop(0)                       # burn: set aside unseen
            s.table = []
            s.phase, s.turn = "reveal", 0
            if p == "gather":
                s.round, s.phase = 1, "draw"
            return
        if isinstance(step, E.DeckReveal):
            if not isinstance(ev, E.DeckRevealed) or tuple(ev.handles) != step.handles or len(ev.cards) != 1:
                raise E.IllegalAction("expected the reveal", "reveal")
            if p == "end_reveal":
                s.aside_card = ev.cards[0]
                s.phase = "end_show"
                return
            s.table.append(ev.cards[0])
            s.deck.pop(0)
            s.phase = "draw"
            return
        if isinstance(step, E.DeckShow):
            if not isinstance(ev, E.DeckShown) or ev.seat != step.seat or tuple(ev.handles) != step.handles:
                raise E.IllegalAction("expected the private show", "show")
            if p == "draw":
                s.drawn, s.deck = s.deck[:2], s.deck[2:]
                s.phase = "return"
            elif p == "end_show":
                s.phase = "over"
            else:
                self._end_turn(s)
            return
        if isinstance(step, E.DeckReturn):
            if (not isinstance(ev, E.DeckReturned) or ev.seat != step.seat or ev.deck != "main"
                    or ev.position != step.position or len(ev.kept) != len(step.handles) - 1):
                raise E.IllegalAction("expected the face-down return", "return")
            if ev.position == "top":
                s.deck.insert(0, ev.returned)
            else:
                s.deck.append(ev.returned)
            s.hands[ev.seat].extend(ev.kept)
            s.drawn = []
            s.phase = "peek" if s.round == 0 or s.turn == 0 else "claim"
            return
        if isinstance(step, E.Decide):
            if not isinstance(ev, E.Act) or ev.seat != step.seat:
                raise E.IllegalAction("not this seat's turn", "turn")
            a = ev.action
            if a == ["pass"]:
                pass
            elif (type(a) is list and len(a) == 3 and a[0] == "claim" and a[1] in s.hands[ev.seat]
                  and type(a[2]) is int and 0 <= a[2] < s.cards):
                s.hands[ev.seat].remove(a[1])
                s.claimed[ev.seat].append(a[2])
            else:
                raise E.IllegalAction(f"{a!r}: claim a card of your hand or pass", "claim")
            self._end_turn(s, claimed=True)
            return
        raise E.IllegalAction("the game is over", "over")

    def _end_turn(self, s: State, claimed: bool = False) -> None:
        if s.round == 1 and not claimed:                   # seat 0's peek in round 1, then its claim
            s.phase = "claim"
            return
        s.turn += 1
        if s.turn < s.n:
            s.phase = "reveal" if s.round == 0 else "draw"
        elif s.round == 0:
            s.phase = "gather"
        else:
            s.phase = "end_reveal"

    def view(self, s: State, seat: int | None, knowledge: dict | None = None) -> dict[str, Any]:
        v = {"phase": s.phase, "round": s.round, "turn": s.turn, "deck": len(s.deck), "table": list(s.table),
             "hands": [len(h) for h in s.hands], "claimed": [list(c) for c in s.claimed]}
        if seat is not None:
            k = knowledge or {}
            v["my_hand"] = [k.get(h) for h in s.hands[seat]]
        return v

    def result(self, s: State) -> dict[str, Any] | None:
        if s.phase != "over":
            return None
        scores = [sum(c) for c in s.claimed]
        best = max(scores)
        return {"winners": [i for i, x in enumerate(scores) if x == best], "scores": scores,
                "aside": s.aside_card}

    def clone(self, s: State) -> State:
        return self.decode(self.encode(s))

    def encode(self, s: State) -> list:
        return [[list(x) for x in v] if k in ("hands", "claimed") else (list(v) if isinstance(v, list) else v)
                for k, v in ((k, getattr(s, k)) for k in FIELDS)]

    def decode(self, value: list) -> State:
        s = State(value[0], value[1])
        for k, v in zip(FIELDS, value):
            if k in ("hands", "claimed"):
                v = [list(x) for x in v]
            elif isinstance(v, list):
                v = list(v)
            setattr(s, k, v)
        return s


ENGINE = TempleDraw()
