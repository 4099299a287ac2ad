"""Random simulation: thousands of random games to the end with every invariant checked at
every step, and (on a sample of steps) clone/serialize round-trips, rejection of actions
outside the legal list, and views that leak no other seat's secret."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings, strategies as hs

from protocol import engine as E
from protocol import wire
from protocol.games.sabbat import ENGINE
from protocol.games.sabbat import data as D
from protocol.referee import Referee

GAMES_PER_COUNT = 1000


def check_invariants(st) -> None:
    caps = st.caps
    out = [0, 0, 0, 0]
    for l, L in enumerate(st.locs):
        if L:
            k = len(L)
            assert k <= caps[l], f"location {l} over capacity"
            for e in L:
                out[e & 3] += 1
            if k > D.MAX_OWN:
                owners = [e & 3 for e in L]
                assert all(owners.count(o) <= D.MAX_OWN for o in owners), "two-ghost limit"
    for s in range(st.n):
        assert st.grave[s] + st.bridge[s] + out[s] == D.GHOSTS, "ghost count"
        assert st.grave[s] >= 0 and 0 <= st.locked[s] <= st.bridge[s] and 0 <= st.terror[s] <= D.TERROR_MAX
        assert min(st.h1[s] + st.h2[s] + st.appr[s]) >= 0
        assert 0 <= st.curse[s] <= 1 and st.chim[s] >= 0
    placed = [p for p in st.mag if p >= 0]
    assert len(placed) == len(set(placed)), "one magician per square"


BAD_ACTIONS = ["fly", None, 7, ["move", 99, 0, 0, "place"], ["magician", 16], ["tile", 9, 9],
               ["power", 99], ["bonus", 9], ["unfed", 3, 9], ["keep", 7], ["pay", 3, 0], "done", "pass"]


def check_rejections(st, step, rng) -> None:
    before = ENGINE.encode(st)
    if isinstance(step, E.Decide):
        legal = ENGINE.legal_actions(st, step.seat)
        cands = [a for a in BAD_ACTIONS if a not in legal]
        occupied = [["magician", p] for p in st.mag if p >= 0]
        cands += [a for a in occupied if a not in legal]
        for a in legal:
            if isinstance(a, list) and a[0] == "move":
                cands.append(a[:4] + ["teleport"])
                cands.append([a[0], a[1], a[2] + 3, a[3], a[4]])
                break
        for a in rng.sample(cands, min(4, len(cands))):
            if a in legal:
                continue
            with pytest.raises(E.IllegalAction):
                ENGINE.apply(st, E.Act(step.seat, a))
            assert ENGINE.encode(st) == before
        other = (step.seat + 1) % st.n
        if legal:
            with pytest.raises(E.IllegalAction):
                ENGINE.apply(st, E.Act(other, legal[0]))
    elif isinstance(step, E.Simultaneous):
        with pytest.raises(E.IllegalAction):
            ENGINE.apply(st, E.Choices(tuple(D.GHOSTS + 1 for _ in step.seats)))
    with pytest.raises(E.IllegalAction):
        ENGINE.apply(st, E.DeckShown(0, ()))
    assert ENGINE.encode(st) == before


def check_copies(st, wire_too: bool = True) -> None:
    enc = ENGINE.encode(st)
    c = ENGINE.clone(st)
    assert c == st and ENGINE.encode(c) == enc
    back = ENGINE.decode(enc)
    assert back == st
    if wire_too:
        raw = wire.encode(enc)
        back = ENGINE.decode(wire.decode(raw))
        assert back == st and wire.encode(ENGINE.encode(back)) == raw


def check_views(ref, wire_too: bool) -> None:
    st = ref.state
    for s in [None, *range(st.n)]:
        v = ref.view(s)
        text = json.dumps(v)
        if wire_too:
            wire.encode(v)                               # canonical data too
        if not st.powers:
            continue
        for o in range(st.n):
            if o == s or st.pcard[o] is not None:
                continue
            card = ref.truth.get(st.phandle[o])
            mine = ref.knowledge[s].get(st.phandle[s]) if s is not None else None
            if card is not None and card != mine and card not in st.pcard:
                assert f'"{D.POWER_IDS[card]}"' not in text, f"seat {s} sees seat {o}'s POWER card"


def play_checked(n: int, seed: int, powers: bool, sample_every: int = 23,
                 options: dict | None = None) -> tuple[Referee, int]:
    rng = random.Random(seed)
    peoples = rng.sample(range(4), n)
    opts = {"powers": powers, "peoples": peoples, "leftovers": "keep"}
    opts.update(options or {})
    ref = Referee(ENGINE, n, opts, seed=seed)
    chooser = lambda seat, legal, r: legal[rng.randrange(len(legal))]
    steps = 0
    while True:
        step = ENGINE.expected(ref.state)
        if steps % sample_every == 0:
            check_rejections(ref.state, step, rng)
            check_copies(ref.state, wire_too=steps % (3 * sample_every) == 0)
            if powers or steps % (7 * sample_every) == 0:
                check_views(ref, wire_too=steps % (5 * sample_every) == 0)
        if ref.step(chooser) is None:
            break
        check_invariants(ref.state)
        steps += 1
        assert steps < 5000, "no end"
    res = ENGINE.result(ref.state)
    assert res is not None and res["winners"] and len(res["scores"]) == n
    assert max(res["scores"]) == res["scores"][res["winners"][0]]
    assert ref.state.rnd == D.ROUNDS and len(ref.state.time_pile) == 1
    check_copies(ref.state)
    return ref, steps


@pytest.mark.slow
@pytest.mark.parametrize("n", [2, 3, 4])
def test_random_games(n):
    total = 0
    for g in range(GAMES_PER_COUNT):
        _, steps = play_checked(n, 10_000 * n + g, powers=(g % 4 == 3), sample_every=61)
        total += steps
    assert total > GAMES_PER_COUNT * 50


@pytest.mark.slow
@pytest.mark.parametrize("n", [2, 3, 4])
def test_random_games_with_powers(n):
    for g in range(100):
        play_checked(n, 77_000 * n + g, powers=True, sample_every=13)


@settings(max_examples=40, deadline=None)
@given(picks=hs.lists(hs.integers(0, 10_000), min_size=1, max_size=400), n=hs.integers(2, 4),
       junk=hs.lists(hs.one_of(hs.none(), hs.integers(-3, 20), hs.text(max_size=6),
                               hs.lists(hs.one_of(hs.integers(-2, 16), hs.text(max_size=8)), max_size=5)),
                     max_size=20))
def test_arbitrary_action_sequences(picks, n, junk):
    """Any sequence of choices, with junk actions mixed in: junk is rejected without a change,
    legal picks always apply, invariants hold."""
    ref = Referee(ENGINE, n, {"powers": True, "peoples": list(range(n)), "leftovers": "keep"}, seed=len(picks))
    it = iter(picks)
    junk_it = iter(junk)
    for _ in range(len(picks)):
        st = ref.state
        step = ENGINE.expected(st)
        if isinstance(step, E.Finished):
            break
        if isinstance(step, E.Decide):
            j = next(junk_it, None)
            legal = ENGINE.legal_actions(st, step.seat, ref.knowledge[step.seat])
            if j is not None and j not in legal and not (isinstance(j, list) and j[:1] == ["power"]):
                before = ENGINE.encode(st)
                with pytest.raises(E.IllegalAction):
                    ENGINE.apply(st, E.Act(step.seat, j))
                assert ENGINE.encode(st) == before
        ref.step(lambda seat, legal, r: legal[next(it, 0) % len(legal)])
        check_invariants(ref.state)
