"""Sa-Rê determinization: the face-down Season cards.

Every hidden Season card (the shoe, the darkness pile, the card set aside, Temple cards kept
or in hand) gets a distinct card from those not face up anywhere and not known to the seat;
the seat's own knowledge (its Temple cards, a card it put back, an Oracle peek) comes from
the cards its view shows face up on those handles. Approximation: the darkness pile is dealt
from the same pool as the shoe (which discarded cards went into it is history the view does
not hold)."""

from __future__ import annotations

import random
from types import SimpleNamespace
from typing import Any

from protocol.games.sare import ENGINE
from protocol.games.sare.data import N_CARDS
from protocol.games.sare.engine import progress

from .sampling import World, deal, leader_rewards


class Sampler:
    def __init__(self, view: dict[str, Any]):
        st = self.state = ENGINE.decode(view["state"])
        self.seat: int = view["seat"]
        self.players: int = st.n
        faces = [*view["shoe"], view.get("set_aside") or {}, *view.get("temple_hand", []),
                 *view["players"][self.seat].get("temple_kept", [])]
        self.known = {f["handle"]: f["card"]["id"] for f in faces if "card" in f}
        public = {*st.discard, *st.removed, *st.hosh, *(c for cs in st.palace_cards for c in cs),
                  *(c for cs in st.kept_cards for c in cs)}
        if st.card >= 0:
            public.add(st.card)
        handles = [*st.shoe, *st.dark, *([st.aside] if st.aside else []), *(h for hs in st.kept for h in hs),
                   *st.temple_hand]
        self.unknown = [h for h in dict.fromkeys(handles) if h not in self.known]
        seen = public | set(self.known.values())
        self.pool = [c for c in range(N_CARDS) if c not in seen]

    def sample(self, rng: random.Random) -> World:
        st = ENGINE.clone(self.state)
        truth = dict(self.known)
        truth.update(deal(rng, self.unknown, self.pool))
        knowledge: list[dict[int, Any]] = [{h: truth[h] for h in st.kept[s]} for s in range(st.n)]
        if st.temple_owner >= 0:
            knowledge[st.temple_owner].update((h, truth[h]) for h in st.temple_hand)
        if 0 <= self.seat < st.n:
            knowledge[self.seat].update(self.known)
        return World(st, truth, knowledge)


PROJECT_WEIGHT = 0.3       # a launched project's share of the progress it brings once built


def evaluate(state: Any, truth: dict[int, Any]) -> list[float]:
    """Progress toward the scenario's goal (the result's score), a part of the progress the
    launched projects would add (a plan spanning turns is not worth nothing at a turn's end),
    then a little for resources."""
    values = []
    for p in range(state.n):
        now = progress(state, p)
        planned = progress(SimpleNamespace(scenario=state.scenario, pieces={p: [[pc[0], pc[1], 1, *pc[3:]]
                                                                             for pc in state.pieces[p]]}), p)
        values.append(now + PROJECT_WEIGHT * (planned - now) + 0.1 * sum(state.res[p][:3])
                      + 0.05 * sum(state.gain[p][:3]))
    return leader_rewards(values, 1.0)


def clock(state: Any) -> int:
    """The turn: a playout runs to the end of the turn, so the projects launched are built (or
    not) and the season's troubles are counted before the position is judged. Cut earlier, at a
    fixed number of decisions, the search saw launching a project only as resources spent and
    stopped building (4 players: 0 of 4 games won at 0.3 s)."""
    return state.turn
