"""The seat mesh (protocol/seat/mesh.py) with no sockets, no trio and no clock: three seats of
a real game, each a Mesh around its replica and player, exchange encoded frames through an
in-memory network that drops, duplicates and reorders them, on a clock the test drives. They
catch up by heads alone and end with byte-identical logs; a seat that lost its log signs
nothing until its peers gave its own messages back; a forged or illegal message is refused
naming its signer, and not passed on."""

from __future__ import annotations

import hashlib
import random

import pytest

from protocol import chain, games
from protocol.errors import BadSignature, Equivocation, IllegalMove, Rejected
from protocol.link.framing import FrameError, decode, encode
from protocol.local_table import Table, new_table
from protocol.player import Player
from protocol.seat import mesh as mesh_module
from protocol.seat.core import SeatCore
from protocol.seat.mesh import RESEND_BATCH, Mesh
from protocol.seat.vote import Hooks
from protocol.session import Session
from tests.games.pick import quick_game, short_game

N = 3
TICK = 0.25
"""The test's clock step: each seat sends its heads to every peer once per tick."""


def table(seed: int) -> Table:
    game = quick_game(N)
    engine = games.get(game)
    return new_table(engine, N, seed=seed, options={**engine.default_options(N), **short_game(game)[1]})


class Net:
    """Frames in flight as bytes: each send may be dropped or duplicated, and `deliver` takes
    them in a random order."""

    def __init__(self, rng: random.Random, drop: float, dup: float):
        self.rng, self.drop, self.dup = rng, drop, dup
        self.flight: list[tuple[int, int, bytes]] = []     # (from, to, encoded frame)
        self.down: set[int] = set()                        # seats whose frames are all lost

    def send(self, src: int, dst: int, frame: dict) -> None:
        if src in self.down or dst in self.down or self.rng.random() < self.drop:
            return
        copies = 2 if self.rng.random() < self.dup else 1
        self.flight += [(src, dst, encode(frame))] * copies

    def take(self) -> tuple[int, int, bytes] | None:
        if not self.flight:
            return None
        return self.flight.pop(self.rng.randrange(len(self.flight)))


class Seat:
    """A test driver around one SeatCore: what a shell (the trio node, the tab's driver) does."""

    def __init__(self, t: Table, seat: int, net: Net, rng: random.Random, cheat: str | None = None,
                 hooks: Hooks | None = None):
        self.t, self.seat, self.net, self.rng, self.cheat, self.hooks = t, seat, net, rng, cheat, hooks
        self.session, self.player = t.sessions[seat], t.players[seat]
        self.core = SeatCore(self.session, seat, t.keys[seat], hooks)
        self.mesh = self.core.mesh
        self.refused: list[tuple[int, Rejected]] = []      # (the peer it came from, why)
        self.cheated = False

    def lose_log(self) -> None:
        """A crash that kept the seat's secrets but lost its log: a fresh replica and mesh."""
        self.session = Session(self.t.genesis, self.session.engine)
        self.player = Player(self.session, self.seat, self.t.keys[self.seat], self.t.secrets[self.seat],
                             Player.load_secrets(self.player.secrets()))
        self.t.sessions[self.seat], self.t.players[self.seat] = self.session, self.player
        self.core = SeatCore(self.session, self.seat, self.t.keys[self.seat], self.hooks)
        self.mesh = self.core.mesh

    def peers(self) -> list[int]:
        return [s for s in range(N) if s != self.seat]

    def on_frame(self, src: int, data: bytes, now: float) -> None:
        reaction = self.core.on_frame(src, decode(data), now)
        if reaction.message is not None:
            intake = self.mesh.receive(reaction.message, src)
            if intake.refused is not None:
                self.refused.append((src, intake.refused))
            self.refused += [(src, exc) for exc in intake.rejected]
            if intake.forward:
                for peer in self.peers():
                    if peer != src:
                        self.net.send(self.seat, peer, {"t": "msg", "m": reaction.message})
            self.mesh.check_recovered()
        for reply in reaction.replies:
            self.net.send(self.seat, src, reply)

    def tick(self) -> None:
        for peer in self.peers():
            self.net.send(self.seat, peer, self.mesh.heads())

    def play(self) -> None:
        """Sign what this seat owes, if the gate is open (a shell's game loop)."""
        if not self.mesh.recovered:
            return
        decision = self.player.decision()
        if decision is not None and decision.kind == "act" and self.cheat and not self.cheated:
            self.net_bad(self.bad_message())
            return
        out = self.player.automatic()
        decision = self.player.decision()
        if decision is not None:
            out.append(self.player.decide(decision.legal[self.rng.randrange(len(decision.legal))]))
            out += self.player.automatic()
        for raw in out:
            frame = self.mesh.own(raw)
            for peer in self.peers():
                self.net.send(self.seat, peer, frame)

    def bad_message(self) -> bytes:
        """This seat's next move, illegal but validly signed, or that one forged (a byte of
        its signature changed)."""
        s = self.session
        seq, prev = s.head(self.seat)
        raw = chain.seal(self.t.keys[self.seat], s.game_id, seq + 1, prev, s.refs_for(self.seat), "act",
                         {"a": "no such move", "o": []}).raw
        return raw if self.cheat == "illegal" else raw[:-1] + bytes([raw[-1] ^ 1])

    def net_bad(self, raw: bytes) -> None:
        self.cheated = True
        for peer in self.peers():
            self.net.send(self.seat, peer, {"t": "msg", "m": raw})


