"""Shared helpers for the Sa-Rê tests: invariants, scripted positions, event shortcuts."""

from __future__ import annotations

import random
from typing import Any

from protocol import engine as E
from protocol.games.sare import ENGINE
from protocol.games.sare import engine as S
from protocol.games.sare.data import (CARD_KIND, DOUBLE, KIND_INDEX, MB, N_CARDS, NILE, PRODUCES, PRODUCTION,
                                      PYR, RED, SUPPLY, WH, WH_CAP)
from protocol.referee import Referee
from tests.games import conformance as C

K = KIND_INDEX


def token_totals(st: S.SareState) -> list[int]:
    tot = list(st.reserve)
    for t in range(3):
        tot[t] += st.display[t]
    for p in range(st.n):
        r, g, sl = st.res[p], st.gain[p], st.slots[p]
        for t in range(4):
            tot[t] += r[t] + g[t] + sl[t]
        tot[3] += st.lib_j[p] + st.ptok[p]
    return tot


_PORT = K["port"]


def check_invariants(st: S.SareState, structure: bool = True) -> None:
    """The invariants, checked after every step of the random simulations. `structure=False` skips the
    site/tile part, which only phase-1/phase-3/setup steps can change (play_random checks it then)."""
    n = st.n
    # 110 tokens conserved, none negative
    assert token_totals(st) == _SUPPLY, (token_totals(st), SUPPLY)
    assert min(st.reserve) >= 0 and min(st.display) >= 0
    if not structure:
        for p in range(n):
            b, r = st.black[p], st.rev[p]
            assert 0 <= b <= 2 and b <= r <= RED, (p, b, r)
            assert min(st.res[p]) >= 0 and min(st.gain[p]) >= 0 and min(st.slots[p]) >= 0
            assert 0 <= st.car[p] <= 3
        _check_cards(st)
        return
    tiles = [0] * 13
    pyrs = list(st.pyr_avail)
    placed = 0
    early = st.phase in ("order", "setup")
    p12 = st.phase == "p1" or st.phase == "p2"
    for p in range(n):
        res = st.res[p]
        slots = st.slots[p]
        assert min(res) >= 0 and min(st.gain[p]) >= 0 and min(slots) >= 0
        # gauges in range
        b, r, c = st.black[p], st.rev[p], st.car[p]
        assert 0 <= b <= 2 and b <= r <= RED, (p, b, r)
        assert 0 <= c <= 3 and 0 <= st.car_use[p] <= 3
        producers = [0, 0, 0, 0]
        spaces = [0] * 12                    # production count, +10 per other building
        mb = proj = wh = 0
        for pc in st.pieces[p]:
            k = pc[0]
            tiles[k] += 1
            if pc[2]:
                t = _PRODUCES.get(k)
                if t is not None:
                    producers[t] += 1
                elif k == MB:
                    mb += 1
                elif k == WH:
                    wh += 1
            else:
                proj += 1
            if k < 5:
                spaces[pc[1]] += 1
            else:
                spaces[pc[1]] += 10
                if k == PYR:
                    pyrs.append(pc[4])
                elif k == _PORT:
                    assert pc[1] in NILE
        assert _SPACE_OK.issuperset(spaces), spaces
        assert slots[0] <= producers[0] and slots[1] <= producers[1] and slots[2] <= producers[2] \
            and slots[3] <= producers[3]
        if st.pieces[p]:
            placed += 1
        if not early:
            # Master Builder capacity
            assert mb >= 1 and proj <= 2 * mb
            if p12:
                # warehouses hold typed tokens within capacity outside the construction phase
                assert res[3] == 0 and res[0] + res[1] + res[2] <= WH_CAP * wh
    assert sum(st.black) <= 8
    # tile counts: Reference Board + sites = players per type (+ the starting tiles taken from the box)
    for k in range(12):
        total = n + (placed if k in (WH, MB) else 0)
        assert st.board[k] >= 0 and st.board[k] + tiles[k] == total, (k, st.board[k], tiles[k])
    assert sorted(pyrs) == _PYRS[n]
    _check_cards(st)
    if st.phase == "over":
        assert st.winners and all(0 <= w < n for w in st.winners)


def _check_cards(st: S.SareState) -> None:
    n = st.n
    # every one of the 22 Season cards is somewhere, exactly once
    if st.aside:
        public = st.discard + st.removed + st.hosh
        hidden = len(st.shoe) + len(st.dark) + len(st.temple_hand) + 1
        for p in range(n):
            public = public + st.palace_cards[p] + st.kept_cards[p]
            hidden += len(st.kept[p])
        in_flight = 1 if st.card >= 0 and st.stage in ("palace", "tw") else 0
        if st.stage != "shuffle":
            assert len(public) == len(set(public))
            assert len(public) + hidden + in_flight == N_CARDS, (len(public), hidden, in_flight, st.stage)


_SUPPLY = list(SUPPLY)
_SPACE_OK = {0, 1, 2, 10}
_PRODUCES = dict(PRODUCES)
assert all(k < 5 for k in PRODUCTION) and len(PRODUCTION) == 5
_PYRS = {n: list(range(1, n + 1)) for n in range(2, 5)}
assert sum(SUPPLY) == 110


