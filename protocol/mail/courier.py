"""The game mesh over postboxes, without the postbox (issue 33): what a turn-based table's seat
does between its broker inbox and its game node, fed parcels (an envelope and the shell's
opaque handle to acknowledge it by), the frames the game sends and the time, giving back what
to publish, what to acknowledge, the letters for each other seat's link, the lines to log and
the state to keep. node/net/mail_links.py is its trio shell; the browser tab drives it with
asyncio. The design: specs/node.md "Turn-based tables: store and forward".

Two rules keep a stopped node from losing anything, and the courier holds the shell to them:
what it seals and what the game took come out only through `due`, which the shell calls once
the game's store made durable everything written so far (it saves `Batch.state`, then
publishes, then acknowledges); a letter counts as taken (its later copies are duplicates) only
once the game asked for the next one from its seat (`taken`), so a letter opened but not
handled when the node stops comes again at its next run.

No clock, no I/O, no trio: `now` comes with each call that needs it."""

from __future__ import annotations

import copy
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from .. import chain
from ..link.handshake import inbox_of
from .mailbox import Letter, Mailbox, MailError

FRAMES = ("msg", "heads", "abandon", "propose", "record", "chat", "genesis?", "genesis")
"""The game frames a letter may carry (node/app/game.py); others are dropped, naming the sender."""
PER_SEAT = 1024
PER_SEAT_BYTES = 8 << 20
"""Letters (and their envelopes' bytes) waiting for the game node per sender; more are dropped
(never acknowledged to the broker, they come again at the next run)."""
GAP_WAIT = 4.0
"""A running node takes an envelope missing this long below one that came as lost (`settle`),
and tells its sender so at once (its next heads carries the new ack)."""
RESEND_AFTER = 20.0
"""Our envelopes a running seat has not acknowledged this long, while it wrote to us
RESEND_AFTER/2 after they went out, are presumed lost and what they carried is owed again."""


@dataclass(frozen=True)
class Arrival:
    """What became of one parcel: handed to the link of `seat` (`ack` False: acknowledged once
    taken and durable), or dropped: `ack` True to acknowledge it at once (refused, a duplicate,
    no game frame: never useful, the broker may forget it), False to leave it on the broker
    (over the seat's bounds: it comes again at the next run). `note`: the line to log, naming
    the seat (the one a refused envelope claims: `signer`)."""
    seat: int | None = None
    ack: bool = False
    note: str | None = None
    signer: int | None = None


@dataclass(frozen=True)
class Mark:
    """How many envelopes were sealed and letters taken, and the mailbox state then."""
    sealed: int
    taken: int
    state: dict[str, Any]


@dataclass
class Batch:
    """What the shell does once the game's store is durable, in this order: keep `state` (the
    mailbox state file's JSON value), publish each (inbox, envelope), acknowledge each handle."""
    state: dict[str, Any]
    publish: list[tuple[str, bytes]]
    acks: list[Any]


@dataclass
class _Held:
    letter: Letter
    handle: Any
    size: int


@dataclass
class _Side:
    """One other seat's side of the courier: its letters waiting for the game, the one the
    game is handling, the last heads sent to it, when its last letter came."""
    held: deque[_Held] = field(default_factory=deque)
    held_bytes: int = 0
    taking: _Held | None = None
    last_heads: list[int] | None = None
    last_letter: float | None = None
    unacked_since: float | None = None


