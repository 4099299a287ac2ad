"""The game mesh over postboxes, for a turn-based table played through a broker (issue 33):
the glue between protocol/mail/mailbox.py (envelopes, what is owed), node/net/postbox.py (the broker)
and the game node (node/app/game.py), which runs over `MailLink`s exactly as over live links.

A `MailLink` per other seat has the interface of a connection (`send`, `recv`, `aclose`,
`address`): a frame sent is sealed in an envelope to that seat, and a frame received is the
body of a letter from it. Nothing is published before the game node's store made durable
what the envelopes carry (a message on the broker is always in its signer's fsync'd log:
specs/node.md "Turn-based tables: store and forward"), and a received envelope is
acknowledged to the broker only once what it brought is durable too: a node stopped at
any moment loses nothing it sent or took."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import msgpack
import trio

from protocol import chain
from protocol.mail.mailbox import Letter, Mailbox, MailError

from ..storage.files import write_atomic
from .frames import Packed, no_ext
from .handshake import inbox_of
from .postbox import Parcel, Postbox

log = logging.getLogger("caravan.mail")

FRAMES = ("msg", "heads", "abandon", "propose", "record", "chat", "genesis?", "genesis")
"""The game frames a letter may carry (node/app/game.py); others are dropped, naming the sender."""
PER_SEAT = 1024
PER_SEAT_BYTES = 8 << 20
"""Letters (and their envelopes' bytes) waiting for the game node per sender; more are dropped
(never acknowledged to the broker, they come again at the next run)."""
PUMP_INTERVAL = 0.05
GAP_WAIT = 4.0
"""A running node takes an envelope missing this long below one that came as lost (`settle`),
and tells its sender so at once (its next heads carries the new ack)."""
RESEND_AFTER = 20.0
"""Our envelopes a running seat has not acknowledged this long, while it wrote to us
RESEND_AFTER/2 after they went out, are presumed lost and what they carried is owed again."""
STATE_FILE = "mailbox.json"


def load_state(folder: Path) -> dict[str, Any] | None:
    try:
        return json.loads((folder / STATE_FILE).read_bytes())
    except FileNotFoundError:
        return None
    except ValueError as exc:
        raise ValueError(f"{folder / STATE_FILE} is damaged ({exc})") from None


class MailLink:
    """The game's link to one other seat through the postboxes (see the module doc)."""

    keeps_going = True
    """A malformed frame from a seat is logged and dropped; the link stays (it is the only one)."""

    def __init__(self, transport: "MailTransport", seat: int):
        self.transport = transport
        self.seat = seat
        self.address = f"postbox:seat {seat}"
        self.max_frame = 1 << 20
        self._send, self._recv = trio.open_memory_channel[tuple[Letter, Parcel]](PER_SEAT)
        self._taking: tuple[Letter, Parcel] | None = None
        self._last_heads: list[int] | None = None
        self.held_bytes = 0

    def deliver(self, letter: Letter, parcel: Parcel) -> bool:
        if self.held_bytes + len(parcel.envelope) > PER_SEAT_BYTES:
            return False
        try:
            self._send.send_nowait((letter, parcel))
        except trio.WouldBlock:
            return False
        self.held_bytes += len(parcel.envelope)
        return True

    def waiting(self) -> int:
        return self._recv.statistics().current_buffer_used + (self._taking is not None)

    async def recv(self, accept: Any = None) -> Any:
        """The next frame from this seat (the one before it has been handled by now)."""
        if self._taking is not None:
            self.transport.taken(*self._taking)
            self._taking = None
        letter, parcel = await self._recv.receive()
        self.held_bytes -= len(parcel.envelope)
        self._taking = (letter, parcel)
        self.transport.activity()
        body = letter.body
        if body.get("t") == "heads" and type(body.get("h")) is list and len(body["h"]) == len(self.transport.seats) \
                and all(type(x) is int and x >= 0 for x in body["h"]):
            self.transport.mailbox.heard(self.seat, body["h"], letter.ack)
        return body

    async def send(self, frame: Any) -> None:
        value = msgpack.unpackb(frame.data, raw=False, strict_map_key=False, ext_hook=no_ext) \
            if type(frame) is Packed else frame
        self.transport.post(self, value)

    async def aclose(self) -> None:
        pass


class MailTransport:
    """One seat's postbox, mailbox and links in one game (see the module doc)."""

    def __init__(self, postbox: Postbox, mailbox: Mailbox, folder: Path):
        self.postbox = postbox
        self.mailbox = mailbox
        self.folder = folder
        self.seats = mailbox.seats
        self.inboxes = [inbox_of(k) for k in self.seats]
        self.links = {s: MailLink(self, s) for s in mailbox.others}
        self._outbox: list[tuple[int, bytes]] = []       # (seat, envelope) sealed, not yet published
        self._to_ack: list[Parcel] = []                 # taken by the game, not yet acknowledged
        self._kick = trio.Event()
        self.last_activity = 0.0
        self.refused = 0
        self._delivered: set[tuple[int, bytes, int]] = set()   # letters handed to the links in this run
        self._gap_since: float | None = None
        self._unacked_since: dict[int, float] = {}      # seat -> since when our envelopes wait for its ack
        self._last_letter: dict[int, float] = {}        # seat -> when its last letter came

    # ------------------------------------------------------------------ outgoing
    def post(self, link: MailLink, frame: Any) -> None:
        """Seal `frame` to the link's seat (published by the pump once durable). A `msg` the
        seat already has or has in flight is not sent twice; nor are unchanged heads."""
        counts = None
        if type(frame) is dict and frame.get("t") == "msg" and type(frame.get("m")) is bytes:
            try:
                msg = chain.parse(frame["m"])
                author = self.seats.index(msg.author)
            except (ValueError, TypeError, KeyError):
                return
            sent = self.mailbox.sent[link.seat][author]
            if msg.seq < sent:
                return                                   # on its way already (or held there)
            if msg.seq == sent:
                counts = [0] * len(self.seats)
                counts[author] = msg.seq + 1
        elif type(frame) is dict and frame.get("t") == "heads":
            if frame.get("h") == link._last_heads:
                return
            link._last_heads = list(frame.get("h") or [])
        self._outbox.append((link.seat, self.mailbox.seal(link.seat, frame, counts)))
        self.activity()
        self._kick.set()

    def activity(self) -> None:
        self.last_activity = trio.current_time()

    def taken(self, letter: Letter, parcel: Parcel) -> None:
        self.mailbox.mark(letter)
        self._to_ack.append(parcel)
        self._kick.set()

    def busy(self) -> bool:
        """Something is still on its way in or out of this node."""
        return bool(self._outbox or self._to_ack or self.postbox.unacknowledged()
                    or any(link.waiting() for link in self.links.values()))

    async def pump(self, durable: Any) -> None:
        """Publish what was sealed and acknowledge what was taken, each batch once `durable()`
        (the game node's store fsync'd everything written before it) returned True and the
        mailbox state (numbers, what was sent) is saved."""
        while True:
            await self._kick.wait()
            self._kick = trio.Event()
            await trio.sleep(PUMP_INTERVAL)                # gather a batch
            if not await durable():
                return
            await self.push()

    async def push(self) -> None:
        """Save the mailbox state, then publish and acknowledge (the game's store is durable)."""
        out, self._outbox = self._outbox, []
        acks, self._to_ack = self._to_ack, []
        if not out and not acks:
            return
        self.save()
        for seat, envelope in out:
            self.postbox.send(self.inboxes[seat], envelope)
        for parcel in acks:
            self.postbox.ack(parcel)

    def save(self) -> None:
        write_atomic(self.folder / STATE_FILE, json.dumps(self.mailbox.state(), sort_keys=True).encode())

    # ------------------------------------------------------------------ incoming
    async def receive(self) -> None:
        """Open every envelope the postbox brings and hand its letter to the sender's link."""
        async for parcel in self.postbox.parcels:
            self.postbox.took(parcel)
            try:
                letter = self.mailbox.open(parcel.envelope, mark=False)
            except MailError as exc:
                self.refused += 1
                log.warning("postbox: dropped an envelope: %s", str(exc))
                self.postbox.ack(parcel)                   # never useful: the broker may forget it
                continue
            key = (letter.sender, letter.epoch, letter.n) if letter is not None else None
            if letter is None or key in self._delivered:
                self.postbox.ack(parcel)                   # a duplicate
                continue
            self._delivered.add(key)
            self._last_letter[letter.sender] = trio.current_time()
            body = letter.body
            if type(body) is not dict or body.get("t") not in FRAMES:
                log.warning("postbox: seat %d sent a letter that is no game frame; dropped", letter.sender)
                self.postbox.ack(parcel)
                continue
            if not self.links[letter.sender].deliver(letter, parcel):
                self._delivered.discard(key)                # it comes again (not acknowledged)
                log.warning("postbox: over %d letters or %d MiB from seat %d waiting; dropped one (it comes "
                            "again at the next run)", PER_SEAT, PER_SEAT_BYTES >> 20, letter.sender)

    def check(self, now: float) -> None:
        """A running node's upkeep (every second or so): gaps that lasted GAP_WAIT are lost
        (settled, and the senders told at once by fresh heads); envelopes a seat that kept
        writing has not acknowledged for RESEND_AFTER are presumed lost (`presume_lost`)."""
        if self.mailbox.gaps():
            if self._gap_since is None:
                self._gap_since = now
            elif now - self._gap_since >= GAP_WAIT:
                self.mailbox.settle()
                self._gap_since = None
                for link in self.links.values():
                    link._last_heads = None             # the next heads goes out, with the new ack
        else:
            self._gap_since = None
        for seat in self.links:
            if self.mailbox.unacked(seat) <= 0:
                self._unacked_since.pop(seat, None)
                continue
            since = self._unacked_since.setdefault(seat, now)
            if now - since >= RESEND_AFTER and self._last_letter.get(seat, -1e9) >= since + RESEND_AFTER / 2:
                log.warning("postbox: seat %d has not acknowledged %d envelope(s) for %.0f s while writing to "
                            "us: presumed lost, sent again", seat, self.mailbox.unacked(seat), now - since)
                self.mailbox.presume_lost(seat)
                self._unacked_since[seat] = now

    def reported(self) -> dict[int, list[int]]:
        """What each other seat last reported holding (kept across runs)."""
        return {s: list(h) for s, h in self.mailbox.heads.items()}
