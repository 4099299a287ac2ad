"""The engine's speed-ups (issue #17) against the plain rule they stand for, after every step of
random games: the step and legal actions cached per state version equal a fresh computation,
the demolitions offered (facts gathered once per call) are exactly the pieces `_can_demolish`
allows one by one (Master Builders, Warehouses, the Architect placement rule), and the build
options are those the plain cost helpers give (project_cost, port_reduces)."""

from __future__ import annotations

import random

import pytest

from protocol import engine as E
from protocol.games.sare import ENGINE
from protocol.games.sare import engine as S
from protocol.games.sare.data import MB, N_SPACES, NILE, PYR, RES
from protocol.games.sare.rules import built_kinds
from protocol.referee import Referee

from .util import K, add_built, fresh, touch

OPTION_SETS = [
    {"scenario": "priest", "turn_limit": 12},
    {"scenario": "scribe", "architect": True, "turn_limit": 12},
    {"scenario": "pharaoh", "architect": True, "pyramid_pick": "free", "shoe": "up", "turn_limit": 12},
]


def _demolitions_by_rule(st, p) -> set[int]:
    pcs = st.pieces[p]
    m = sum(1 for pc in pcs if pc[2] and pc[0] == MB)          # Master Builders built
    n_proj = sum(1 for pc in pcs if not pc[2])
    return {i for i, pc in enumerate(pcs) if pc[2] and ENGINE._can_demolish(st, p, pc, m, n_proj)}


def _builds_by_rule(st, p) -> list:
    """The phase-3 build options from the plain helpers (project_cost, port_reduces), one piece at a time."""
    slots, res, spare = st.slots[p], st.res[p], st.spare[p]
    avail = [slots[t] + res[t] - spare[t] for t in range(3)]
    jok, cu = slots[3] + res[3], st.car_use[p]
    out = []
    for i, pc in enumerate(st.pieces[p]):
        if pc[2] or (pc[0] == PYR and pc[6] == 2):
            continue
        base = S.project_cost(st, p, pc, -1)
        pts = [t for t in range(3) if base[t] > 0] if S.port_reduces(st, p, pc[1]) else []
        for pt in pts or [-1]:
            cost = S.project_cost(st, p, pc, pt)
            short = sum(max(0, cost[t] - avail[t]) for t in range(3))
            out.extend(["build", i, RES[pt] if pt >= 0 else "-", j, short - j]
                       for j in range(min(jok, short), -1, -1) if short - j <= cu)
    return out


def _check(st, seat, legal) -> int:
    """Assert the cached values against a fresh computation; returns how many demolitions were offered."""
    assert ENGINE.expected(st) == ENGINE._expected(st)
    assert legal == ENGINE._legal(st, seat)
    assert [S._built_mask(st, p) for p in range(st.n)] == [built_kinds(st, p) for p in range(st.n)]
    offered = {a[1] for a in legal if a[0] == "demolish"}
    if st.stage == "p1" or (st.stage == "p3" and st.architect):     # Architect demolitions in phase 3
        assert offered == _demolitions_by_rule(st, seat), (st.stage, st.pieces[seat])
    else:
        assert not offered
    if st.stage == "p3" and st.status[seat] != 2 and not st.charter[seat]:
        assert [a for a in legal if a[0] == "build"] == _builds_by_rule(st, seat)
    return len(offered)


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("options", OPTION_SETS, ids=["plain", "architect", "architect-free-up"])
def test_cached_and_gathered_facts_equal_the_rules(players, options):
    offered = 0
    for seed in range(3):
        rng = random.Random(seed)
        ref = Referee(ENGINE, players, options, seed=seed)

        def choose(seat, legal, r):
            nonlocal offered
            offered += _check(r.state, seat, legal)
            return legal[rng.randrange(len(legal))]

        for _ in range(20_000):
            assert ENGINE.expected(ref.state) == ENGINE._expected(ref.state)
            if ref.step(choose) is None:
                break
        assert isinstance(ENGINE.expected(ref.state), E.Finished)
    assert offered > 0                       # demolitions were offered, so the comparison was not empty


