"""The abandon vote (protocol/seat/vote.py) with no trio and no clock: three seats of a real
game, each a Mesh and a Ballot, on clocks the test drives (one runs twice as fast). A seat
goes silent on its move; the other two propose only once their own clock has seen the
whole time limit pass, sign only once both proposed, and end with the same record, which
`caravan verify` accepts naming the silent seat."""

from __future__ import annotations

import random

from protocol import games, transcript
from protocol.local_table import Table, make_genesis
from protocol.player import Player
from protocol.seat.mesh import Mesh
from protocol.seat.vote import Ballot, Hooks, vote_shape_ok
from protocol.seat.watch import Tick, Watchdog
from protocol.session import Session
from protocol.verify import verify_bytes
from tests.core.test_seat_mesh import N, TICK, Net, Seat
from tests.games.pick import quick_game, short_game

LIMIT = 30
GIVE_UP = 4 * LIMIT


def timed_table(seed: int) -> Table:
    game = quick_game(N)
    engine = games.get(game)
    options = {**engine.default_options(N), **short_game(game)[1]}
    keys, secrets, genesis = make_genesis(engine.name, options, N, random.Random(seed), time_limit=LIMIT)
    sessions = [Session(genesis, engine) for _ in range(N)]
    return Table(keys, secrets, genesis, sessions, [Player(sessions[i], i, keys[i], secrets[i]) for i in range(N)])


class VotingSeat(Seat):
    """A Seat (test_seat_mesh) that also votes: what the trio node's watchdog and frame
    handler do, on a clock `rate` times the test's."""

    def __init__(self, t: Table, seat: int, net: Net, rate: float):
        self.adopted: list[str] = []
        super().__init__(t, seat, net, random.Random(seat), hooks=Hooks(on_adopted=self.adopted.append))
        self.rate, self.now = rate, 0.0
        self.ballot = self.core.ballot
        self.ballot.note_state(self.now)
        self.watchdog = Watchdog(self.ballot)
        self.watchdog.start(self.now, GIVE_UP)
        self.ticks: list[Tick] = []

    def changed(self) -> None:
        if self.ballot.note_state(self.now):
            self.ballot.place_unplaced(self.now)

    def on_frame(self, src: int, data: bytes, now: float) -> None:
        super().on_frame(src, data, self.now)              # (this seat's clock)
        self.changed()

    def play(self) -> None:
        if self.ballot.vote is None and not self.adopted:     # a seat that signed signs nothing more
            super().play()
            self.changed()

    def watch(self, now: float) -> None:
        """The watchdog's tick: propose, sign, send the proposal or statement again."""
        self.now = now * self.rate
        done = self.watchdog.tick(self.now)
        self.ticks.append(done)
        for frame in done.send:
            for peer in self.peers():
                self.net.send(self.seat, peer, frame)


def step(seats: list[VotingSeat], net: Net, now: float, silent: int | tuple[int, ...] | None) -> None:
    silent = (silent,) if type(silent) is int else silent or ()
    for s in seats:
        if s.seat not in silent:
            s.watch(now)
            s.tick()
            s.play()
    while (got := net.take()) is not None:
        src, dst, data = got
        if src not in silent and dst not in silent:
            seats[dst].on_frame(src, data, now)


def until_seat_2_moves(seats: list[VotingSeat], net: Net) -> float:
    """Play until every replica waits for seat 2 alone; the time then."""
    now = 0.0
    while not (len(seats[0].session.log) > 20 and all(s.session.waiting_for() == [2] for s in seats)):
        now += TICK
        step(seats, net, now, None)
        assert now < 1000, "the game never waited for seat 2 alone"
        assert not any(s.ballot.proposed for s in seats), "a seat proposed while the game went on"
    return now


def test_two_seats_abandon_a_silent_one_only_once_each_clock_saw_the_limit():
    rng = random.Random(11)
    t = timed_table(11)
    net = Net(rng, drop=0.0, dup=0.1)
    seats = [VotingSeat(t, i, net, rate=2.0 if i == 0 else 1.0) for i in range(N)]
    now = until_seat_2_moves(seats, net)
    # seat 2 goes silent on its move
    went_silent = now
    while now - went_silent < LIMIT / 2 - TICK:
        now += TICK
        step(seats, net, now, silent=2)
        assert not any(s.ballot.proposed for s in seats), "proposed before any clock saw the limit pass"
    while now - went_silent < LIMIT - TICK:
        now += TICK
        step(seats, net, now, silent=2)
    assert seats[0].ballot.proposed, "the fast clock saw the limit pass: it proposed"
    assert not seats[1].ballot.proposed and seats[0].ballot.vote is None and seats[1].ballot.vote is None, \
        "nobody signs before every signer's own clock saw the limit"
    for _ in range(int(4 / TICK)):
        now += TICK
        step(seats, net, now, silent=2)
    assert seats[0].ballot.vote is not None and seats[1].ballot.vote is not None
    assert seats[0].adopted and seats[1].adopted, "both hold the complete record"
    assert "abandoned by seat 2" in seats[0].adopted[0]
    assert seats[0].ballot.record == seats[1].ballot.record
    raw = transcript.dump(t.genesis.to_wire(), seats[1].ballot.record_frames + [seats[1].ballot.record])
    report = verify_bytes(raw)
    assert report.valid and report.abandoned_by == [2], (report.error, report.abandoned_by)


