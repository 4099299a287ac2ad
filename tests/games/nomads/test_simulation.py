"""Random simulation (>= 1,000 games per player count), round-trips, hypothesis, view leaks."""

from __future__ import annotations

import os
import random
from concurrent.futures import ProcessPoolExecutor

import pytest
from hypothesis import HealthCheck, given, settings, strategies as hs

from protocol import wire
from protocol.engine import Act, IllegalAction
from protocol.games.nomads import data as D
from protocol.games.nomads import engine as NE
from protocol.referee import Referee
from tests.games import conformance as C

from .util import E, check_invariants

GAMES_PER_COUNT = 1000
SAMPLE = 250         # on about one step in SAMPLE: clone / encode round-trip, legal actions on clones, an illegal one

BAD_ACTIONS = (["move", 9, 9], ["sell", 0, 99], ["fly"], ["hire", 7], ["take", 5, 5], ["keep", 0, 9],
                ["box", 9], ["tile", 999_999, 3], ["place", 0, -1], ["goto", 5, 0])


def _fast_invariants(st) -> None:
    """Checked after every step: 80 animals, no negative money, five cards in play."""
    total = sum(st.boxes) + sum(st.market) + sum(st.gamebox) + sum(st.animals) + sum(st.pending)
    if total != 80:
        assert NE.animal_total(st) == 80, st.phase
    assert min(st.money) >= 0, st.money
    if min(st.rows) < 0:   # only while the desert moves: the new card is being drawn
        assert st.phase in ("draw_card", "keep") and st.rows[0] == -1, st.phase


def _deep_checks(ref: Referee, seat: int, legal: list, rng: random.Random) -> None:
    """The shared round trips, legal actions on clones and refusals (tests/games/conformance.py)."""
    check_invariants(ref.state)
    C.check_round_trips(E, ref.state)
    C.check_legal_actions(E, ref, rng, check_invariants, sample=6)
    C.check_refusals(E, ref, rng, BAD_ACTIONS)


def play_one(n: int, seed: int, options: dict | None = None, sample: int = SAMPLE) -> dict:
    rng = random.Random(seed * 7919 + n)
    ref = Referee(E, n, options=options, seed=seed)

    def chooser(seat, legal, r):
        if rng.randrange(sample) == 0:
            _deep_checks(r, seat, legal, rng)
        return legal[rng.randrange(len(legal))]

    step = ref.step
    while True:
        ev = step(chooser)
        if ev is None:
            break
        _fast_invariants(ref.state)
    st = ref.state
    check_invariants(st)
    if st.full_market == "stack":             # AN-X1: no animal left play after the setup
        assert st.gamebox == [D.ANIMALS_PER_SPECIES - 1 - st.cap] * D.NSP, st.gamebox
    res = E.result(st)
    assert res is not None and res["winners"], res
    assert all(0 <= w < n for w in res["winners"])
    best = max(res["scores"])
    assert all(res["scores"][w] == best for w in res["winners"])
    return {"turns": res["turns"], "capped": res["turns"] > st.max_turns,
            "mecca": D.MECCA in st.row_blue, "decisions": ref.decisions}


def _chunk(args) -> list[dict]:
    n, seeds = args
    return [play_one(n, s) for s in seeds]


@pytest.mark.parametrize("n", [3, 4, 5, 6])
def test_random_games_end_with_a_winner(n):
    seeds = list(range(n * 100_000, n * 100_000 + GAMES_PER_COUNT))
    workers = min(2, os.cpu_count() or 1)
    if workers > 1:
        half = len(seeds) // 2
        with ProcessPoolExecutor(workers) as pool:
            out = [r for part in pool.map(_chunk, [(n, seeds[:half]), (n, seeds[half:])]) for r in part]
    else:
        out = _chunk((n, seeds))
    assert len(out) == GAMES_PER_COUNT
    # almost every game ends by Mecca, not by the turn bound
    assert sum(r["mecca"] for r in out) >= 0.97 * GAMES_PER_COUNT
    assert all(r["mecca"] or r["capped"] for r in out)


@pytest.mark.parametrize("opts", [{"yellow_tiles": 0, "short_blue": True, "max_turns": 1000},
                                  {"yellow_tiles": 2, "short_blue": False, "max_turns": 1000}])
def test_short_variants_play_to_the_end(opts):
    for seed in range(40):
        play_one(3 + seed % 4, seed, opts, sample=60)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=hs.integers(3, 6), seed=hs.integers(0, 2**32 - 1),
       picks=hs.lists(hs.integers(0, 10_000), min_size=1, max_size=400))
def test_hypothesis_action_sequences(n, seed, picks):
    """Arbitrary choice sequences: every legal action applies, invariants hold, and a
    mutated action is either legal or rejected without a change."""
    ref = Referee(E, n, seed=seed)
    it = iter(picks)
    done = False

    def chooser(seat, legal, r):
        nonlocal done
        try:
            k = next(it)
        except StopIteration:
            done = True
            k = 0
        a = legal[k % len(legal)]
        if k % 7 == 3 and a and type(a) is list and len(a) > 1:
            mutated = [a[0]] + [x + 1 + k % 3 for x in a[1:]]
            before = wire.encode(E.encode(r.state))
            if mutated not in E.legal_actions(r.state, seat, r.knowledge[seat]):
                with pytest.raises(IllegalAction):
                    E.apply(r.state, Act(seat, mutated))
                assert wire.encode(E.encode(r.state)) == before
        return a

    while not done:
        if ref.step(chooser) is None:
            break
        check_invariants(ref.state)


def test_views_leak_no_tile_a_seat_does_not_know():
    """Play with tiles flowing; a seat's view never names a held tile of another seat."""
    leaks = 0
    seen_private = 0
    for seed in range(12):
        ref = Referee(E, 4, seed=seed)
        rng = random.Random(seed)
        steps = 0
        while ref.step(lambda seat, legal, r: legal[rng.randrange(len(legal))]) is not None:
            steps += 1
            if steps % 5:
                continue
            st = ref.state
            for seat in range(4):
                v = E.view(st, seat, ref.knowledge[seat])
                text = repr(v)
                for other in range(4):
                    for h in st.held[other]:
                        name = D.YELLOW_KEYS[ref.truth[h]]
                        if other == seat:
                            if h not in ref.knowledge[seat]:
                                continue        # the DeckShow step has not been answered yet
                            seen_private += 1
                            assert f"'tile': '{name}'" in text
                        elif h not in st.used_h and f"'handle': {h}, 'tile'" in text:
                            leaks += 1
                spectator = repr(E.view(st, None, None))
                assert "my_tiles" not in spectator
            # the view is JSON-able canonical data
            wire.encode(E.view(st, 0, ref.knowledge[0]))
    assert leaks == 0
    assert seen_private > 0


def test_view_depends_only_on_public_state_and_knowledge():
    ref = Referee(E, 3, seed=2)
    rng = random.Random(2)
    for _ in range(400):
        if ref.step(lambda seat, legal, r: legal[rng.randrange(len(legal))]) is None:
            break
    st = ref.state
    for seat in range(3):
        a = E.view(st, seat, ref.knowledge[seat])
        b = E.view(E.decode(E.encode(st)), seat, dict(ref.knowledge[seat]))
        assert a == b
        # knowledge of others' handles changes nothing but my own tiles list
        c = E.view(st, seat, {})
        assert {k: v for k, v in a.items() if k != "players"} == {k: v for k, v in c.items() if k != "players"}
