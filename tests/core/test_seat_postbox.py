"""A postbox seat's decisions (protocol/seat/postbox.py), shared by the trio node and, later, the
tab's driver, with no broker and on a clock the test drives: what a seat is owed, what a
drained inbox decides (the reported heads, defaults for silent seats, the gate to signing
opening or staying shut with the warning's numbers), and when a node run `--until-idle`
stops: never while its bot may move, something is in flight, a proof is checked or the
watchdog is about to act; after MAIL_QUIET s of quiet otherwise."""

from __future__ import annotations

import random

from protocol import chain
from protocol.local_table import Table, play
from protocol.mail.mailbox import Mailbox
from protocol.player import Player
from protocol.seat.core import SeatCore
from protocol.seat.postbox import MAIL_QUIET, MAIL_STUCK, Drained, PostboxSeat
from protocol.seat.turn import Turn
from protocol.seat.watch import Watchdog
from protocol.session import Session
from tests.core.test_seat_vote import GIVE_UP, LIMIT, N, timed_table

STEP = MAIL_QUIET / 4
"""How often the shell asks `idle` (as the trio node does)."""


def at_a_decision(seed: int = 3) -> tuple[Table, list[int]]:
    """A table with a time limit whose replicas all wait for a decision; the seats it waits for."""
    t = timed_table(seed)
    rng = random.Random(seed)
    found = play(t, lambda seat, legal: legal[rng.randrange(len(legal))],
                 stop=lambda seat, d: len(t.sessions[0].log) > 12)
    assert found is not None
    return t, t.sessions[0].waiting_for()


def postbox_seat(t: Table, seat: int, session: Session | None = None) -> PostboxSeat:
    """Seat `seat`'s PostboxSeat over its replica (or `session`, a fresh one: a lost log)."""
    session = t.sessions[seat] if session is None else session
    core = SeatCore(session, seat, t.keys[seat], postbox=True)
    core.ballot.note_state(0.0)
    watchdog = Watchdog(core.ballot, postbox=True)
    watchdog.start(0.0, GIVE_UP)
    player = t.players[seat] if session is t.sessions[seat] else Player(
        session, seat, t.keys[seat], t.secrets[seat], Player.load_secrets(t.players[seat].secrets()))
    mailbox = Mailbox(t.genesis.game_id, list(t.genesis.seats), seat, t.keys[seat])
    return PostboxSeat(Turn(core, player), watchdog, mailbox)


def own_frames(session: Session, author: int, start: int) -> list[dict]:
    """What `owed` must give: `author`'s messages from `start` on, in log order."""
    key = session.seats[author]
    return [{"t": "msg", "m": raw} for raw in session.log
            if chain.parse(raw).author == key and chain.parse(raw).seq >= start]


def test_a_seat_is_owed_what_was_never_sent_to_it_or_was_lost_and_its_own_authors_only_on_request():
    t, _ = at_a_decision()
    post = postbox_seat(t, 0)
    session = post.session
    assert not session.pending, "(the expected frames below are the log's)"
    assert post.owed(1) == [{"t": "msg", "m": raw} for raw in session.log], "nothing sent yet: everything"
    assert post.owed(1, everyone_s=False) == own_frames(session, 0, 0)
    mine = len(session.accepted[0])
    assert mine > 2
    counts = [0] * N
    counts[0] = mine
    post.mailbox.seal(1, {"t": "msg", "m": session.accepted[0][-1].raw}, counts)
    assert post.owed(1, everyone_s=False) == [], "all of this seat's messages went to seat 1"
    assert all(chain.parse(f["m"]).author != t.keys[0].public for f in post.owed(1))
    assert post.owed(2, everyone_s=False) == own_frames(session, 0, 0), "seat 2 was sent nothing"
    heads = [0] * N
    heads[0] = mine - 2
    post.mailbox.heard(1, heads, ack=1)                      # it holds two fewer than the envelope carried
    assert post.owed(1, everyone_s=False) == own_frames(session, 0, mine - 2), "the lost ones again"


def test_the_drained_inbox_takes_the_reported_heads_defaults_silent_seats_and_opens_the_gate():
    t, waiting = at_a_decision()
    seat = waiting[0]
    post = postbox_seat(t, seat)
    others = [s for s in range(N) if s != seat]
    live, reported = others
    mine = len(t.sessions[seat].accepted[seat])
    post.mesh.on_heads(live, [1] * N)                        # heads that came in this run stand
    sender = Mailbox(t.genesis.game_id, list(t.genesis.seats), reported, t.keys[reported])
    envelopes = [sender.seal(seat, {"t": "chat"}) for _ in range(3)]
    post.mailbox.open(envelopes[2])                          # 1 and 2 never came: a gap
    assert post.mailbox.gaps()
    assert not post.caught_up(False, False), "silence is not judged before the inbox is drained"
    drained = post.drained_at({live: [mine] * N, reported: [mine] * N}, 7.0)
    assert drained == Drained(opened=True), "it holds all the others reported of its own"
    assert post.mesh.recovered and post.turn.may_sign()
    assert post.mesh.peer_heads == {live: [1] * N, reported: [mine] * N}
    assert not post.mailbox.gaps(), "the acks settled past what never came"
    assert post.drained and post.quiet_since == 7.0
    assert post.caught_up(False, False)
    assert not post.caught_up(True, False) and not post.caught_up(False, True)

    again = postbox_seat(t, seat)
    drained = again.drained_at({reported: [mine] * N}, 0.0)
    assert again.mesh.peer_heads[live] == [0] * N, "a seat that never reported holds none of ours"
    assert drained.opened and drained.shut is None


