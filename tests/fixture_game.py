"""A tiny game that exercises every protocol feature the seed games rely on (test-only).

"Dice duel": the seat order comes from the beacon; every player commits to a secret
bonus (0-2) revealed only at the end; each round all players bet 1-3 at once (a
simultaneous secret choice), everybody rolls a die from the beacon, and then, in
order, each player keeps their die or rerolls it once. A die showing at least twice
the bet scores the bet, otherwise the player loses one point.
"""

from __future__ import annotations

from typing import Any

from protocol import engine as E


class State:
    __slots__ = ("rounds", "n", "phase", "round", "order", "bonus", "bets", "dice", "turn",
                 "scores", "revealed")

    def __init__(self, rounds: int, n: int):
        self.rounds, self.n = rounds, n
        self.phase = "order"            # order, bonus, bet, roll, turns, reroll, reveal, over
        self.round = 0
        self.order: list[int] = []
        self.bonus: list[int] = []      # handle per seat
        self.bets: list[int] = []
        self.dice: list[int] = []
        self.turn = 0                   # index into order
        self.scores = [0] * n
        self.revealed: list[int | None] = [None] * n

    def encode(self) -> list:
        return [getattr(self, k) for k in self.__slots__]


class DiceDuel:
    name = "fixture"
    title = "Dice duel (test fixture)"
    min_players, max_players = 2, 6

    def default_options(self, players: int) -> dict[str, Any]:
        return {"rounds": 2}

    def new_game(self, options: dict[str, Any], players: int) -> State:
        rounds = options.get("rounds")
        if set(options) != {"rounds"} or type(rounds) is not int or not 1 <= rounds <= 10:
            raise E.BadOptions("options are {'rounds': 1..10}")
        return State(rounds, players)

    def expected(self, s: State) -> E.Step:
        p = s.phase
        if p == "order":
            return E.Random((("perm", s.n),))
        if p == "bonus":
            return E.Commit(tuple(range(s.n)), "bonus")
        if p == "bet":
            return E.Simultaneous(tuple(range(s.n)))
        if p == "roll":
            return E.Random(tuple(("int", 6) for _ in range(s.n)))
        if p in ("turns", "reveal"):
            return E.Decide(s.order[s.turn])
        if p == "reroll":
            return E.Random((("int", 6),))
        return E.Finished()

    def legal_actions(self, s: State, seat: int, knowledge: dict | None = None) -> list:
        p = s.phase
        if p == "bonus":
            return [0, 1, 2]
        if p == "bet":
            return [1, 2, 3]
        if p in ("turns", "reveal") and s.order[s.turn] == seat:
            if p == "turns":
                return ["keep", "reroll"]
            known = (knowledge or {}).get(s.bonus[seat])
            return [["bonus", known]] if known is not None else [["bonus", v] for v in (0, 1, 2)]
        return []

    def reveals(self, s: State, seat: int, action: Any) -> list[tuple[int, Any]]:
        if s.phase == "reveal" and type(action) is list and len(action) == 2 and action[0] == "bonus":
            return [(s.bonus[seat], action[1])]
        return []

    def apply(self, s: State, ev: E.Event) -> None:
        step = self.expected(s)
        if isinstance(step, E.Random):
            if not isinstance(ev, E.Rolled) or len(ev.values) != len(step.draws):
                raise E.IllegalAction("expected a roll", "random")
            if s.phase == "order":
                s.order, s.phase = list(ev.values[0]), "bonus"
            elif s.phase == "roll":
                s.dice = [v + 1 for v in ev.values]
                s.phase, s.turn = "turns", 0
            else:
                s.dice[s.order[s.turn]] = ev.values[0] + 1
                self._next_turn(s)
            return
        if isinstance(step, E.Commit):
            if not isinstance(ev, E.Committed) or len(ev.handles) != s.n:
                raise E.IllegalAction("expected the bonus commitments", "setup")
            s.bonus, s.phase = list(ev.handles), "bet"
            return
        if isinstance(step, E.Simultaneous):
            if not isinstance(ev, E.Choices) or len(ev.values) != s.n or any(v not in (1, 2, 3) for v in ev.values):
                raise E.IllegalAction("each bet is 1, 2 or 3", "bet")
            s.bets, s.phase = list(ev.values), "roll"
            return
        if not isinstance(ev, E.Act) or ev.seat != step.seat:
            raise E.IllegalAction("not this seat's turn", "turn")
        if s.phase == "turns":
            if ev.action == "keep":
                self._next_turn(s)
            elif ev.action == "reroll":
                s.phase = "reroll"
            else:
                raise E.IllegalAction(f"{ev.action!r}: choose keep or reroll", "turn")
            return
        a = ev.action
        if not (type(a) is list and len(a) == 2 and a[0] == "bonus" and a[1] in (0, 1, 2)):
            raise E.IllegalAction("reveal your bonus as ['bonus', 0..2]", "reveal")
        s.revealed[ev.seat] = a[1]
        s.scores[ev.seat] += a[1]
        s.turn += 1
        if s.turn == s.n:
            s.phase = "over"

    def _next_turn(self, s: State) -> None:
        seat = s.order[s.turn]          # the seat's turn ends: score its die
        s.scores[seat] += s.bets[seat] if s.dice[seat] >= 2 * s.bets[seat] else -1
        s.phase = "turns"
        s.turn += 1
        if s.turn == s.n:
            s.round += 1
            s.turn = 0
            s.phase = "reveal" if s.round == s.rounds else "bet"

    def view(self, s: State, seat: int | None, knowledge: dict | None = None) -> dict[str, Any]:
        v = {"round": s.round, "phase": s.phase, "order": s.order, "dice": s.dice,
             "scores": s.scores, "revealed": s.revealed}
        if s.phase != "bet":
            v["bets"] = s.bets
        if seat is not None and s.bonus and knowledge and s.bonus[seat] in knowledge:
            v["my_bonus"] = knowledge[s.bonus[seat]]
        return v

    def result(self, s: State) -> dict[str, Any] | None:
        if s.phase != "over":
            return None
        best = max(s.scores)
        return {"winners": [i for i, x in enumerate(s.scores) if x == best], "scores": list(s.scores)}

    def clone(self, s: State) -> State:
        return self.decode(self.encode(s))

    def encode(self, s: State) -> list:
        return s.encode()

    def decode(self, value: list) -> State:
        s = State(value[0], value[1])
        for k, v in zip(State.__slots__, value):
            setattr(s, k, list(v) if isinstance(v, list) else v)
        return s


ENGINE = DiceDuel()
