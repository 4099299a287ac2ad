"""The game mesh over postboxes in the browser tab (issue 33): the asyncio shell of
protocol/mail/courier.py (`Courier`) between the tab's postbox (tab_postbox.TabPostbox) and
its seat (tab_seat.TabSeat), as node/net/mail_links.py is its trio shell on the desktop.

A `MailLink` per other seat is a TabSeat link: `send` seals a frame in an envelope to that
seat, and its `inbox.get()` gives the body of the next letter from it (asking for the next
one is what marks the one before as taken). Nothing is published before the tab's store
(tab_games, flushed to IndexedDB) holds what the envelopes carry and the mailbox state
(`mailbox.json` beside the game's log), and a received envelope is acknowledged to the broker
only once what it brought is flushed too: a tab closed at any moment loses nothing it sent or
took (the broker sends the unacknowledged again when the tab opens the postbox again)."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from typing import Any, Awaitable, Callable

from protocol.mail.courier import Batch, Courier
from protocol.mail.mailbox import Mailbox

log = logging.getLogger("caravan.tab.mail")

PUMP_INTERVAL = 0.05
STATE_FILE = "mailbox.json"
NOTES_KEPT = 32


def load_mailbox(store: Any, game_id: bytes, seats: list[bytes], seat: int, key: Any) -> Mailbox:
    """The seat's mailbox with the state kept in the game's folder (none yet: a fresh one); a
    damaged state file is said in one line and the numbering starts afresh (the others then
    drop the copies they get twice), as the desktop's runner does."""
    path = store.dir / STATE_FILE
    try:
        return Mailbox(game_id, seats, seat, key, json.loads(path.read_bytes()))
    except FileNotFoundError:
        return Mailbox(game_id, seats, seat, key)
    except ValueError as exc:
        log.warning("%s is damaged (%s); this seat's postbox numbering starts afresh (the others then get "
                    "some messages twice, and drop the copies)", path, exc)
        return Mailbox(game_id, seats, seat, key)


class _Letters:
    """A MailLink's `inbox`: `get()` marks the letter handed last as taken and waits for the next."""

    def __init__(self, link: "MailLink"):
        self.link = link

    async def get(self) -> Any:
        return await self.link.recv()


class MailLink:
    """The seat's link to one other seat through the postboxes (see the module doc)."""

    def __init__(self, transport: "MailTransport", seat: int):
        self.transport, self.seat = transport, seat
        self.inbox = _Letters(self)
        self._arrived = asyncio.Event()

    def wake(self) -> None:
        """A letter from this seat was handed to the courier."""
        self._arrived.set()

    def waiting(self) -> int:
        return self.transport.courier.waiting(self.seat)

    async def recv(self) -> Any:
        """The next frame from this seat (the one before it has been handled by now)."""
        courier = self.transport.courier
        if courier.taken(self.seat):
            self.transport.kick()
        while True:
            self._arrived.clear()
            body = courier.hand(self.seat, time.monotonic())
            if body is not None:
                return body
            await self._arrived.wait()

    async def send(self, frame: dict) -> None:
        self.transport.post(self.seat, frame)


class MailTransport:
    """One seat's postbox, courier and links in one game (see the module doc). `store` is the
    game's tab_games.StoredGame: its `flush` makes the log and the mailbox state durable."""

    def __init__(self, postbox: Any, mailbox: Mailbox, store: Any):
        self.postbox, self.mailbox, self.store = postbox, mailbox, store
        self.courier = Courier(mailbox)
        self.links = {s: MailLink(self, s) for s in mailbox.others}
        self.notes: list[str] = []
        """The last lines logged (a refused envelope, naming the seat it claims), for the page."""
        self._kick = asyncio.Event()

    def _note(self, line: str) -> None:
        log.warning("postbox: %s", line)
        self.notes.append(line)
        del self.notes[:-NOTES_KEPT]

    def post(self, seat: int, frame: dict) -> None:
        """Seal `frame` to `seat` (published by the pump once flushed), unless the courier skips it."""
        if self.courier.post(seat, frame, time.monotonic()):
            self.kick()

    def kick(self) -> None:
        """Something waits to be published or acknowledged: the pump gathers a batch."""
        self._kick.set()

    def busy(self) -> bool:
        return self.courier.busy() or bool(self.postbox.unacknowledged())

    async def pump(self, durable: Callable[[], Awaitable[bool]]) -> None:
        """Publish what was sealed and acknowledge what was taken, each batch once its mailbox
        state is written and `durable()` (the store's flush) returned True. The batch is marked
        before the flush is awaited: what is sealed or taken meanwhile waits for the next one
        (its message may have been written after the flush began)."""
        while True:
            await self._kick.wait()
            self._kick.clear()
            await asyncio.sleep(PUMP_INTERVAL)             # gather a batch
            mark = self.courier.mark()
            self._keep(mark.state)
            if not await durable():
                return
            self._deliver(self.courier.due(mark))

    async def push(self, durable: Callable[[], Awaitable[bool]]) -> None:
        """What is left, once the seat stopped: its state kept and flushed, then published."""
        mark = self.courier.mark()
        self._keep(mark.state)
        if await durable():
            self._deliver(self.courier.due(mark))

    def _keep(self, state: dict[str, Any]) -> None:
        self.store.write_file(STATE_FILE, json.dumps(state, sort_keys=True).encode())

    def _deliver(self, batch: Batch | None) -> None:
        if batch is None:
            return
        for inbox, envelope in batch.publish:
            self.postbox.send(inbox, envelope)
        for parcel in batch.acks:
            self.postbox.ack(parcel)

    async def receive(self) -> None:
        """Open every envelope the postbox brings and hand its letter to the sender's link."""
        while True:
            parcel = await self.postbox.parcels.get()
            self.postbox.took(parcel)
            arrival = self.courier.parcel(parcel.envelope, parcel, time.monotonic())
            if arrival.note is not None:
                self._note(arrival.note)
            if arrival.ack:
                self.postbox.ack(parcel)
            elif arrival.seat is not None:
                self.links[arrival.seat].wake()

    def check(self, now: float) -> None:
        """The upkeep of a seat left running (every second or so): the courier's gaps and resends."""
        for note in self.courier.check(now):
            self._note(note)

    def reported(self) -> dict[int, list[int]]:
        return self.courier.reported()
