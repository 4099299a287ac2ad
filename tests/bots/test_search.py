"""The search bot: it cannot cheat (hidden values it does not know change nothing), it is
deterministic for a seed and an iteration budget, and it plays clearly better than random."""

from __future__ import annotations

import pytest

from clients import games as presentations
from clients.bots.search import SearchBot
from protocol import engine as E
from protocol import games
from protocol.referee import Referee
from tests.games.pick import games_with

from .test_sampling import CASES as SAMPLED
from .worlds import other_hidden, positions

CASES = list({game: (game, players, options) for game, players, options in reversed(SAMPLED)}.values())
"""Every game with a sampler (what the search bot deals its worlds with), at its first SAMPLER_CASES."""


def _hidden_decisions(game, players, options, limit):
    """(referee, seat) at decisions with more than one move where the seat lacks some hidden value,
    from one random game, then others where a short game has too few."""
    found = 0
    for ref in (r for seed in range(2, 12) for r in positions(game, players, options, seed=seed, every=17)):
        step = ref.engine.expected(ref.state)
        seat = getattr(step, "seat", None)
        if seat is None and getattr(step, "seats", None):
            seat = step.seats[-1]
        if seat is None or len(ref.legal(seat)) < 2:
            continue
        if any(h not in ref.knowledge[seat] for h in ref.truth):
            yield ref, seat
            found += 1
            if found >= limit:
                return


@pytest.mark.parametrize("game,players,options", CASES)
def test_the_search_bot_picks_the_same_move_whatever_it_cannot_see(game, players, options):
    """Another seat's cards, the deck order, a committed choice: shuffled, the move stays."""
    tried = 0
    for ref, seat in _hidden_decisions(game, players, options, limit=3):
        other = other_hidden(ref, seat, seed=tried)
        assert any(other.truth[h] != ref.truth[h] for h in ref.truth), "the worlds must differ"
        picks = [SearchBot(game, seed=7, iterations=25).choose(r.view(seat), r.legal(seat)) for r in (ref, other)]
        assert picks[0] == picks[1]
        tried += 1
    assert tried == 3


@pytest.mark.parametrize("game,players,options", CASES)
def test_same_seed_and_iterations_give_the_same_move_and_other_seeds_may_not(game, players, options):
    ref, seat = next(_hidden_decisions(game, players, options, limit=1))
    view, legal = ref.view(seat), ref.legal(seat)
    first = SearchBot(game, seed=3, iterations=40)
    moves = [first.choose(view, legal), SearchBot(game, seed=3, iterations=40).choose(view, legal)]
    assert moves[0] == moves[1] and moves[0] in legal
    assert first.last_iterations == 40


@pytest.mark.parametrize("game", [g for g in games_with("simultaneous", players=2) if presentations.get(g).sampler])
def test_simultaneous_choices_are_searched_without_seeing_the_others(game):
    """A choice made at once (e.g. Sabbat's secret invocation): the bot answers a Simultaneous
    step for its own seat."""
    engine = games.get(game)
    ref = Referee(engine, 2, seed=4)
    while True:
        step = engine.expected(ref.state)
        if isinstance(step, E.Simultaneous):
            break
        ref.step(lambda s, legal, r: legal[0])
    for seat in step.seats:
        bot = SearchBot(game, seed=1, iterations=30)
        assert bot.choose(ref.view(seat), ref.legal(seat)) in ref.legal(seat)
