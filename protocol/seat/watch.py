"""The stall watchdog's decisions, without its timer (specs/node.md "Stalls"): called on
each tick with the caller's time, it proposes to abandon the seats the game waits for when
they stay silent longer than the genesis's time limit (never naming this seat), says when
to send the proposal (or the signed statement) again, with back-off, and when to give up
because no record can form: this seat signed and no record followed, or a seat that would
have to sign is not heard from, for `give_up_after` seconds.

A tick that comes much later than the last one means this process was not run (SIGSTOP, a
suspended machine, a tab in the background): it did not watch the others meanwhile, so it
watches the current state afresh from then on.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .vote import Ballot

TURN_BASED_RESEND = 600.0
"""On a turn-based table, the longest pause between two sendings of an abandon proposal or
statement (a live table's is its time limit; a turn-based one's would be a day)."""


@dataclass
class Tick:
    """What one tick decided: `paused` (seconds this node was not run, to say), `proposed`
    (the stalled seats it proposed to abandon), `send` (frames for every peer), `give_up`
    (why this node stops: the game cannot go on nor be abandoned)."""
    paused: float | None = None
    proposed: tuple[int, ...] | None = None
    send: list[dict] = field(default_factory=list)
    give_up: str | None = None


def resend_cap(time_limit: float, turn_based: bool) -> float:
    """The longest pause between two sendings of a proposal or statement: the limit (at
    least 2 s) on a live table; on a turn-based one at most TURN_BASED_RESEND, not once a
    day (a peer that reconnects is sent them at once anyway)."""
    return max(2.0, min(time_limit, TURN_BASED_RESEND) if turn_based else time_limit)


class Watchdog:
    """One seat's stall watch (see the module doc). `postbox`: the seats talk through
    postboxes (the broker keeps each sending for each seat, so only the longest pause
    between them; silence before this run is judged by the kept vote memory)."""

    def __init__(self, ballot: Ballot, postbox: bool = False):
        self.ballot, self.postbox = ballot, postbox
        genesis = ballot.genesis
        self.limit = genesis.time_limit
        self.cap = resend_cap(genesis.time_limit, genesis.turn_based)
        self.last = 0.0
        self.stall_since: float | None = None
        self.backoff = self.first_backoff()
        self.give_up_after = 0.0

    def first_backoff(self) -> float:
        """The pause after a proposal or statement is sent before it is sent again: 1 s on
        live links (doubled each time); on postboxes only the longest pause (a lost one is
        sent again then, and at every run)."""
        return self.cap if self.postbox else 1.0

    def start(self, now: float, give_up_after: float) -> None:
        """The watch begins (a node starts): silence before it is not this run's to judge,
        unless a postbox node's memory says since when it held the state."""
        self.last, self.give_up_after = now, give_up_after
        if not self.postbox:
            self.ballot.history[-1].since = now
        self.ballot.resend_at = now + self.backoff if self.postbox else 0.0  # (each link sent them at its start)

    def tick(self, now: float) -> Tick:
        ballot, mesh, session = self.ballot, self.ballot.mesh, self.ballot.session
        out = Tick()
        cur = ballot.history[-1]
        if now - self.last > max(1.5, self.limit / 2):
            out.paused = now - self.last
            cur.since = now
            if self.stall_since is not None:
                self.stall_since += now - self.last
        self.last = now
        others_awaited = (session.need is not None and not session.complete
                          and ballot.seat not in session.waiting_for())
        if others_awaited and now - cur.since >= self.limit or not mesh.recovered:
            self.stall_since = self.stall_since if self.stall_since is not None else now
        elif ballot.vote is None:
            self.stall_since = None
        if ballot.maybe_propose(cur, now):
            out.proposed = cur.stalled
            self.backoff = self.first_backoff()
        if ballot.maybe_sign(cur):
            self.backoff = self.first_backoff()
        resend = ballot.vote is not None or ballot.latest_proposal is cur
        if resend and now >= ballot.resend_at:
            out.send = ballot.frames()
            ballot.resend_at, self.backoff = now + self.backoff, min(self.backoff * 2, self.cap)
        if (self.stall_since is not None and now - self.stall_since >= self.give_up_after
                and (ballot.vote is not None or not mesh.recovered
                     or ballot.cosigner_gone(cur, now, self.give_up_after))):
            why = ("could not hear from every peer how many of this seat's messages they hold"
                   if not mesh.recovered else f"waiting for {session.describe_need()}")
            out.give_up = (f"gave up after {self.give_up_after:.0f} s without an agreed abandon record "
                           f"({why}); the transcript is unfinished")
            return out
        ballot.check_records()
        return out

    def due(self, now: float) -> bool:
        """The next tick is about to propose, sign or send an abandon statement (an idle
        postbox node waits for it before it stops)."""
        ballot = self.ballot
        cur = ballot.history[-1]
        due = (cur.counts not in ballot.proposed and ballot.eligible(cur) and now - cur.since >= self.limit)
        return due or ((ballot.vote is not None or ballot.latest_proposal is cur) and ballot.resend_at == 0.0)