def run(seats: list[Seat], net: Net, rng: random.Random, ticks: int = 20_000) -> float:
    """Drive the clock until every replica is complete with the same log; returns the time."""
    now = 0.0
    for _ in range(ticks):
        now += TICK
        for seat in seats:
            seat.tick()
            seat.play()
        for _ in range(rng.randrange(1, 2 * len(net.flight) + 2)):
            got = net.take()
            if got is None:
                break
            src, dst, data = got
            seats[dst].on_frame(src, data, now)
        if all(s.session.complete for s in seats) and len({tuple(s.session.log) for s in seats}) == 1:
            return now
    raise AssertionError("no end: " + "; ".join(f"seat {s.seat}: {len(s.session.log)} logged, "
                                                  f"{s.session.describe_need()}" for s in seats))


def test_seats_catch_up_through_a_lossy_network_to_identical_logs():
    rng = random.Random(5)
    t = table(5)
    net = Net(rng, drop=0.3, dup=0.2)
    seats = [Seat(t, i, net, random.Random(i)) for i in range(N)]
    assert not any(s.mesh.recovered for s in seats), "nobody may sign before every peer reported"
    run(seats, net, rng)
    logs = {b"".join(s.session.log) for s in seats}
    assert len(logs) == 1 and t.sessions[0].complete
    assert all(s.refused == [] for s in seats)
    assert all(set(s.mesh.heard) == set(s.peers()) for s in seats)
    assert all(0 < when for s in seats for when in s.mesh.heard.values())


def test_a_seat_that_lost_its_log_signs_nothing_until_its_own_messages_come_back():
    rng = random.Random(8)
    t = table(8)
    net = Net(rng, drop=0.0, dup=0.0)
    seats = [Seat(t, i, net, random.Random(i)) for i in range(N)]
    now = 0.0
    while len(t.sessions[0].log) < 3 * RESEND_BATCH:                    # a good part of the game
        now += TICK
        for s in seats:
            s.tick()
            s.play()
        while (got := net.take()) is not None:
            seats[got[1]].on_frame(got[0], got[2], now)
    lost = seats[1]
    had = len(lost.session.accepted[1])
    assert had > 0
    lost.lose_log()
    assert not lost.mesh.recovered
    for peer in (0, 2):                                     # every peer reports: it holds `had` of seat 1's
        lost.on_frame(peer, encode(seats[peer].mesh.heads()), now)
    assert not lost.mesh.recovered, "it holds fewer of its own messages than its peers reported"
    lost.play()
    assert net.flight == [], "it signed before it had its own messages back"
    pages = 0
    while not lost.mesh.recovered:                          # heads from it: a page of what it lacks each
        pages += 1
        assert pages < 100
        lost.tick()
        while (got := net.take()) is not None:
            seats[got[1]].on_frame(got[0], got[2], now)
    assert len(lost.session.accepted[1]) >= had and pages >= 2, "caught up a page at a time"
    run(seats, net, rng)
    assert len({b"".join(s.session.log) for s in seats}) == 1


