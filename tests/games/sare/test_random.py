"""Random simulation: thousands of random games to the end with the invariants checked after every
step (110 tokens, gauges, tiles, cards, capacity), legal actions always applicable, and on a sample
of steps clone/encode round-trips and the rejection of illegal actions without any change.

Budget (tests/games/sare must stay under ~90 s on 2 cores): the 1,000 games per player count and
per scenario (9,000 games) use `turn_limit` 4 — random play never reaches a scenario goal, so
every random game ends by the turn limit anyway and a longer limit only repeats the same kinds of
states — and run on both cores. Full-length games (the default limit of 30 turns) are covered by
`test_random_full_length` and by the heuristic games, which reach the scenario goals."""

from __future__ import annotations

import random
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
import multiprocessing

import pytest
from hypothesis import HealthCheck, given, settings, strategies as hs

from clients.bot import chooser_for, make_bot
from protocol import engine as E
from protocol.games.sare import ENGINE
from protocol.referee import Referee

from .util import check_invariants, expensive_checks, play_random

SCENARIOS = ("scribe", "priest", "pharaoh")
GAMES = 1000
BULK_TURNS = 4


def _chunk(args):
    n, scenario, seeds, turn_limit, sample = args
    reasons: Counter = Counter()
    steps = 0
    for seed in seeds:
        opts = {"scenario": scenario, "architect": seed % 4 == 3, "turn_limit": turn_limit}
        ref, result = play_random(n, seed, opts, sample=sample)
        assert result is not None and result["winners"], result
        assert ENGINE.expected(ref.state) == E.Finished()
        reasons[result["reason"]] += 1
        steps += ref.steps
    return len(seeds), dict(reasons), steps


@pytest.fixture(scope="module")
def pool():
    with ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("fork")) as ex:
        yield ex


@pytest.mark.parametrize("scenario", SCENARIOS)
@pytest.mark.parametrize("n", [2, 3, 4])
def test_thousand_random_games(pool, n, scenario):
    base = 1_000_000 * n + 10_000 * SCENARIOS.index(scenario)
    seeds = list(range(base, base + GAMES))
    jobs = [(n, scenario, seeds[i::2], BULK_TURNS, 0.01) for i in range(2)]
    played = 0
    steps = 0
    for count, reasons, st in pool.map(_chunk, jobs):
        played += count
        steps += st
    assert played == GAMES
    assert steps > GAMES * 20


@pytest.mark.parametrize("n", [2, 3, 4])
def test_random_full_length(n):
    for g in range(25):
        ref, result = play_random(n, 77_000 + 100 * n + g,
                                  {"scenario": SCENARIOS[g % 3], "architect": g % 5 == 0, "turn_limit": 30},
                                  sample=0.03)
        assert result["turns"] == 30 and result["winners"]


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_heuristic_games_reach_the_goal(scenario):
    """Full games among heuristic bots: late-game states (Ports, Pyramids, growth cubes, many
    buildings) with every invariant checked after every step; every game ends on the goal."""
    for g in range(3):
        n = 2 + g
        ref = Referee(ENGINE, n, {"scenario": scenario, "architect": g == 1, "turn_limit": 30}, seed=g)
        chooser = chooser_for([make_bot("heuristic", "sare", 10 * g + i) for i in range(n)]
                              if g != 2 else [make_bot("heuristic", "sare", i) for i in range(n - 1)]
                              + [make_bot("random", "sare", 9)])
        rng = random.Random(g)
        while True:
            if rng.random() < 0.02:
                expensive_checks(ref, rng)
            ev = ref.step(chooser)
            check_invariants(ref.state)
            if ev is None:
                break
        result = ENGINE.result(ref.state)
        assert result["reason"] == "goal", result
        assert any(ref.state.black[p] for p in range(n))             # growth happened
        assert all(result["scores"][w] == max(result["scores"]) for w in result["winners"])


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=hs.integers(0, 2**31), n=hs.integers(2, 4), scenario=hs.sampled_from(SCENARIOS),
       architect=hs.booleans(), picks=hs.lists(hs.integers(0, 10**6), min_size=1, max_size=60))
def test_hypothesis_action_sequences(seed, n, scenario, architect, picks):
    """Hypothesis drives the choices (an index sequence, cycled) of short games to the end."""
    i = [0]

    def choose(seat, legal, ref):
        a = legal[picks[i[0] % len(picks)] % len(legal)]
        i[0] += 1
        return a
    ref, result = play_random(n, seed, {"scenario": scenario, "architect": architect, "turn_limit": 3},
                              sample=0.05, choose=choose)
    assert result["winners"] and set(result["winners"]) <= set(range(n))