def test_the_step_cache_follows_a_hand_edit_once_the_version_moves():
    """The caches are keyed by `ver`: a test that edits a state by hand bumps it (util.touch)."""
    ref = Referee(ENGINE, 3, {"turn_limit": 5}, seed=1)
    while ref.state.stage != "p1":
        ref.step(lambda seat, legal, r: legal[0])
    st = ref.state
    before = ENGINE.expected(st)
    st.cur = (st.cur + 1) % st.n
    st.ver += 1
    after = ENGINE.expected(st)
    assert after != before and after == ENGINE._expected(st)


def test_the_built_kinds_cache_follows_builds_demolitions_and_hand_edits():
    """_built_mask is carried over the steps that build nothing (apply): after every step of random
    games it equals built_kinds, for every seat, also when a build or demolition just happened, and
    a hand edit is seen once the version moves."""
    changed = 0
    for options in OPTION_SETS:
        for seed in range(4):
            rng = random.Random(seed)
            ref = Referee(ENGINE, 2 + seed % 3, options, seed=seed)
            before = None
            while ref.step(lambda seat, legal, r: legal[rng.randrange(len(legal))]) is not None:
                st = ref.state
                now = [built_kinds(st, p) for p in range(st.n)]
                assert [S._built_mask(st, p) for p in range(st.n)] == now
                changed += before is not None and now != before
                before = now
    assert changed > 20                       # builds and demolitions happened between the checks
    st = fresh(2)
    assert S._built_mask(st, 0) == built_kinds(st, 0)
    add_built(st, 0, "temple", 3)                                      # a hand edit, then util.touch
    assert S._built_mask(st, 0) >> K["temple"] & 1


def test_a_stranded_architect_project_blocks_every_demolition():
    """Architect: a project already out of reach of every built piece (only a hand-made state) leaves
    no demolition legal, since none would keep the placement rule (projects_stay_placed is False)."""
    st = fresh(2, architect=True)                                      # WH and MB of each seat on space 0
    add_built(st, 0, "master_builder", 0)
    add_built(st, 0, "temple", 1)
    st.pieces[0].append([K["palace"], 11, 0, 0, 0, 0, 0])             # a project far from every building
    touch(st)
    assert ENGINE.expected(st) == E.Decide(0)
    assert not [a for a in ENGINE.legal_actions(st, 0) if a[0] == "demolish"]
    assert _demolitions_by_rule(st, 0) == set()


def test_port_reduced_builds_equal_the_rule():
    """The Port's -1 (7.3) is rare in short random games: hand a built Port and a project on the Nile
    to the seat building in phase 3 of random games, with random tokens, and compare the options."""
    nile = sorted(NILE)
    with_port = 0
    for seed in range(40):
        rng = random.Random(seed)
        ref = Referee(ENGINE, 2 + seed % 3, {"turn_limit": 3}, seed=seed)
        while ref.state.stage != "p3" and ref.step(lambda seat, legal, r: legal[rng.randrange(len(legal))]):
            pass
        st = ref.state
        if st.stage != "p3":
            continue
        p = ENGINE.expected(st).seat
        st.status[p] = 0
        st.charter[p] = 0
        st.pieces[p].append([K["port"], nile[0], 1, 0, 0, 0, 0])
        st.pieces[p].append([K[rng.choice(["palace", "temple", "carpenter"])], nile[1], 0, 0, 0, 0, 0])
        st.res[p] = [rng.randrange(4) for _ in range(4)]
        touch(st)
        builds = [a for a in ENGINE.legal_actions(st, p) if a[0] == "build"]
        assert builds == _builds_by_rule(st, p)
        with_port += any(a[2] != "-" for a in builds)
    assert with_port > 5


def test_the_space_tables_list_the_actions_at_every_mask():
    """_at_spaces (phase 1's projects and moves by half masks) gives, for every mask of spaces, the
    actions at exactly its spaces in space order, as the plain loop over SPACES_IN does."""
    actions = [["move", 0, s] for s in range(N_SPACES)]
    lo, hi = S._at_spaces(actions)
    for mask in range(1 << N_SPACES):
        assert list(lo[mask & S._LOW] + hi[mask >> S._HALF]) == [actions[s] for s in S.SPACES_IN[mask]]
    assert S._PROJECT_AT[K["temple"]][0][1] == (["project", "temple", 0],)