def play_random(n: int, seed: int, options: dict | None = None, check=check_invariants,
                sample: float = 0.0, rng: random.Random | None = None, events: list | None = None,
                choose=None) -> tuple[Referee, dict]:
    """A random game to the end; `check` after every step; the expensive checks on a sample of steps."""
    ref = Referee(ENGINE, n, options, seed=seed)
    rng = rng or random.Random(seed ^ 0x5A5E)
    choose = choose or (lambda seat, legal, r: legal[rng.randrange(len(legal))])
    phase = ""
    while True:
        if sample and rng.random() < sample:
            expensive_checks(ref, rng)
        ev = ref.step(choose)
        if check is check_invariants:
            # pieces and tiles only change in setup, phase 1 and phase 3: the site part is checked
            # after every step there and whenever the phase changes; the rest after every step
            now = ref.state.phase
            check_invariants(ref.state, structure=now != "p2" or phase != "p2")
            phase = now
        elif check:
            check(ref.state)
        if ev is None:
            return ref, ENGINE.result(ref.state)
        if events is not None:
            events.append(ev)


def expensive_checks(ref: Referee, rng: random.Random) -> None:
    """The shared round trips and refusals (tests/games/conformance.py), with Sa-Rê's bad actions."""
    C.check_round_trips(ENGINE, ref.state)
    C.check_refusals(ENGINE, ref, rng, tuple(BAD_ACTIONS))


BAD_ACTIONS = [["done"], ["stop"], ["continue"], ["gold"], ["temple"], ["oracle"], ["palace"], ["pass"],
               ["gardens"], ["library"], ["project", "palace", 0], ["project", "port", 0], ["build", 0, "-", 0, 0],
               ["charter", "W", "W"], ["discard", "G"], ["joker", "S"], ["swap", "W", "G"], ["barracks", 1],
               ["market", 0], ["demolish", 0], ["cancel", 0], ["move", 0, 11], ["place", 0, 12], "done", None, 7,
               ["project", "pyramid", 99], ["build", 0, "-", -1, 1]]


# ---------------------------------------------------------------- scripted positions

def fresh(n: int = 3, **options) -> S.SareState:
    """A game after the seat order roll (identity order) and the default setup placements."""
    st = ENGINE.new_game(options, n)
    ENGINE.apply(st, E.Rolled((tuple(range(n)),)))
    if not st.architect:
        for p in range(n):
            ENGINE.apply(st, E.Act(p, ["place", 5, 6]))
    return st


def touch(st: S.SareState) -> None:
    """Invalidate the legal-action cache after a test edits the state by hand."""
    st.ver += 1


def add_built(st: S.SareState, p: int, kind: str, space: int, turn: int = 0) -> list:
    k = K[kind]
    if k == PYR:
        no = st.pyr_avail.pop(0)
        pc = [PYR, space, 1, S.PYRAMIDS[no][0], no, turn, 0]
    else:
        st.board[k] -= 1
        pc = [k, space, 1, 0, 0, turn, 0]
    st.pieces[p].append(pc)
    touch(st)
    return pc


def act(st: S.SareState, seat: int, action: Any) -> None:
    ENGINE.apply(st, E.Act(seat, action))


def finish_p1(st: S.SareState) -> None:
    """Every seat says done in phase 1."""
    while st.stage == "p1":
        act(st, ENGINE.expected(st).seat, ["done"])


class Deck:
    """A tiny stand-in for the session in scripted tests: chosen card order, real handle numbers."""

    def __init__(self) -> None:
        self.next = 1000
        self.truth: dict[int, int] = {}

    def handles(self, k: int) -> tuple[int, ...]:
        hs = tuple(range(self.next, self.next + k))
        self.next += k
        return hs

    def shuffle(self, st: S.SareState, cards: list[int]) -> None:
        step = ENGINE.expected(st)
        assert isinstance(step, E.DeckShuffle)
        assert len(cards) == len(step.cards)
        hs = self.handles(len(cards))
        self.truth.update(zip(hs, cards))
        ENGINE.apply(st, E.DeckShuffled(step.deck, hs))

    def reveal(self, st: S.SareState) -> list[int]:
        step = ENGINE.expected(st)
        assert isinstance(step, E.DeckReveal), step
        cards = [self.truth[h] for h in step.handles]
        ENGINE.apply(st, E.DeckRevealed(step.handles, tuple(cards)))
        return cards


def card_of(kind: str, skip: int = 0) -> int:
    """The id of a Season card of this kind (the skip-th one)."""
    from protocol.games.sare.data import CARD_KIND_CODE
    ids = [i for i, k in enumerate(CARD_KIND) if k == CARD_KIND_CODE[kind]]
    return ids[skip]


def deck_order(*front: str) -> list[int]:
    """All 22 cards with the set-aside card first, then `front` (by kind) on top of the shoe, the rest after."""
    used: list[int] = []
    counts: dict[str, int] = {}
    for kind in front:
        used.append(card_of(kind, counts.get(kind, 0)))
        counts[kind] = counts.get(kind, 0) + 1
    rest = [c for c in range(N_CARDS) if c not in used]
    # the set-aside card: the last remaining card, so `front` starts the shoe
    return [rest[-1]] + used + rest[:-1]


def start_season(st: S.SareState, deck: Deck, order: list[int], double: int = 0) -> None:
    """From the double-card roll: draw double card `double` (an index into DOUBLE) and shuffle `order`."""
    step = ENGINE.expected(st)
    assert isinstance(step, E.Random), step
    ENGINE.apply(st, E.Rolled((st.dbl_pile.index(double),)))
    deck.shuffle(st, order)


def double_with(gold: bool) -> int:
    return next(i for i, d in enumerate(DOUBLE) if (1 in d) == gold)
