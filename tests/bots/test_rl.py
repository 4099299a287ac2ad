"""The PettingZoo environment: pettingzoo's own api_test for each game, stable action ids,
simultaneous choices kept secret, and rewards from the result."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("pettingzoo")

from pettingzoo.test import api_test  # noqa: E402

from clients import games as presentations  # noqa: E402
from clients.rl import env  # noqa: E402
from protocol import engine as E  # noqa: E402
from protocol import games as registry  # noqa: E402
from tests.games.conformance import hook  # noqa: E402
from tests.games.pick import games_with, installed  # noqa: E402


def _rl_games() -> list[tuple[str, int, dict]]:
    """Every installed game with an RL action grammar: its hooks' RL_GAME, else its fewest
    players with the default options."""
    return [(game, *hook(game, "RL_GAME", (registry.get(game).min_players, {})))
            for game in installed() if presentations.get(game).rl_actions]


GAMES = _rl_games()


@pytest.mark.parametrize("game,players,options", GAMES)
def test_pettingzoo_api_test_passes(game, players, options):
    api_test(env(game, players, **options), num_cycles=200)


def _play(e, seed: int) -> list[int]:
    """One whole random game; returns the chosen ids and checks each against the mask."""
    e.reset(seed=seed)
    rng = np.random.default_rng(seed)
    chosen = []
    for agent in e.agent_iter(max_iter=100_000):
        obs, reward, term, trunc, info = e.last()
        if term or trunc:
            e.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        assert len(legal) > 0
        assert obs["observation"].shape == e.observation_space(agent)["observation"].shape
        a = int(rng.choice(legal))
        chosen.append(a)
        e.step(a)
    return chosen


@pytest.mark.parametrize("game,players,options", GAMES)
def test_whole_games_end_with_win_rewards(game, players, options):
    e = env(game, players, **options)
    totals = {a: 0.0 for a in e.possible_agents}
    e.reset(seed=3)
    rng = np.random.default_rng(3)
    for agent in e.agent_iter(max_iter=100_000):
        obs, reward, term, trunc, info = e.last()
        totals[agent] += reward
        e.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert not e.agents
    winners = [a for a, r in totals.items() if r > -1]
    assert winners and all(r == pytest.approx(2 / len(winners) - 1) for a, r in totals.items() if a in winners)
    assert all(r == -1 for a, r in totals.items() if a not in winners)


@pytest.mark.parametrize("game,players,options", GAMES)
def test_the_same_seed_replays_the_same_game(game, players, options):
    e = env(game, players, **options)
    assert _play(e, 5) == _play(e, 5)


@pytest.mark.parametrize("game", [g for g in games_with("simultaneous", players=2) if presentations.get(g).rl_actions])
def test_a_simultaneous_choice_stays_secret_until_all_have_chosen(game):
    """A choice made at once (e.g. Sabbat's secret invocation): the second seat's observation is
    the same whatever the first chose."""
    def second_view(first_pick_index: int):
        e = env(game, 2)
        e.reset(seed=4)
        rng = np.random.default_rng(0)
        for _ in range(10_000):
            if isinstance(e.ref.expected(), E.Simultaneous) and not e.pending \
                    and np.count_nonzero(e.last()[0]["action_mask"]) > 1:
                break
            obs, *_ = e.last()
            e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        first = e.agent_selection
        legal = np.flatnonzero(e.last()[0]["action_mask"])
        e.step(int(legal[min(first_pick_index, len(legal) - 1)]))
        assert e.agent_selection != first
        obs = e.observe(e.agent_selection)
        return obs["view"], obs["observation"], len(legal)
    (v0, o0, n), (v1, o1, _) = second_view(0), second_view(99)
    assert n > 1
    assert v0 == v1 and np.array_equal(o0, o1)


@pytest.mark.parametrize("game,players,options", GAMES)
def test_score_rewards(game, players, options):
    e = env(game, players, reward="score", **options)
    e.reset(seed=1)
    rng = np.random.default_rng(1)
    totals = {a: 0.0 for a in e.possible_agents}
    for agent in e.agent_iter(max_iter=100_000):
        obs, reward, term, trunc, info = e.last()
        totals[agent] += reward
        if term or trunc:
            scores = info["result"]["scores"]
        e.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    for s, a in enumerate(e.possible_agents):
        assert totals[a] == pytest.approx(scores[s] - (sum(scores) - scores[s]) / (players - 1))


@pytest.mark.parametrize("game,players,options", GAMES)
def test_an_observation_does_not_change_with_what_its_seat_cannot_know(game, players, options):
    """At points of a random game, every hidden value the observing seat does not know (the
    deck order, other seats' cards and committed choices) is shuffled among those handles, in
    the truth and in the other seats' knowledge: the seat's observation stays the same."""
    e = env(game, players, **options)
    e.reset(seed=7)
    rng = np.random.default_rng(7)
    checked = 0
    for i, agent in enumerate(e.agent_iter(max_iter=3_000)):
        obs, reward, term, trunc, info = e.last()
        if term or trunc:
            e.step(None)
            continue
        if i % 3 == 0:
            seat = e.seats[agent]
            ref = e.ref
            unknown = [h for h in ref.truth if h not in ref.knowledge[seat]]
            if len({repr(ref.truth[h]) for h in unknown}) > 1:
                saved = dict(ref.truth), [dict(k) for k in ref.knowledge]
                values = [ref.truth[h] for h in unknown]
                rng.shuffle(values)
                swapped = dict(zip(unknown, values))
                ref.truth.update(swapped)
                for k in ref.knowledge:
                    k.update((h, swapped[h]) for h in k if h in swapped)
                after = e.observe(agent)
                assert np.array_equal(after["observation"], obs["observation"])
                assert np.array_equal(after["action_mask"], obs["action_mask"])
                assert after["view"] == obs["view"]
                ref.truth, (ref.knowledge[:]) = saved[0], saved[1]
                checked += 1
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert checked >= 3