class Courier:
    """One seat's mail in one game (see the module doc)."""

    def __init__(self, mailbox: Mailbox):
        self.mailbox = mailbox
        self.seats = mailbox.seats
        self.inboxes = [inbox_of(k) for k in self.seats]
        self.outbox: list[tuple[int, bytes]] = []       # (seat, envelope) sealed, not yet published
        self.to_ack: list[Any] = []                     # handles taken by the game, not yet acknowledged
        self.last_activity = 0.0
        """When a letter was last handed to the game or an envelope sealed (the shell's clock)."""
        self.refused = 0
        self._sides = {s: _Side() for s in mailbox.others}
        self._delivered: set[tuple[int, bytes, int]] = set()   # letters handed to the links in this run
        self._gap_since: float | None = None

    # ------------------------------------------------------------------ outgoing
    def post(self, seat: int, frame: Any, now: float) -> bool:
        """Seal `frame` (a decoded game frame) to `seat`, published by `due`; False if it is not
        sent: a `msg` the seat already has or has in flight is not sent twice (nor one that does
        not parse), nor are unchanged heads."""
        counts = None
        if type(frame) is dict and frame.get("t") == "msg" and type(frame.get("m")) is bytes:
            try:
                msg = chain.parse(frame["m"])
                author = self.seats.index(msg.author)
            except (ValueError, TypeError, KeyError):
                return False
            sent = self.mailbox.sent[seat][author]
            if msg.seq < sent:
                return False                             # on its way already (or held there)
            if msg.seq == sent:
                counts = [0] * len(self.seats)
                counts[author] = msg.seq + 1
        elif type(frame) is dict and frame.get("t") == "heads":
            if frame.get("h") == self._sides[seat].last_heads:
                return False
            self._sides[seat].last_heads = list(frame.get("h") or [])
        self.outbox.append((seat, self.mailbox.seal(seat, frame, counts)))
        self.last_activity = now
        return True

    def mark(self) -> Mark:
        """What was sealed and taken so far, and the mailbox state now: the shell marks before
        it asks its store to sync, and then publishes only up to the mark (`due`)."""
        return Mark(len(self.outbox), len(self.to_ack), copy.deepcopy(self.mailbox.state()))

    def due(self, mark: Mark | None = None) -> Batch | None:
        """What was sealed and what was taken up to `mark` (default: now), with the state then,
        for the shell to save, publish and acknowledge now that the game's store is durable
        (None: nothing). What came after the mark stays for the next batch: its message may
        have been written after the store's sync began."""
        mark = mark or self.mark()
        out, self.outbox = self.outbox[:mark.sealed], self.outbox[mark.sealed:]
        acks, self.to_ack = self.to_ack[:mark.taken], self.to_ack[mark.taken:]
        if not out and not acks:
            return None
        return Batch(mark.state, [(self.inboxes[s], e) for s, e in out], acks)

    # ------------------------------------------------------------------ incoming
    def parcel(self, envelope: bytes, handle: Any, now: float) -> Arrival:
        """Open an envelope the broker brought and hand its letter to its sender's link."""
        try:
            letter = self.mailbox.open(envelope, mark=False)
        except MailError as exc:
            self.refused += 1
            return Arrival(ack=True, note=f"dropped an envelope: {exc}", signer=exc.signer)
        key = (letter.sender, letter.epoch, letter.n) if letter is not None else None
        if letter is None or key in self._delivered:
            return Arrival(ack=True)                     # a duplicate
        self._delivered.add(key)
        side = self._sides[letter.sender]
        side.last_letter = now
        body = letter.body
        if type(body) is not dict or body.get("t") not in FRAMES:
            return Arrival(ack=True, note=f"seat {letter.sender} sent a letter that is no game frame; dropped")
        if len(side.held) >= PER_SEAT or side.held_bytes + len(envelope) > PER_SEAT_BYTES:
            self._delivered.discard(key)                 # it comes again (not acknowledged)
            return Arrival(note=f"over {PER_SEAT} letters or {PER_SEAT_BYTES >> 20} MiB from seat "
                                f"{letter.sender} waiting; dropped one (it comes again at the next run)")
        side.held.append(_Held(letter, handle, len(envelope)))
        side.held_bytes += len(envelope)
        return Arrival(seat=letter.sender)

    def taken(self, seat: int) -> bool:
        """The game handled the letter from `seat` it was given last (it asks for the next one):
        that letter's copies are duplicates from now on, and its envelope is acknowledged with the
        next batch (`due`). False: none was being handled."""
        side = self._sides[seat]
        if side.taking is None:
            return False
        self.mailbox.mark(side.taking.letter)
        self.to_ack.append(side.taking.handle)
        side.taking = None
        return True

    def hand(self, seat: int, now: float) -> Any:
        """The body of the next letter from `seat` for the game (None: none waits); call `taken`
        first. A valid `heads` tells the mailbox what the seat holds and which of ours it took."""
        side = self._sides[seat]
        if not side.held:
            return None
        held = side.taking = side.held.popleft()
        side.held_bytes -= held.size
        self.last_activity = now
        body = held.letter.body
        heads = body.get("h")
        if body.get("t") == "heads" and type(heads) is list and len(heads) == len(self.seats) \
                and all(type(x) is int and x >= 0 for x in heads):
            self.mailbox.heard(seat, heads, held.letter.ack)
        return body

    def waiting(self, seat: int) -> int:
        """Letters from `seat` handed to its link and not yet taken by the game."""
        side = self._sides[seat]
        return len(side.held) + (side.taking is not None)

    def busy(self) -> bool:
        """Something is still on its way in or out of the courier (the postbox's own publishes
        in flight are the shell's to add)."""
        return bool(self.outbox or self.to_ack or any(self.waiting(s) for s in self._sides))

    # ------------------------------------------------------------------ upkeep
    def check(self, now: float) -> list[str]:
        """A running node's upkeep (every second or so), the lines to log: gaps that lasted
        GAP_WAIT are lost (settled, and the senders told at once by fresh heads); envelopes a
        seat that kept writing has not acknowledged for RESEND_AFTER are presumed lost."""
        self._settle_gaps(now)
        notes = []
        for seat, side in self._sides.items():
            unacked = self.mailbox.unacked(seat)
            if unacked <= 0:
                side.unacked_since = None
                continue
            if side.unacked_since is None:
                side.unacked_since = now
            since = side.unacked_since
            if now - since >= RESEND_AFTER and side.last_letter is not None \
                    and side.last_letter >= since + RESEND_AFTER / 2:
                notes.append(f"seat {seat} has not acknowledged {unacked} envelope(s) for {now - since:.0f} s "
                             "while writing to us: presumed lost, sent again")
                self.mailbox.presume_lost(seat)
                side.unacked_since = now
        return notes

    def _settle_gaps(self, now: float) -> None:
        if not self.mailbox.gaps():
            self._gap_since = None
        elif self._gap_since is None:
            self._gap_since = now
        elif now - self._gap_since >= GAP_WAIT:
            self.mailbox.settle()
            self._gap_since = None
            for side in self._sides.values():
                side.last_heads = None                   # the next heads goes out, with the new ack

    def reported(self) -> dict[int, list[int]]:
        """What each other seat last reported holding (kept across runs)."""
        return {s: list(h) for s, h in self.mailbox.heads.items()}
