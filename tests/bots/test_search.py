"""The search bot: it cannot cheat (hidden values it does not know change nothing), it is
deterministic for a seed and an iteration budget, and it plays clearly better than random."""

from __future__ import annotations

import pytest

from clients.bot import chooser_for, make_bot
from clients.bots.search import SearchBot
from protocol import engine as E
from protocol import games
from protocol.referee import Referee

from .worlds import other_hidden, positions

CASES = [("sabbat", 3, {"powers": True}), ("sare", 3, None), ("nomads", 4, None)]


def _hidden_decisions(game, players, options, limit):
    """(referee, seat) at decisions with more than one move where the seat lacks some hidden value."""
    found = 0
    for ref in positions(game, players, options, seed=2, every=17):
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


def test_same_seed_and_iterations_give_the_same_move_and_other_seeds_may_not():
    ref, seat = next(_hidden_decisions("nomads", 4, None, limit=1))
    view, legal = ref.view(seat), ref.legal(seat)
    first = SearchBot("nomads", seed=3, iterations=40)
    moves = [first.choose(view, legal), SearchBot("nomads", seed=3, iterations=40).choose(view, legal)]
    assert moves[0] == moves[1] and moves[0] in legal
    assert first.last_iterations == 40


def test_simultaneous_choices_are_searched_without_seeing_the_others():
    """Sabbat's secret invocation: the bot answers a Simultaneous step for its own seat."""
    engine = games.get("sabbat")
    ref = Referee(engine, 2, seed=4)
    while True:
        step = engine.expected(ref.state)
        if isinstance(step, E.Simultaneous):
            break
        ref.step(lambda s, legal, r: legal[0])
    for seat in step.seats:
        bot = SearchBot("sabbat", seed=1, iterations=30)
        assert bot.choose(ref.view(seat), ref.legal(seat)) in ref.legal(seat)


def test_the_search_bot_beats_random_play():
    """Six 2-player Sabbat games, seats alternating, a tiny budget: it must win every one
    (a bot no better than random would do so once in 64 tries)."""
    engine = games.get("sabbat")
    wins = 0
    for g in range(6):
        seat = g % 2
        bots = [make_bot("random", "sabbat", 50 + g), make_bot("random", "sabbat", 60 + g)]
        bots[seat] = make_bot("search", "sabbat", g, iterations=10)
        result = Referee(engine, 2, seed=900 + g).play(chooser_for(bots))
        wins += result["winners"] == [seat]
    assert wins == 6
