"""Over the protocol, a player who claims a yellow tile they do not hold is caught by the
deck's proof check, and the replica names them; the true claim is accepted."""

import random

import pytest

from protocol import chain, errors, games
from tests.helpers import new_table, play


def is_tile(action) -> bool:
    return isinstance(action, list) and bool(action) and action[0] == "tile"


def test_false_yellow_tile_claim_is_caught_by_the_deck_proof():
    engine = games.get("nomads")
    for seed in range(40):
        t = new_table(engine, 3, seed=seed)
        rng = random.Random(seed)
        found = play(t, lambda seat, legal: rng.choice(legal),
                     stop=lambda seat, d: any(is_tile(a) for a in d.legal))
        if found:
            break
    else:
        pytest.fail("no game in 40 seeds gave a player a yellow tile to use")
    seat, decision = found
    action = next(a for a in decision.legal if is_tile(a))
    victim = t.sessions[(seat + 1) % 3]
    genuine = t.players[seat].decide(action)
    m = chain.parse(genuine)
    forged_action = list(action)
    forged_action[2] = next(x for x in range(8) if x != action[2])
    forged = chain.seal(t.keys[seat], m.game_id, m.seq, m.prev, m.refs, m.kind,
                        {"a": forged_action, "o": m.body["o"]}).raw
    with pytest.raises(errors.BadOpening) as info:
        victim.receive(forged)
    assert info.value.seat == seat
    assert victim.receive(genuine).status == "applied"