def test_a_seat_that_lost_its_log_stays_shut_with_the_warnings_numbers_until_it_is_given_them_back():
    t, waiting = at_a_decision()
    seat = waiting[0]
    held = t.sessions[seat]
    mine = len(held.accepted[seat])
    post = postbox_seat(t, seat, Session(t.genesis, held.engine))
    reported = {s: [mine - 1 if a == seat else 0 for a in range(N)] for s in range(N) if s != seat}
    reported[min(reported)][seat] = mine                     # the most any seat reported counts
    drained = post.drained_at(reported, 0.0)
    assert drained == Drained(opened=False, shut=(mine, 0))
    assert not post.mesh.recovered
    assert post.idle_text() == ("nothing to do until the others send back this seat's own messages (they "
                                "reported more than this node holds)")
    assert post.idle(STEP, busy=False, last_activity=0.0, verifying=False) is False
    assert post.idle(MAIL_QUIET, busy=False, last_activity=0.0, verifying=False), "nothing it can do"
    for raw in held.log:
        post.mesh.receive(raw, None)
    assert post.mesh.check_recovered(), "its own messages back: the gate opens"


def idle_after(post: PostboxSeat, start: float, **state) -> float:
    """Ask `idle` every STEP from `start` with `state`; the time it says stop (bounded)."""
    now = start
    while not post.idle(now, **state):
        now += STEP
        assert now < start + 10 * MAIL_STUCK, "it never stopped"
    return now


def test_until_idle_waits_for_the_bot_whose_move_it_is_but_not_for_a_person_or_a_stuck_bot():
    t, waiting = at_a_decision()
    post = postbox_seat(t, waiting[0])
    post.drained_at({s: [0] * N for s in range(N) if s != post.seat}, 0.0)
    quiet = dict(busy=False, last_activity=0.0, verifying=False)
    assert post.idle(MAIL_QUIET, **quiet, bot=False), "a person's turn is left to the person"
    assert post.idle_text().startswith("your move: ")
    post.quiet_since = 0.0
    assert post.idle(MAIL_QUIET, **quiet, bot=True, stopped=True), "a stopped shell's bot signs nothing"
    stopped_at = idle_after(post, MAIL_QUIET, **quiet, bot=True)
    assert MAIL_STUCK + MAIL_QUIET - STEP <= stopped_at <= MAIL_STUCK + MAIL_QUIET, \
        "its bot's turn held it until nothing had happened for MAIL_STUCK s, then MAIL_QUIET of quiet"


def test_until_idle_stays_while_busy_verifying_or_active_and_stops_after_mail_quiet_of_quiet():
    t, waiting = at_a_decision()
    seat = next(s for s in range(N) if s not in waiting)
    post = postbox_seat(t, seat)
    post.drained_at({s: [0] * N for s in range(N) if s != seat}, 0.0)
    quiet = dict(busy=False, last_activity=0.0, verifying=False)
    assert not post.idle(MAIL_QUIET - STEP, **quiet)
    assert post.idle(MAIL_QUIET, **quiet), "the game waits for the others only"
    assert post.idle_text().startswith("nothing to do until seat")
    for held in (dict(quiet, busy=True), dict(quiet, verifying=True)):
        post.quiet_since = 0.0
        assert not post.idle(1.0, **held)
        assert post.quiet_since == 1.0, "the quiet begins again"
        assert not post.idle(1.0 + MAIL_QUIET - STEP, **quiet)
        assert post.idle(1.0 + MAIL_QUIET, **quiet)
    post.quiet_since = 0.0
    active = dict(quiet, last_activity=2 * STEP)            # (a frame came or went at 2 * STEP)
    assert not post.idle(STEP, **active)
    assert post.quiet_since == 2 * STEP, "activity since the quiet began: it begins again from it"
    assert not post.idle(2 * STEP + MAIL_QUIET - STEP, **active)
    assert post.idle(2 * STEP + MAIL_QUIET, **active)


def test_until_idle_waits_for_the_proposal_the_watchdog_is_about_to_make():
    t, waiting = at_a_decision()
    seat = next(s for s in range(N) if s not in waiting)
    post = postbox_seat(t, seat)
    post.ballot.history[-1].since = -LIMIT                  # held since before this run (the vote memory's clock)
    post.drained_at({s: [0] * N for s in range(N) if s != seat}, 0.0)
    quiet = dict(busy=False, last_activity=0.0, verifying=False)
    assert post.watchdog.due(STEP)
    assert not post.idle(STEP, **quiet) and not post.idle(MAIL_QUIET + STEP, **quiet), "a proposal is due"
    tick = post.watchdog.tick(MAIL_QUIET + 2 * STEP)
    assert tick.proposed == tuple(waiting) and tick.send
    assert not post.watchdog.due(MAIL_QUIET + 2 * STEP)
    stopped_at = idle_after(post, MAIL_QUIET + 2 * STEP, **quiet)
    assert stopped_at == 2 * MAIL_QUIET + STEP, "MAIL_QUIET after the last check that found it due"
    seats = ", ".join(map(str, waiting))
    assert post.idle_text() == (f"nothing to do: this seat proposed to abandon seat {seats} (silent longer than "
                                f"the time limit of {LIMIT} s); waiting for the other signers to propose it too")
