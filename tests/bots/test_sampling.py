"""The determinization samplers: worlds built from one seat's view agree with everything that
seat knows, deal exactly the hidden values still unseen, and never depend on the truth."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from clients import games as presentations
from clients.bots.sampling import sampler_for
from protocol import games
from tests.games.conformance import hook
from tests.games.pick import installed

from .worlds import other_hidden, positions


def _cases() -> list[tuple[str, int, dict | None]]:
    """Every installed game with a sampler, at its hooks' SAMPLER_CASES (else its fewest players)."""
    return [(game, players, options) for game in installed() if presentations.get(game).sampler
            for players, options in hook(game, "SAMPLER_CASES", [(games.get(game).min_players, None)])]


def _deck_reordered(ref, world) -> None:
    """A deck: the sampled world deals the true values, reordered."""
    live = set(world.truth)
    assert Counter(world.truth.values()) == Counter(ref.truth[h] for h in live)


CASES = _cases()


def _with_gaps(cases: list[tuple]) -> list:
    """The cases, a game's SAMPLER_GAP hook marking its own as a strict expected failure."""
    return [pytest.param(*case, marks=pytest.mark.xfail(strict=True, reason=gap))
            if (gap := hook(case[0], "SAMPLER_GAP")) else case for case in cases]


@pytest.mark.parametrize("game,players,options", _with_gaps(CASES))
def test_a_sampled_world_agrees_with_the_seat_and_deals_the_unseen_values(game, players, options):
    checked = 0
    for ref in positions(game, players, options, seed=5, every=hook(game, "SAMPLER_EVERY", 23)):
        seat = checked % players
        sampler = sampler_for(game, ref.view(seat))
        world = sampler.sample(random.Random(checked))
        assert sampler.seat == seat
        assert ref.engine.encode(world.state) == ref.engine.encode(ref.state)
        live = set(world.truth)
        for h, v in ref.knowledge[seat].items():          # what the seat knows is kept
            if h in live:
                assert world.truth[h] == v
        hook(game, "sampled_truth", _deck_reordered)(ref, world)
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
