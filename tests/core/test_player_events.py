"""Every engine event a replica applies is reported once, in order — also when a seat sends
several messages at once (Player.automatic): a mirror fed only the reported events ends in
the replica's own state (narration depends on it)."""

from __future__ import annotations

import random

from protocol import games
from tests.games.pick import short_game, some_game
from tests.helpers import new_table


def test_reported_events_rebuild_the_replica_state():
    game = some_game("deck")                # a deck: a seat sends several messages at once
    players, short = short_game(game)
    engine = games.get(game)
    options = {**engine.default_options(players), **short}
    table = new_table(engine, players, seed=4, options=options)
    rng = random.Random(4)
    mirrors = [engine.new_game(options, players) for _ in range(players)]
    batches = 0

    def report(seat: int, events) -> None:
        for event in events:
            engine.apply(mirrors[seat], event)

    inbox: list[list[bytes]] = [[] for _ in range(players)]
    for _ in range(20_000):
        sent = []
        for seat, p in enumerate(table.players):
            for raw in inbox[seat]:
                report(seat, table.sessions[seat].receive(raw).events)
            inbox[seat] = []
            out = p.automatic()
            batches += len(out) >= 2
            d = p.decision()
            if d is not None:
                out.append(p.decide(rng.choice(d.legal)))
                out.extend(p.automatic())
            report(seat, p.take_events())
            sent.extend((seat, raw) for raw in out)
        for author, raw in sent:
            for seat in range(players):
                if seat != author:
                    inbox[seat].append(raw)
        if all(s.complete for s in table.sessions) and not any(inbox):
            break
    assert all(s.complete for s in table.sessions)
    assert batches > 0                      # the case under test: several own messages at once
    for seat in range(players):
        assert engine.encode(mirrors[seat]) == engine.encode(table.sessions[seat].state)
