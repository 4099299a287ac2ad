"""The determinization samplers: worlds built from one seat's view agree with everything that
seat knows, deal exactly the hidden values still unseen, and never depend on the truth."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from clients.bots.sampling import sampler_for
from protocol.games.sabbat.data import PEOPLE_POWERS as POWERS
from .worlds import other_hidden, positions

CASES = [("sabbat", 3, {"powers": True}), ("sabbat", 2, None), ("sare", 3, None), ("sare", 4, None),
         ("nomads", 4, None)]


@pytest.mark.parametrize("game,players,options", CASES)
def test_a_sampled_world_agrees_with_the_seat_and_deals_the_unseen_values(game, players, options):
    checked = 0
    for ref in positions(game, players, options, seed=5):
        seat = checked % players
        sampler = sampler_for(game, ref.view(seat))
        world = sampler.sample(random.Random(checked))
        assert sampler.seat == seat
        assert ref.engine.encode(world.state) == ref.engine.encode(ref.state)
        live = set(world.truth)
        for h, v in ref.knowledge[seat].items():          # what the seat knows is kept
            if h in live:
                assert world.truth[h] == v
        if game == "sabbat":                               # each POWER card is one of its people's
            for s, h in enumerate(world.state.phandle):
                if h in ref.truth:
                    assert world.truth[h] in POWERS[world.state.people[s]]
        else:                                              # a deck: the true values, reordered
            assert Counter(world.truth.values()) == Counter(ref.truth[h] for h in live), (game, checked)
        # the seat's own moves in the sampled world are its true moves
        assert ref.engine.legal_actions(world.state, seat, world.knowledge[seat]) == ref.legal(seat)
        checked += 1
    assert checked > 5


@pytest.mark.parametrize("game,players,options", CASES)
def test_samples_depend_on_the_view_only(game, players, options):
    """Two referees with the same public state but other hidden values give the same samples."""
    for i, ref in enumerate(positions(game, players, options, seed=9, every=41)):
        seat = i % players
        other = other_hidden(ref, seat, i)
        assert other.view(seat) == ref.view(seat)
        a = sampler_for(game, ref.view(seat)).sample(random.Random(1))
        b = sampler_for(game, other.view(seat)).sample(random.Random(1))
        assert a.truth == b.truth