def test_a_forged_or_illegal_message_is_refused_naming_its_signer_and_not_passed_on():
    # a validly signed illegal move that arrives after the seat's honest one of the same seq
    # is an equivocation: seat 2 signed both, and is named for it
    for cheat, errors in (("forged", (BadSignature,)), ("illegal", (IllegalMove, Equivocation))):
        rng = random.Random(3)
        t = table(3)
        net = Net(rng, drop=0.1, dup=0.1)
        seats = [Seat(t, i, net, random.Random(i), cheat=cheat if i == 2 else None) for i in range(N)]
        run(seats, net, rng)
        assert seats[2].cheated
        named = [(src, exc) for s in seats[:2] for src, exc in s.refused]
        assert named, f"the {cheat} message was taken"
        assert all(type(exc) in errors and exc.seat == 2 and src == 2 for src, exc in named), named
        assert "seat 2" in str(named[0][1])
        assert len({b"".join(s.session.log) for s in seats}) == 1


def test_messages_held_ahead_of_the_game_are_bounded_per_author(monkeypatch):
    t = table(2)
    rng = random.Random(2)
    from protocol.local_table import play
    play(t, lambda seat, legal: legal[rng.randrange(len(legal))])
    later = next(raw for raw in reversed(t.sessions[0].log) if chain.parse(raw).seq > 2)
    author = t.sessions[0].seat_of[chain.parse(later).author]
    kept = Mesh(Session(t.genesis, t.sessions[0].engine), 0)
    intake = kept.receive(later, author)
    assert intake.status == "buffered" and intake.dropped_early is None and len(kept.session.early) == 1
    monkeypatch.setattr(mesh_module, "MAX_EARLY_BYTES", len(later) - 1)
    bounded = Mesh(Session(t.genesis, t.sessions[0].engine), 0)
    intake = bounded.receive(later, author)
    assert intake.status == "buffered" and intake.dropped_early == author and bounded.session.early == {}
    assert bounded.is_new(hashlib.sha256(later).digest()), "a dropped one comes again with resync"


def test_only_a_relayed_message_is_passed_on():
    """An author sends its own messages to everyone; a copy that came through another seat is
    passed on (a link may be down), once."""
    t = table(4)
    raw = t.players[0].automatic()[0]
    straight, relayed = (Mesh(Session(t.genesis, t.sessions[0].engine), 1) for _ in range(2))
    assert straight.receive(raw, 0).forward is False
    took = relayed.receive(raw, 2)
    assert took.status == "applied" and took.forward is True and took.accepted == [raw]
    assert relayed.receive(raw, 2).status == "old", "a copy is neither verified again nor passed on"


def test_a_frame_the_core_does_not_know_is_a_frame_error():
    t = table(4)
    core = SeatCore(t.sessions[0], 0, t.keys[0])
    for bad in ([1, 2], {"t": "msg", "m": "text"}, {"t": "heads", "h": [1, 2]}, {"t": "heads", "h": [0, -1, 0]},
                {"t": "propose", "stalled": [1], "length": 0, "digest": bytes(32), "h": [0, 0, 0]}, {"t": "nope"}):
        with pytest.raises(FrameError):
            core.on_frame(1, bad, 0.0)
    assert core.on_frame(2, {"t": "chat", "text": "hi"}, 5.0).kind == "chat"
    assert core.mesh.heard == {1: 0.0, 2: 5.0} and core.mesh.peer_heads == {}
