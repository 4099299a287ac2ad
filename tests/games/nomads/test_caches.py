"""The engine's derived facts (layout key, field kinds, reach masks and the cached legal
lists) equal a fresh computation from the encoded state after every step of random games,
and survive clone, decode and a direct assignment of rows."""

import random

from protocol.games.nomads import data as D
from protocol.games.nomads import engine as NE
from protocol.referee import Referee

E = NE.ENGINE
W = D.WIDTH


def _bfs(rows: list[int], p: int) -> tuple[list[int], list[int]]:
    """Fields one and exactly two orthogonal steps from p, avoiding mountains (N.6.1)."""
    def open_(q: int) -> bool:
        return 0 <= q < 5 * W and D.CARDS[rows[q // W]][q % W] != D.MOUNTAIN

    def nb(q: int) -> list[int]:
        r, c = divmod(q, W)
        cand = [q - W if r > 0 else -1, q - 1 if c > 0 else -1, q + 1 if c < W - 1 else -1, q + W if r < 4 else -1]
        return [x for x in cand if x >= 0 and open_(x)]

    d1 = sorted(nb(p))
    d2 = sorted({x for q in d1 for x in nb(q)} - set(d1) - {p})
    return d1, d2


def _check(st) -> None:
    assert st.layout == NE._layout_key(st.rows)
    assert st.kinds == tuple(D.CARDS[st.rows[q // W]][q % W] for q in range(5 * W))
    assert st.openmask == sum(1 << q for q in range(5 * W) if st.kinds[q] != D.MOUNTAIN)
    if min(st.rows) < 0:
        return
    for seat in range(st.n):
        p = st.pos[seat]
        if p < 0:
            continue
        d1, d2 = _bfs(st.rows, p)
        m1, m2, moves1, moves2, near, far = NE._reach(st, p)
        assert [q for q in range(5 * W) if m1 >> q & 1] == d1
        assert [q for q in range(5 * W) if m2 >> q & 1] == d2
        assert moves1 == [["move", q // W, q % W] for q in d1]
        assert moves2 == [["move", q // W, q % W] for q in d2]
        assert near == [["stay"]] + moves1 + [["pilgrim"]]
        assert far == [["stay"]] + moves1 + moves2 + [["pilgrim"]]


def test_derived_facts_match_a_fresh_computation_during_random_play():
    for seed in range(12):
        rng = random.Random(seed)
        n = 3 + seed % 4
        ref = Referee(E, n, {"lost_turns": 1 + seed % 2}, seed=seed)
        steps = 0
        while ref.step(lambda seat, legal, r: legal[rng.randrange(len(legal))]) is not None and steps < 20_000:
            steps += 1
            _check(ref.state)
            if steps % 50 == 0:
                for copy in (E.clone(ref.state), E.decode(E.encode(ref.state))):
                    _check(copy)
                    assert (copy.layout, copy.kinds, copy.openmask) == (ref.state.layout, ref.state.kinds, ref.state.openmask)
        assert ref.state.phase == "over"


def test_assigning_rows_refreshes_the_derived_layout():
    st = E.new_game({}, 4)
    before = st.layout
    st.rows = [0, 8, 1, 9, 2]
    assert st.layout != before
    _check(st)


def _candidates() -> list[list]:
    """Every shape of action the fast acceptance knows, legal or not, and some off the board."""
    out = [["stay"], ["depart"], ["pilgrim"], ["done"], ["pass"], ["walk"], ["catch"], ["lure"]]
    out += [["hire", sp] for sp in range(-1, D.NSP + 1)]
    out += [["sell", sp, k] for sp in range(-1, D.NSP + 1) for k in range(0, 6)]
    out += [["move", r, c] for r in range(-1, 6) for c in range(-1, W + 1)]
    return out


def test_fast_acceptance_accepts_only_legal_actions():
    """apply's cheap check (_fast_ok) must never accept what legal_actions does not list."""
    cands = _candidates()
    for seed in range(8):
        rng = random.Random(seed)
        ref = Referee(E, 3 + seed % 4, None, seed=seed)
        steps = 0
        while steps < 20_000:
            st = ref.state
            if st.phase in NE._DECIDE_PHASES:
                seat = E.expected(st).seat
                legal = E.legal_actions(st, seat)
                for a in cands:
                    if NE._fast_ok(st, seat, st.phase, a[0], a):
                        assert a in legal, (st.phase, a, legal)
            if ref.step(lambda seat, legal, r: legal[rng.randrange(len(legal))]) is None:
                break
            steps += 1
