"""A seat's postbox on an MQTT broker from the browser tab (issue 33; the desktop's is
node/net/postbox.py, the design specs/node.md "Turn-based tables: store and forward"), so a
friend on a phone plays a turn-based table as a desktop node does.

One MQTT 5 connection per (game, seat) over mqtt.js (tab_broker, broker.js), with the
desktop's names (protocol/mail/postbox_names: the same client id, so the same persistent
session, and the same inbox topic): clean_start False, a Session Expiry Interval longer than
the table's time per move, one QoS 1 subscription to the seat's inbox. Envelopes sent there
while the tab is closed wait on the broker and come when it opens the postbox again. Each is
acknowledged to the broker only when the tab says it took it (`ack`, after it stored what it
changed): a tab closed in between gets it again. `flush` waits until the broker acknowledged
everything this tab published. asyncio, on Pyodide's WebLoop: nothing here blocks."""

from __future__ import annotations

import asyncio
import logging
import time
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any, AsyncIterator

from protocol.link.handshake import inbox_of
from protocol.link.relay_url import PACKET_OVERHEAD
from protocol.mail.mailbox import MAX_ENVELOPE
from protocol.mail.postbox_names import INBOUND, INBOUND_BYTES, client_id, inbox_topic, session_expiry

from tab_broker import CONNECT_TIMEOUT, BrokerError, TabBroker

log = logging.getLogger("caravan.postbox")

LOG_KEPT = 32


@dataclass
class Parcel:
    """One envelope from the broker; `ack` it once taken."""
    mid: int
    envelope: bytes
    redelivered: bool
    connection: int = 0           # which connection brought it (its mid means nothing on another)
    qos: int = 1                  # 0: anyone's unacknowledged publish (nothing to acknowledge)