def test_a_forged_abandon_signature_is_named_and_not_kept():
    t = timed_table(12)
    notes: list[tuple[str, str]] = []
    seat = Seat(t, 1, Net(random.Random(0), 0, 0), random.Random(1))
    ballot = Ballot(seat.session, 1, t.keys[1], seat.mesh, Hooks(note=lambda level, text: notes.append((level, text))))
    ballot.note_state(0.0)
    snap = ballot.history[-1]
    frame = {"t": "abandon", "stalled": [2], "length": snap.length, "digest": ballot.digest(snap),
             "h": list(snap.counts), "sig": bytes(64), "by": 0}
    assert vote_shape_ok(frame, N)
    ballot.on_vote(frame, 0.0)
    assert notes == [("warning", "seat 1: an abandon signature of seat 0 does not verify; ignored")]
    assert ballot.votes == {} and ballot.proposals == {}


def test_a_seat_whose_cosigner_is_gone_too_gives_up_and_a_pause_is_not_silence():
    rng = random.Random(11)
    t = timed_table(11)
    net = Net(rng, drop=0.0, dup=0.0)
    seats = [VotingSeat(t, i, net, rate=1.0) for i in range(N)]
    now = until_seat_2_moves(seats, net)
    went_silent, alone = now, seats[0]
    now += 20.0                                         # seat 0 was not run for 20 s (a tab in the background)
    step(seats, net, now, silent=(1, 2))
    assert alone.ticks[-1].paused == 20.0 and not alone.ballot.proposed, "a pause is not the others' silence"
    back = now
    while not alone.ticks[-1].give_up:
        now += TICK
        step(seats, net, now, silent=(1, 2))
        if now - back < LIMIT - TICK:
            assert not alone.ballot.proposed
        assert now - back < LIMIT + GIVE_UP + 1, "it never gave up"
    assert alone.ballot.proposed and alone.ballot.vote is None, "proposed; no signer to sign with"
    assert now - back >= LIMIT + GIVE_UP - TICK, "gave up before the give-up time"
    assert "waiting for" in alone.ticks[-1].give_up and f"gave up after {GIVE_UP} s" in alone.ticks[-1].give_up
    assert now - went_silent > LIMIT + GIVE_UP


def test_a_kept_vote_is_signed_again_where_its_state_is_held_and_binds_where_it_is_not():
    """A postbox node's vote across runs (node/storage/vote_memory.py keeps the frames)."""
    rng = random.Random(11)
    t = timed_table(11)
    net = Net(rng, drop=0.0, dup=0.0)
    seats = [VotingSeat(t, i, net, rate=1.0) for i in range(N)]
    now = until_seat_2_moves(seats, net)
    while seats[0].ballot.vote is None:
        now += TICK
        step(seats, net, now, silent=2)
    ballot = seats[0].ballot
    kept = {"t": "abandon", **ballot.proposal_frame(ballot.vote), "by": 0, "sig": ballot.votes[ballot.vote.counts][0]}
    mine = [ballot.proposal_frame(p) for p in ballot.proposed.values()]

    def fresh(upto: int) -> Ballot:
        session = Session(t.genesis, t.sessions[0].engine)
        for raw in t.sessions[0].log[:upto]:
            session.receive(raw)
        mesh = Mesh(session, 0)
        mesh.recovered = True
        again = Ballot(session, 0, t.keys[0], mesh)
        again.note_state(0.0)
        return again

    again = fresh(len(t.sessions[0].log))
    assert again.restore(mine, kept, 0.0)
    assert again.vote is not None and again.votes[again.vote.counts][0] == kept["sig"], "the same signature again"
    assert again.latest_proposal is again.vote and again.proposals[again.vote.counts] == {0}
    lost = fresh(3)                                     # a log that lost the state it signed for
    assert not lost.restore(mine, kept, 0.0)
    assert lost.vote is not None and lost.vote.stalled == (2,) and not lost.votes, "bound: signs nothing more"
