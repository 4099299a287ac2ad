"""Nomads of Arabia determinization: the face-down yellow city tiles.

Every yellow handle still in the game (on the board's spaces, on a city, held, set aside, or
gone unseen) gets a distinct tile from those neither revealed nor known to the seat; the
seat's own held tiles come from `my_tiles` in its view. Board cards and dice stay chance
events the referee draws by the game's own distribution."""

from __future__ import annotations

import random
from typing import Any

from protocol.games.nomads import ENGINE
from protocol.games.nomads import data as D
from protocol.games.nomads.engine import price

from .sampling import World, deal, leader_rewards


class Sampler:
    def __init__(self, view: dict[str, Any]):
        st = self.state = ENGINE.decode(view["state"])
        self.seat: int = view["you"]
        self.players: int = st.n
        me = view["players"][self.seat]
        self.known = {t["handle"]: D.YELLOW_KEYS.index(t["tile"]) for t in me.get("my_tiles", [])}
        self.known.update(zip(st.used_h, st.used_t))
        handles = [*st.yspaces, *(h for h in st.row_yellow if h), *(h for hs in st.held for h in hs),
                   *st.yburned, *st.ygone]
        self.unknown = [h for h in dict.fromkeys(handles) if h not in self.known]
        seen = set(self.known.values())
        self.pool = [t for t in range(D.N_YELLOW) if t not in seen]

    def sample(self, rng: random.Random) -> World:
        st = ENGINE.clone(self.state)
        truth = dict(self.known)
        truth.update(deal(rng, self.unknown, self.pool))
        knowledge = [{h: truth[h] for h in st.held[s]} for s in range(st.n)]
        for k in knowledge:
            k.update(zip(st.used_h, st.used_t))
        return World(st, truth, knowledge)


ANIMAL_WORTH = 0.5     # of the market price: an animal still has to be carried to a city and sold
EDGE_RISK = 8.0        # dinars: on the row the desert takes next (lost there: traders and animals go)


def evaluate(state: Any, truth: dict[int, Any]) -> list[float]:
    """Dinars, with the held tiles' dinars (of this imagined world), part of the market value
    of the animals still to sell, less a risk for standing on the desert's edge."""
    n = state.n
    values = []
    edge = 4 * D.WIDTH
    for s in range(n):
        tiles = sum(D.YELLOW_DINARS[truth[h]] for h in state.held[s] if h in truth)
        animals = sum(state.animals[s * 4 + sp] * price(state, sp) for sp in range(4))
        risk = EDGE_RISK if state.pos[s] >= edge else 0.0
        values.append(state.money[s] + tiles + ANIMAL_WORTH * animals - risk)
    return leader_rewards(values, 15.0)