class TabPostbox:
    """A seat's persistent inbox on the broker (see the module doc); open it with `open_postbox`."""

    def __init__(self, game_id: bytes, key: bytes, expiry: int, max_queued: int = INBOUND,
                 max_bytes: int = INBOUND_BYTES):
        self.game_id = game_id
        self.inbox = inbox_of(key)
        self.topic = inbox_topic(game_id, self.inbox)
        self.expiry = expiry
        self.max_bytes = max_bytes
        self.broker = TabBroker()
        self.broker.watchers.append(self._event)
        self.parcels: asyncio.Queue[Parcel] = asyncio.Queue(max_queued)
        self.ready = asyncio.Event()               # connected and subscribed
        self.session_present: bool | None = None   # at the first connection: did the broker hold ours?
        self.closing = False
        self.last_arrival = 0.0                    # time.monotonic(): when an envelope last came
        self.dropped = 0
        self.queued_bytes = 0                      # bytes of the parcels in `parcels`
        self.log: list[str] = []                   # warnings, for the page
        self._unacknowledged = 0                   # our publishes the broker has not acknowledged
        self._changed = asyncio.Event()            # set at each acknowledgement of ours
        self._resubscribing: asyncio.Future[None] | None = None   # after a reconnect to a lost session

    @property
    def url(self) -> str:
        return self.broker.url

    @property
    def connection(self) -> int:
        """Connections so far (a reconnect starts a new one; a parcel's mid means nothing on another)."""
        return self.broker.connection()

    async def open(self, url: str, timeout: float) -> None:
        """Connect (resuming this seat's session) and subscribe; BrokerError (one line) if not."""
        await self.broker.connect(url, client_id(self.game_id, self.inbox), clean_start=False,
                                  session_expiry=self.expiry, timeout=timeout, postbox=self._arrived,
                                  max_packet=MAX_ENVELOPE + PACKET_OVERHEAD)
        try:
            await self.broker.subscribe(self.topic, 1)
        except BrokerError as e:
            await self.broker.close()
            raise BrokerError(f"the broker {self.url} refused this seat's postbox: {e}") from None
        self.ready.set()

    # ------------------------------------------------------------------ mqtt.js's calls
    def _event(self, kind: str, detail: str) -> None:
        if kind == "connect":
            self._connected(detail == "session present")
        elif kind == "close" and self.ready.is_set() and not self.closing:
            self._warn(f"postbox {self.topic}: connection to {self.url} lost; reconnecting")
            self.ready = asyncio.Event()

    def _connected(self, session_present: bool) -> None:
        if self.session_present is None:
            self.session_present = session_present
            return
        if session_present:
            self.ready.set()
            return
        self._warn(f"postbox {self.topic}: the broker {self.url} no longer held this seat's session "
                   "(restarted without its store?): what waited for it is lost; the others send it again")
        self._resubscribing = asyncio.ensure_future(self._resubscribe())

    async def _resubscribe(self) -> None:
        """Ready again once the broker granted the inbox's subscription to the new session."""
        try:
            await self.broker.subscribe(self.topic, 1)
        except BrokerError as e:
            self._warn(f"postbox {self.topic}: {e}")
            return
        self.ready.set()

    def _warn(self, line: str) -> None:
        log.warning("%s", line)
        self.log.append(line)
        del self.log[:-LOG_KEPT]

    def _arrived(self, topic: str, payload: Any, mid: int, qos: int, dup: bool, connection: int) -> None:
        data = payload.to_bytes()
        if topic != self.topic or len(data) > MAX_ENVELOPE:
            self.broker.ack(connection, mid, qos)  # not ours to keep: let the broker forget it
            return
        self.last_arrival = time.monotonic()
        if self.queued_bytes + len(data) > self.max_bytes:
            self.dropped += 1                      # never acknowledged: the broker sends it again
            return
        try:
            self.parcels.put_nowait(Parcel(mid, data, bool(dup), connection, qos))
        except asyncio.QueueFull:
            self.dropped += 1
            return
        self.queued_bytes += len(data)

    # ------------------------------------------------------------------ the node's side
    def took(self, parcel: Parcel) -> None:
        """The node took `parcel` from `parcels` (its bytes no longer count against the bound)."""
        self.queued_bytes -= len(parcel.envelope)

    async def next_parcel(self, timeout: float) -> Parcel | None:
        """The next parcel, taken (`took`), or None if none came within `timeout` s."""
        try:
            parcel = await asyncio.wait_for(self.parcels.get(), timeout)
        except asyncio.TimeoutError:
            return None
        self.took(parcel)
        return parcel

    def ack(self, parcel: Parcel) -> bool:
        """The node has taken `parcel` (and stored what it changed): the broker may forget it.
        One from an earlier connection is not acknowledged (the broker sends it again), nor one
        that came at QoS 0 (anyone may publish one to a seat's inbox; a PUBACK of its number 0
        would make the broker cut this connection). True if the PUBACK went out; broker.js
        checks the connection (its count moves at the CONNACK, before the messages after it)."""
        return parcel.qos > 0 and self.broker.ack(parcel.connection, parcel.mid, parcel.qos)

    def send(self, inbox: str, envelope: bytes) -> None:
        """Publish `envelope` to seat `inbox`'s postbox (QoS 1: the broker keeps it for that seat
        until its node takes it); `flush` waits for the broker's acknowledgement."""
        self._track(self.broker.publish_soon(inbox_topic(self.game_id, inbox), envelope, 1))

    def retain(self, topic: str, payload: bytes, expiry: int) -> None:
        """Leave `payload` retained at `topic` for `expiry` s (b"": take it away), acknowledged
        like a `send`: a turn-based lobby's announcement, read by joiners who come later."""
        self._track(self.broker.publish_soon(topic, payload, 1, retain=True, expiry=expiry if payload else 0))

    def _track(self, promise: Any) -> None:
        self._unacknowledged += 1
        promise.then(self._acked, self._lost)

    def _acked(self, _: Any) -> None:
        self._unacknowledged -= 1
        self._changed.set()

    def _lost(self, error: Any) -> None:
        """mqtt.js gave up on a publish (its connection was ended): it stays unacknowledged."""
        self._warn(f"postbox {self.topic}: an envelope to the broker {self.url} was not delivered ({getattr(error, 'message', error)})")

    def unacknowledged(self) -> int:
        return self._unacknowledged

    async def flush(self, timeout: float) -> bool:
        """Wait until the broker acknowledged every envelope sent (True), at most `timeout` s."""
        deadline = time.monotonic() + timeout
        while self._unacknowledged:
            self._changed.clear()
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            try:
                await asyncio.wait_for(self._changed.wait(), left)
            except asyncio.TimeoutError:
                return False
        return True

    async def drained(self, quiet: float, timeout: float) -> bool:
        """Wait until no envelope has come for `quiet` seconds since this postbox was ready
        (what waited on the broker has all come: a broker sends a session's queue at once),
        at most `timeout` s; False if envelopes kept coming."""
        deadline = time.monotonic() + timeout
        try:
            await asyncio.wait_for(self.ready.wait(), timeout)
        except asyncio.TimeoutError:
            return False
        start = time.monotonic()
        while True:
            now = time.monotonic()
            since = now - max(self.last_arrival, start)
            if since >= quiet:
                return True
            if now + quiet - since > deadline:
                return False
            await asyncio.sleep(quiet - since)


@asynccontextmanager
async def open_postbox(url: str, game_id: bytes, key: bytes, time_limit: float, timeout: float = CONNECT_TIMEOUT,
                       max_queued: int = INBOUND) -> AsyncIterator[TabPostbox]:
    """Seat `key`'s postbox for game `game_id` for the duration of the block (created on the
    broker at the first call, resumed after); BrokerError (one line) if the broker does not
    accept it within `timeout`. Leaving the block disconnects without ending the session: the
    broker keeps collecting envelopes for this seat (and sends again those not acknowledged)."""
    box = TabPostbox(game_id, key, session_expiry(time_limit), max_queued)
    await box.open(url, timeout)
    try:
        yield box
    finally:
        box.closing = True
        await box.broker.close()
