"""Positions for the bot tests: random games paused at decisions, and the same position with
other hidden values (what one seat cannot tell apart)."""

from __future__ import annotations

import random
from typing import Iterator

from protocol import games
from protocol.referee import Referee
from tests.games.conformance import hook


def positions(game: str, players: int, options, seed: int, every: int = 23) -> Iterator[Referee]:
    """A referee paused at every `every`-th step of one random game (the same object, advanced)."""
    engine = games.get(game)
    ref = Referee(engine, players, dict(engine.default_options(players), **(options or {})), seed=seed)
    rng = random.Random(seed)
    for i in range(5000):
        if i % every == 0:
            yield ref
        if ref.step(lambda seat, legal, r: legal[rng.randrange(len(legal))]) is None:
            return


def other_hidden(ref: Referee, seat: int, seed: int) -> Referee:
    """The same public state with every value `seat` does not know shuffled among its handles
    (other seats' cards and commitments, the deck order); each seat keeps knowing its own."""
    other = Referee(ref.engine, ref.players, ref.options, state=ref.engine.clone(ref.state))
    hidden = [h for h in ref.truth if h not in ref.knowledge[seat]]
    values = [ref.truth[h] for h in hidden]
    rng = random.Random(seed)
    rng.shuffle(values)
    other.truth = {**ref.truth, **dict(zip(hidden, values))}
    if other.truth == ref.truth:                # nothing to shuffle: the game's hook picks others
        hook(ref.engine.name, "vary_hidden", lambda *unused: None)(ref, other.truth, hidden, rng)
    other.knowledge = [{h: other.truth[h] for h in k} for k in ref.knowledge]
    other.next_handle = ref.next_handle
    return other
