"""Over the protocol, a player who claims a yellow tile they do not hold is caught by the
deck's proof check, and the replica names them; the true claim is accepted."""

import random

import pytest

from protocol import chain, errors, games
from tests.helpers import new_table


def test_false_yellow_tile_claim_is_caught_by_the_deck_proof():
    engine = games.get("nomads")
    for seed in range(40):
        t = new_table(engine, 3, seed=seed)
        rng = random.Random(seed)
        n = 3
        inbox = [[] for _ in range(n)]
        for _ in range(20_000):
            sent = []
            for seat, p in enumerate(t.players):
                for raw in inbox[seat]:
                    t.sessions[seat].receive(raw)
                inbox[seat] = []
                out = p.automatic()
                d = p.decision()
                if d is not None:
                    tiles = [a for a in d.legal if isinstance(a, list) and a and a[0] == "tile"]
                    if tiles:
                        return _forge_and_check(t, seat, tiles[0], out, inbox)
                    out.append(p.decide(rng.choice(d.legal)))
                    out.extend(p.automatic())
                sent.extend((seat, raw) for raw in out)
            for a, raw in sent:
                for s in range(n):
                    if s != a:
                        inbox[s].append(raw)
            if not sent and not any(inbox):
                break
    pytest.fail("no game in 40 seeds gave a player a yellow tile to use")


def _forge_and_check(t, seat, action, out, inbox):
    other = (seat + 1) % len(t.players)
    victim = t.sessions[other]
    for raw in out + inbox[other]:            # bring the other replica up to date
        victim.receive(raw)
    inbox[other] = []
    for s, p in enumerate(t.players):          # and everything the others sent meanwhile
        if s != other:
            for m in t.sessions[s].log[len(victim.log):]:
                try:
                    victim.receive(m)
                except errors.Rejected:
                    pass
    genuine = t.players[seat].decide(action)
    m = chain.parse(genuine)
    held = action[2]
    fake_tile = next(x for x in range(8) if x != held)
    forged_action = list(action)
    forged_action[2] = fake_tile
    forged = chain.seal(t.keys[seat], m.game_id, m.seq, m.prev, m.refs, m.kind,
                        {"a": forged_action, "o": m.body["o"]}).raw
    with pytest.raises(errors.BadOpening) as info:
        victim.receive(forged)
    assert info.value.seat == seat
    assert victim.receive(genuine).status in ("applied", "buffered")
