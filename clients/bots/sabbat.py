"""A heuristic Sabbat Magica bot: a one-step lookahead with a hand-made evaluation.

It rebuilds the public state from its view (the view carries the encoded public state,
which holds no hidden value), tries each legal action on a copy, finishes the sub-steps
of a compound action greedily (the effect after a magician move, fee payments, the Test
tube), and keeps the action whose position it values most. The evaluation counts VP and
chimaeras, the approval square's progress to the next chimaera, resources (less in 1H,
which will curse; more when they can pay a gate fee), the curse to be paid, terror, the
ghosts it will not be able to feed, and ghosts by where they stand (regions by their VP over
the rounds left, garden majors and minors), minus half the opponents' average. The secret
invocation uses a rule of thumb: invoke what terror can feed.
"""

from __future__ import annotations

from typing import Any

from protocol import engine as E
from protocol.games.sabbat import ENGINE
from protocol.games.sabbat import data as D

from .base import Bot

_FOLLOW = frozenset(("b1", "pay", "tt", "victims", "b1end"))
_GARDEN_VALUE = {D.GLASS: 1.0, D.CRYSTAL: 1.2, D.CANTEEN: 1.4, D.TRAINING: 0.8, D.ALCHEMIST: 0.8, D.ZEN: 0.8}


def value(st, p: int) -> float:
    """How good the position is for seat p (in VP-like units)."""
    rnd = st.rnd
    left = D.ROUNDS - rnd + (1 if st.stage in ("secret", "time", "invoke", "canteen", "bonus", "turn") else 0)
    v = st.vp[p] + D.CHIMAERA_VP * st.chim[p]
    ap = st.appr[p]
    m = min(ap)
    if left:
        v += 5 * m + 0.9 * (sum(ap) - 4 * m)
    h1, h2 = st.h1[p], st.h2[p]
    if rnd < D.ROUNDS:
        v += 1.0 * sum(h2) + 0.6 * sum(h1)
        held = [a + b for a, b in zip(h1, h2)]
        # resources that pay a gate fee are worth more: they put a ghost in a region
        for r in range(D.NREG):
            if all(held[t] for t in D.GATE_FEES[st.gates[D.REGION_GATE[r]]]):
                v += 0.4 * D.REGION_VP[r]
                break
        if any(h1) and st.stage in ("turn", "food", "alch") and rnd < D.ROUNDS - 1:
            v -= 3.5                                   # will become a curse at the next A.1
        v -= 5 * st.curse[p]
    t = st.terror[p]
    v += 0.7 * t if t <= 6 else 4.2 + 0.3 * (t - 6)
    out = 0
    regions = set()
    canteen = 0
    for l, L in enumerate(st.locs):
        for i, e in enumerate(L):
            if e & 3 == p:
                out += 1
                if l < D.NREG:
                    regions.add(l)
                elif i == 0:
                    v += _GARDEN_VALUE[l] * left
                    if l == D.CANTEEN:
                        canteen = 2
                elif i == 1:
                    v += 0.5 * _GARDEN_VALUE[l] * left
                    if l == D.CANTEEN and not canteen:
                        canteen = 1
    for r in regions:
        v += 0.8 * D.REGION_VP[r] * left
    out += st.bridge[p]
    v -= 0.6 * out * left
    if st.stage == "turn":
        short = out - canteen - t - 1
        if short > 0:
            v -= 1.5 * short                           # unfed ghosts ahead
    return v


def evaluate(st, seat: int) -> float:
    if st.final is not None:
        best = max(st.final)
        mine = st.final[seat]
        return 1000.0 + mine - best if mine == best else mine - best
    mine = value(st, seat)
    others = [value(st, o) for o in range(st.n) if o != seat]
    return mine - 0.5 * sum(others) / len(others)


class HeuristicBot(Bot):
    reads_state = True          # it decodes the view's encoded state (a search playout keeps it in)

    def choose(self, view: dict[str, Any] | None, legal_actions: list[Any]) -> Any:
        if len(legal_actions) == 1 or view is None:
            return legal_actions[0]
        st = ENGINE.decode(view["state"])
        seat = view["seat"]
        if st.stage == "invoke":
            return self._invoke(st, seat, legal_actions)
        if st.stage == "commit":
            return legal_actions[self.rng.randrange(len(legal_actions))]
        best, best_v = [], None
        for a in legal_actions:
            v = self._try(st, seat, a)
            if best_v is None or v > best_v + 1e-9:
                best, best_v = [a], v
            elif abs(v - best_v) <= 1e-9:
                best.append(a)
        return best[self.rng.randrange(len(best))]

    def _try(self, st, seat: int, action: Any) -> float:
        c = ENGINE.clone(st)
        try:
            ENGINE.apply(c, E.Act(seat, action))
        except E.IllegalAction:
            return -1e9
        for _ in range(8):                            # finish this action's sub-steps greedily
            if c.stage != "turn" or c.actor != seat or c.sub not in _FOLLOW:
                break
            legal = ENGINE.legal_actions(c, seat)
            if not legal:
                break
            best, best_v = None, None
            for a in legal:
                d = ENGINE.clone(c)
                ENGINE.apply(d, E.Act(seat, a))
                v = evaluate(d, seat)
                if best_v is None or v > best_v:
                    best, best_v = d, v
            c = best
        return evaluate(c, seat)

    def _invoke(self, st, seat: int, legal: list[int]) -> int:
        avail = legal[-1]
        on_board = sum(1 for L in st.locs for e in L if e & 3 == seat)
        want = st.terror[seat] + 2 - on_board
        if st.rnd == D.ROUNDS:
            want -= 1
        return max(0, min(avail, want, 4))
