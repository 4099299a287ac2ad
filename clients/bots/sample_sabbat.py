"""Sabbat Magica determinization: the only hidden values are the committed POWER cards.

An unrevealed POWER card of another seat is drawn uniformly from its people's POWER cards;
the seat's own comes from `my_power` in its view."""

from __future__ import annotations

import random
from typing import Any

from protocol.games.sabbat import ENGINE
from protocol.games.sabbat import data as D

from .sabbat import value
from .sampling import World, leader_rewards


class Sampler:
    def __init__(self, view: dict[str, Any]):
        self.state = ENGINE.decode(view["state"])
        self.seat: int = view["seat"]
        self.players: int = self.state.n
        mine = view.get("my_power")
        self.my_power = D.POWER_IDS.index(mine) if mine in D.POWER_IDS else None

    def sample(self, rng: random.Random) -> World:
        st = ENGINE.clone(self.state)
        truth: dict[int, Any] = {}
        knowledge: list[dict[int, Any]] = [{} for _ in range(st.n)]
        if st.powers and len(st.phandle) == st.n:
            for s, h in enumerate(st.phandle):
                if not isinstance(h, int) or h <= 0:
                    continue
                if st.pcard[s] is not None:
                    card = st.pcard[s]
                elif s == self.seat and self.my_power is not None:
                    card = self.my_power
                else:
                    options = D.PEOPLE_POWERS[st.people[s]]
                    card = options[rng.randrange(len(options))]
                truth[h] = card
                knowledge[s][h] = card
        return World(st, truth, knowledge)


def evaluate(state: Any, truth: dict[int, Any]) -> list[float]:
    """The heuristic bot's position value (VP-like units) per seat, as rewards."""
    return leader_rewards([value(state, s) for s in range(state.n)], 6.0)


def clock(state: Any) -> int:
    """The round: a playout runs to the end of the round, so ghosts invoked are placed (or
    not) and fed before the position is judged. Cut at a fixed number of decisions, the search
    saw an invocation only as ghosts to feed and invoked none (4 players, 100 iterations: the
    secret invocation left the heuristic's rule of thumb 5 times out of 6)."""
    return state.rnd
