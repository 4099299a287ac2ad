"""A postbox seat's decisions, without its broker, tasks or clock (specs/node.md "Turn-based
tables: store and forward"): on a turn-based table through a broker the seats talk through
postboxes, and a node runs for a moment now and then. What such a seat is owed, what it does
once its inbox is drained, and when a node run `--until-idle` has nothing left to do are
decided here, fed the mailbox (protocol/mail/mailbox.py), the seat's Turn and Watchdog and
the shell's time; the trio node (node/app/game.py) and the tab's driver are its shells.

A run: the shell waits until what waited on the broker has come (the inbox quiet for
MAIL_QUIET s, MAIL_DRAIN s at most), then `drained` settles the acks and takes the heads each
other seat reported last (kept across runs) for any seat that sent none in this run, so this
seat may sign once it holds as many of its own messages as any seat ever reported; the
shell then sends each seat what it is owed of this seat (`owed`). With `until_idle`, `idle`
says, on each check, whether the node has had nothing to do for MAIL_QUIET s.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..mail.mailbox import Mailbox
from .turn import Turn
from .vote import limit_text
from .watch import Watchdog

MAIL_QUIET = 0.5
MAIL_DRAIN = 30.0
"""A postbox node takes what waited on the broker as all come once its inbox has been quiet
for MAIL_QUIET s (a broker sends a session's queue at once), MAIL_DRAIN s at most; with
`until_idle` it stops once it has had nothing to do for MAIL_QUIET s."""
MAIL_STUCK = 30.0
"""With `until_idle`, a turn of this seat's bot during which nothing happened this long is left."""


@dataclass(frozen=True)
class Drained:
    """What taking the drained inbox decided: `opened` (the gate to signing opened now), or
    `shut` = (theirs, mine) when it stays shut: the others reported `theirs` messages of this
    seat and this node holds `mine` (it signs nothing until they send them back)."""
    opened: bool
    shut: tuple[int, int] | None = None

    def shut_text(self, seat: int) -> str | None:
        """The line a shell logs when the gate stays shut (None: it is not)."""
        if self.shut is None:
            return None
        return (f"seat {seat}: the others reported {self.shut[0]} messages of this seat, this node holds "
                f"{self.shut[1]}: it signs nothing until they send them back")


class PostboxSeat:
    """One seat's postbox decisions over its Turn, Watchdog and Mailbox (see the module doc)."""

    def __init__(self, turn: Turn, watchdog: Watchdog, mailbox: Mailbox):
        self.turn, self.watchdog, self.mailbox = turn, watchdog, mailbox
        self.mesh, self.ballot = turn.core.mesh, turn.core.ballot
        self.session, self.seat = turn.session, turn.core.mesh.seat
        self.drained = False
        """What waited on the broker was taken (`drained`)."""
        self.quiet_since = 0.0
        """Since when (the shell's clock) this node has had nothing to do, as `idle` saw it."""

    def owed(self, to: int, everyone_s: bool = True) -> list[dict]:
        """The frames that send seat `to` every message it is owed (the mailbox's `owed`:
        never sent to it, or sent and learned lost), in log order, then the pending
        contributions; no pages (its next heads may come days later). Other authors'
        messages only with `everyone_s` (in answer to its heads: each author sends its own,
        and the others fill in what a seat's heads show it lacks)."""
        owed = [o for o in self.mailbox.owed(to, self.mesh.counts()) if everyone_s or o[0] == self.seat]
        return self.mesh.owed({author: first for author, first, _ in owed})

    def own_owed(self) -> list[tuple[int, dict]]:
        """(seat, frame) for every other seat: the frames of this seat's own messages it is
        owed (after the drained step, and at each upkeep of a node left running)."""
        return [(seat, frame) for seat in self.mailbox.others for frame in self.owed(seat, everyone_s=False)]

    def drained_at(self, reported: dict[int, list[int]], now: float) -> Drained:
        """What waited on the broker came by `now` (the inbox was quiet for MAIL_QUIET): the
        acks settle, the heads each other seat `reported` last (kept across runs) stand for
        any it has not sent in this run, a seat that never reported holds none of ours, and
        the gate to signing opens if this node holds as many of its own messages as any
        seat reported. The shell then sends each seat `owed(seat, everyone_s=False)`."""
        self.mailbox.settle()
        self.drained = True
        self.quiet_since = now
        heads = self.mesh.peer_heads
        for seat, counts in reported.items():
            heads.setdefault(seat, counts)
        for seat in range(self.session.n):
            if seat != self.seat:
                heads.setdefault(seat, [0] * self.session.n)
        opened = self.mesh.check_recovered()
        if self.mesh.recovered:
            return Drained(opened)
        theirs = max(h[self.seat] for h in heads.values())
        return Drained(opened, (theirs, self.mesh.counts()[self.seat]))

    def caught_up(self, verifying: bool, waiting: bool) -> bool:
        """Silence may be judged: everything that waited on the broker was taken and applied
        (no proof check `verifying`, no letter `waiting` for the game), so a move made in
        time while this node was away is not silence."""
        return self.drained and not verifying and not waiting

    def idle(self, now: float, busy: bool, last_activity: float, verifying: bool, bot: bool = True,
             stopped: bool = False) -> bool:
        """With `until_idle`, checked every MAIL_QUIET/4 s or so: True once this node has had
        nothing to do for MAIL_QUIET s. It stays while this seat's `bot` may move (unless
        nothing happened for MAIL_STUCK s: a bot that cannot move is not waited for), a
        proof is `verifying`, the transport is `busy` or had activity (`last_activity`,
        the shell's clock) since the quiet began, or the watchdog is about to propose, sign
        or send an abandon statement. `stopped`: the shell's outcome is set."""
        ballot = self.ballot
        last_change = max(last_activity, ballot.history[-1].since if ballot.history else 0.0)
        mine = (bot and self.turn.may_sign(stopped) and self.seat in self.session.waiting_for()
                and now - last_change < MAIL_STUCK)
        if mine or verifying or busy or last_activity > self.quiet_since or self.watchdog.due(now):
            self.quiet_since = max(now, last_activity)
            return False
        return now - self.quiet_since >= MAIL_QUIET          # (nothing left to publish: not busy)

    def idle_text(self) -> str:
        """Why a postbox node has nothing to do now."""
        if not self.mesh.recovered:
            return ("nothing to do until the others send back this seat's own messages (they reported more "
                    "than this node holds)")
        session, ballot = self.session, self.ballot
        waiting = session.waiting_for()
        if ballot.vote is not None:
            return "nothing to do: this seat signed an abandon statement; waiting for the other signers"
        if ballot.latest_proposal is ballot.history[-1]:
            seats = ", ".join(str(s) for s in ballot.latest_proposal.stalled)
            return (f"nothing to do: this seat proposed to abandon seat {seats} (silent longer than the "
                    f"{limit_text(session.genesis)}); waiting for the other signers to propose it too")
        if self.seat in waiting:
            return f"your move: {session.describe_need()}"
        seats = ", ".join(str(s) for s in waiting)
        return (f"nothing to do until seat{'s' if len(waiting) > 1 else ''} {seats} "
                f"act{'' if len(waiting) > 1 else 's'} ({session.describe_need()})")
