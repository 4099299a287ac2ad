"""Helpers for the Nomads of Arabia tests: reach a chosen position, then drive the engine
with hand-picked dice (Rolled events) and decisions (Act events)."""

from __future__ import annotations

import random

from protocol.engine import Act, Decide, DeckShow, DeckShown, IllegalAction, Random, Rolled  # noqa: F401 (re-exported)
from protocol.games import get
from protocol.games.nomads import data as D
from protocol.games.nomads import engine as NE
from protocol.referee import Referee

E = get("nomads")
W = D.WIDTH
DONKEY, GOAT, HORSE, CAMEL = range(4)
GREEN, RED, PURPLE, BLUE, GREY = range(5)
YELLOW_DIE = D.LAND_DIE.index(-1)          # the landscape die's yellow face
BLANK = D.ANIMAL_DIE.index(-1)             # an animal die's blank face
TRADER_ANIMAL, TRADER_BLANK = 0, D.TRADER_ANIMAL_FACES   # trader die faces
D0, D1, D2, D3, D4, D5, D6, D7 = range(8)                # desert card ids
C0, C1, C2, C3, C4, C5, C6, C7 = range(8, 16)            # city card ids


def animal_face(sp: int) -> int:
    return D.ANIMAL_DIE.index(sp)


def land_face(box: int) -> int:
    return D.LAND_DIE.index(box)


def started(n: int = 4, seed: int = 0, options: dict | None = None) -> Referee:
    """A referee whose game has finished setup and waits for the first move."""
    ref = Referee(E, n, options=options, seed=seed)

    def no_decisions(seat, legal, r):
        raise AssertionError("setup asked for a decision")

    while ref.state.phase != "move":
        ref.step(no_decisions)
    return ref


def set_layout(st, rows: list[int]) -> None:
    """Put these five cards in play (row 0 next to the pilgrim); the rest back in the piles."""
    st.rows = list(rows)
    st.d_unknown = [c for c in range(D.N_DESERT) if c not in rows]
    st.c_unknown = [c for c in range(D.N_DESERT, D.N_DESERT + D.N_CITY) if c not in rows]
    st.d_bottom, st.c_bottom = [], []
    st.row_blue = [-1] * 5
    hs = [h for h in st.row_yellow if h]
    st.yburned.extend(hs)
    st.row_yellow = [0] * 5


def pos(r: int, c: int) -> int:
    return r * W + c


def city_pos(st, row: int) -> int:
    return row * W + D.CITY_COL[st.rows[row]]


def put(st, seat: int, r: int, c: int) -> None:
    st.pos[seat] = pos(r, c)
    st.status[seat] = NE.NORMAL


def give_animals(st, seat: int, counts: list[int]) -> None:
    """Give a seat animals taken from the game box (keeps the 80-animal count)."""
    for sp in range(4):
        need = counts[sp]
        take = min(need, st.gamebox[sp])
        st.gamebox[sp] -= take
        need -= take
        st.market[sp] -= need
        assert st.market[sp] >= 0
        st.animals[seat * 4 + sp] = counts[sp]


def give_traders(st, seat: int, counts: list[int]) -> None:
    for sp in range(4):
        st.reserve[sp] -= counts[sp]
        assert st.reserve[sp] >= 0
        st.traders[seat * 4 + sp] = counts[sp]


def set_box(st, box: int, counts: list[int]) -> None:
    """Set a landscape box, moving the difference to/from the game box."""
    for sp in range(4):
        diff = counts[sp] - st.boxes[box * 4 + sp]
        st.gamebox[sp] -= diff
        st.boxes[box * 4 + sp] = counts[sp]


def set_market(st, sp: int, k: int) -> None:
    diff = k - st.market[sp]
    st.gamebox[sp] -= diff
    st.market[sp] = k


def turn_of(st, seat: int) -> None:
    st.active = seat
    st.phase = "move"


def act(st, seat: int, *action) -> None:
    step = E.expected(st)
    assert step == Decide(seat), (step, seat)
    E.apply(st, Act(seat, list(action)))


def roll(st, *values: int) -> None:
    step = E.expected(st)
    assert isinstance(step, Random), step
    assert len(step.draws) == len(values), (step, values)
    E.apply(st, Rolled(tuple(values)))


def show(st) -> None:
    step = E.expected(st)
    assert isinstance(step, DeckShow), step
    E.apply(st, DeckShown(step.seat, step.handles))


def tile_handle(ref: Referee, tile: int) -> int:
    """The handle of a yellow tile (from the referee's truth)."""
    for h, t in ref.truth.items():
        if t == tile:
            return h
    raise KeyError(tile)


def hand_tile(ref: Referee, seat: int, tile: int) -> int:
    """Move a yellow tile from wherever it lies into seat's hand; the seat learns it."""
    st = ref.state
    h = tile_handle(ref, tile)
    for lst in (st.yspaces, st.yburned, st.ygone):
        if h in lst:
            lst.remove(h)
    st.row_yellow = [0 if x == h else x for x in st.row_yellow]
    for s in range(st.n):
        if h in st.held[s]:
            st.held[s].remove(h)
    st.held[seat].append(h)
    ref.knowledge[seat][h] = tile
    return h


def check_invariants(st) -> None:
    assert NE.animal_total(st) == 4 * D.ANIMALS_PER_SPECIES
    assert min(st.money) >= 0
    assert min(st.market) >= 0
    if st.full_market == "gamebox":          # AN-X1: "stack" may hold more (the option battery checks
        assert max(st.market) <= st.cap      # that no animal then leaves play)
    assert min(st.boxes) >= 0 and min(st.animals) >= 0 and min(st.reserve) >= 0 and min(st.gamebox) >= 0
    in_play = [c for c in st.rows if c >= 0]
    assert len(in_play) + len(st.d_unknown) + len(st.d_bottom) + len(st.c_unknown) + len(st.c_bottom) == 16
    mid_walk = st.phase == "draw_card" or (st.phase == "keep" and st.keep_ctx == "lost")
    if not mid_walk:
        assert len(in_play) == 5
        # alternating kinds
        kinds = [D.IS_CITY_CARD[c] for c in st.rows]
        assert all(kinds[i] != kinds[i + 1] for i in range(4))
    assert sum(st.reserve) + sum(st.traders) == 4 * D.TRADERS_PER_SPECIES[st.n]


def rng_chooser(rng: random.Random):
    return lambda seat, legal, r: legal[rng.randrange(len(legal))]


