"""The game mesh over postboxes, for a turn-based table played through a broker (issue 33):
the trio shell of protocol/mail/courier.py (`Courier`: what is sealed, what is handed to the
game, what is acknowledged, the bounds, gaps and resends), between node/net/postbox.py (the
broker) and the game node (node/app/game.py), which runs over `MailLink`s exactly as over live
links.

A `MailLink` per other seat has the interface of a connection (`send`, `recv`, `aclose`,
`address`): a frame sent is sealed in an envelope to that seat, and a frame received is the
body of a letter from it. Nothing is published before the game node's store made durable
what the envelopes carry (a message on the broker is always in its signer's fsync'd log:
specs/node.md "Turn-based tables: store and forward"), and a received envelope is
acknowledged to the broker only once what it brought is durable too: a node stopped at
any moment loses nothing it sent or took. This shell waits, wakes the links, writes the
state file and logs."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import msgpack
import trio

from protocol.mail.courier import Batch, Courier
from protocol.mail.mailbox import Mailbox

from ..storage.files import write_atomic
from .frames import Packed, no_ext
from .postbox import Postbox

log = logging.getLogger("caravan.mail")

PUMP_INTERVAL = 0.05
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
        self._arrived = trio.Event()

    def wake(self) -> None:
        """A letter from this seat was handed to the courier."""
        self._arrived.set()

    def waiting(self) -> int:
        return self.transport.courier.waiting(self.seat)

    async def recv(self, accept: Any = None) -> Any:
        """The next frame from this seat (the one before it has been handled by now)."""
        courier = self.transport.courier
        if courier.taken(self.seat):
            self.transport.kick()
        while True:
            self._arrived = trio.Event()
            body = courier.hand(self.seat, trio.current_time())
            if body is not None:
                return body
            await self._arrived.wait()

    async def send(self, frame: Any) -> None:
        value = msgpack.unpackb(frame.data, raw=False, strict_map_key=False, ext_hook=no_ext) \
            if type(frame) is Packed else frame
        self.transport.post(self, value)

    async def aclose(self) -> None:
        pass


class MailTransport:
    """One seat's postbox, courier and links in one game (see the module doc)."""

    def __init__(self, postbox: Postbox, mailbox: Mailbox, folder: Path):
        self.postbox = postbox
        self.mailbox = mailbox
        self.folder = folder
        self.courier = Courier(mailbox)
        self.links = {s: MailLink(self, s) for s in mailbox.others}
        self._kick = trio.Event()

    @property
    def last_activity(self) -> float:
        """When a letter was last handed to the game or an envelope sealed (trio's clock)."""
        return self.courier.last_activity

    # ------------------------------------------------------------------ outgoing
    def post(self, link: MailLink, frame: Any) -> None:
        """Seal `frame` to the link's seat (published by the pump once durable), unless the
        courier skips it (a `msg` the seat has or has in flight, unchanged heads)."""
        if self.courier.post(link.seat, frame, trio.current_time()):
            self.kick()

    def kick(self) -> None:
        """Something waits to be published or acknowledged: the pump gathers a batch."""
        self._kick.set()

    def busy(self) -> bool:
        """Something is still on its way in or out of this node."""
        return self.courier.busy() or bool(self.postbox.unacknowledged())

    async def pump(self, durable: Any) -> None:
        """Publish what was sealed and acknowledge what was taken, each batch once `durable()`
        (the game node's store fsync'd everything written before it) returned True and the
        mailbox state (numbers, what was sent) is saved. The batch is marked before `durable()`
        is asked: what is sealed or taken while the store syncs waits for the next one, as its
        message may have been written after the sync began (and a pump cancelled meanwhile
        leaves it all to the last `push`)."""
        while True:
            await self._kick.wait()
            self._kick = trio.Event()
            await trio.sleep(PUMP_INTERVAL)                # gather a batch
            mark = self.courier.mark()
            if not await durable():
                return
            self.deliver(self.courier.due(mark))

    async def push(self) -> None:
        """Save the mailbox state, then publish and acknowledge (the game's store is durable)."""
        self.deliver(self.courier.due())

    def deliver(self, batch: Batch | None) -> None:
        """Save a batch's mailbox state, then publish and acknowledge it."""
        if batch is None:
            return
        write_atomic(self.folder / STATE_FILE, json.dumps(batch.state, sort_keys=True).encode())
        for inbox, envelope in batch.publish:
            self.postbox.send(inbox, envelope)
        for parcel in batch.acks:
            self.postbox.ack(parcel)

    # ------------------------------------------------------------------ incoming
    async def receive(self) -> None:
        """Open every envelope the postbox brings and hand its letter to the sender's link."""
        async for parcel in self.postbox.parcels:
            self.postbox.took(parcel)
            arrival = self.courier.parcel(parcel.envelope, parcel, trio.current_time())
            if arrival.note is not None:
                log.warning("postbox: %s", arrival.note)
            if arrival.ack:
                self.postbox.ack(parcel)
            elif arrival.seat is not None:
                self.links[arrival.seat].wake()

    def check(self, now: float) -> None:
        """A running node's upkeep (every second or so): the courier's gaps and resends, logged."""
        for note in self.courier.check(now):
            log.warning("postbox: %s", note)

    def reported(self) -> dict[int, list[int]]:
        """What each other seat last reported holding (kept across runs)."""
        return self.courier.reported()
