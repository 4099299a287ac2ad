"""Helpers for the session-level mental-deck tests: play the deck fixture game among
in-process replicas, replay prefixes, forge validly signed variants of messages."""

from __future__ import annotations

import random
from functools import lru_cache
from typing import Any

import pytest

from protocol import chain, games, wire
from protocol.deck import ops
from protocol.player import deck_seed
from protocol.session import Session
from tests.fixture_deck_game import ENGINE
from tests.helpers import Table, new_table, play

games.register(ENGINE)


class Recorder:
    """A chooser that claims whenever it can and returns a random card, recording what each
    seat knew when it chose (to check the engine gets the referee's mapping of handles)."""

    def __init__(self, table: Table, seed: int):
        self.table = table
        self.rng = random.Random(seed)
        self.returns: list[tuple[int, tuple[int, ...], dict[int, Any], int]] = []

    def __call__(self, seat: int, legal: list) -> Any:
        if legal and type(legal[0]) is int:                  # a face-down return: pick a handle
            choice = self.rng.choice(legal)
            p = self.table.players[seat]
            step = p.session.need.step
            self.returns.append((seat, tuple(step.handles), dict(p.knowledge), choice))
            return choice
        return legal[0]                                      # a claim if any, else "pass"


@lru_cache(maxsize=None)
def deck_table(n: int, seed: int = 0, shuffle: bool = True) -> tuple[Table, Recorder]:
    """A finished game (shared between tests, which must not change it)."""
    t = new_table(ENGINE, n, seed=seed)
    rec = Recorder(t, seed)
    play(t, rec, rng=random.Random(seed + 7) if shuffle else None)
    return t, rec


def messages(t: Table, kind: str | None = None) -> list[tuple[int, chain.Message]]:
    """(log index, message) of seat 0's log, optionally of one kind."""
    out = []
    for i, raw in enumerate(t.sessions[0].log):
        m = chain.parse(raw)
        if kind is None or m.kind == kind:
            out.append((i, m))
    return out


def seat_of(t: Table, m: chain.Message) -> int:
    return t.genesis.seats.index(m.author)


def replay(t: Table, upto: int, strict: bool = False) -> Session:
    """A fresh replica that has applied the first `upto` messages of seat 0's log."""
    s = Session(t.genesis, ENGINE, strict=strict)
    for raw in t.sessions[0].log[:upto]:
        s.receive(raw)
    return s


def resign(t: Table, m: chain.Message, **changes: Any) -> bytes:
    """The message with some fields changed, validly signed by its author."""
    f = {"seq": m.seq, "prev": m.prev, "refs": m.refs, "kind": m.kind, "body": m.body, "game_id": m.game_id}
    f.update(changes)
    key = t.keys[seat_of(t, m)]
    return chain.seal(key, f["game_id"], f["seq"], f["prev"], f["refs"], f["kind"], f["body"]).raw


def snapshot(s: Session) -> Any:
    """Everything a rejected message must leave untouched, deck state included."""
    return (wire.encode(s.engine.encode(s.state)), tuple(s.log), tuple(len(a) for a in s.accepted),
            tuple(sorted(s.pending)), tuple(sorted(s.early)), s.step_no, s.draw_no, s.complete,
            s.next_handle, repr(sorted(s.public.items())), repr(sorted(s.cipher.items())), repr(sorted(s.retired)),
            repr(sorted((h, sorted(d.items())) for h, d in s.deck_shares.items())),
            repr(sorted((h, sorted(v)) for h, v in s.seen.items())), repr(s.private_log),
            repr(sorted(s.deck_keys.items())), s.joint_key, repr(s.shuffle_decks), s.deck_return,
            repr(s.need), repr(s.finals))


def assert_rejected(s: Session, raw: bytes, error: type, seat: int) -> Any:
    before = snapshot(s)
    with pytest.raises(error) as info:
        s.receive(raw)
    assert snapshot(s) == before, "a rejected message must not change the replica"
    assert info.value.seat == seat and info.value.author == s.seats[seat], str(info.value)
    return info.value


def deck_x(t: Table, seat: int) -> bytes:
    """A seat's deck secret key, derived from its per-game secret."""
    return ops.key_share(deck_seed(t.secrets[seat], t.genesis.game_id), t.genesis.game_id, seat)[0]


def seed_of(t: Table, seat: int) -> bytes:
    return deck_seed(t.secrets[seat], t.genesis.game_id)
