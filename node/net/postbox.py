"""A seat's postbox on an MQTT broker for a turn-based table (issue 33): the I/O shell of
store and forward (protocol/mail/mailbox.py holds the logic; the design: specs/node.md "Turn-based
tables: store and forward").

One MQTT 5 connection per (game, seat) with a persistent session: client id
`caravan-box-<game16>-<inbox>`, clean_start False, a Session Expiry Interval longer than the
table's time per move, one QoS 1 subscription to the seat's inbox topic
`caravan/v1/<game16>/box/<inbox>`. So envelopes published to that topic while the seat's node
is not running wait on the broker (in its persistent store) and arrive when it connects
again. Incoming envelopes are acknowledged to the broker only when the node says it has taken
them (`ack`, after it stored what they changed): a node stopped in between gets them again.
`flush` waits until the broker acknowledged everything this node published: a node stops
only after that, or the envelopes it thinks sent may be lost with its process."""

from __future__ import annotations

import logging
import threading
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import AsyncIterator

import paho.mqtt.client as mqtt
import trio
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from protocol.link.relay_url import PACKET_OVERHEAD
from protocol.mail.mailbox import MAX_ENVELOPE
from protocol.mail.postbox_names import INBOUND, INBOUND_BYTES, client_id, inbox_topic, session_expiry

from .handshake import inbox_of
from .relay import CONNECT_TIMEOUT, PahoBridge, RelayError, new_client, stop_client
from .relay_url import RelayUrl

log = logging.getLogger("caravan.postbox")


@dataclass
class Parcel:
    """One envelope from the broker; `ack` it once taken."""
    mid: int
    envelope: bytes
    redelivered: bool
    connection: int = 0           # which connection brought it (its mid means nothing on another)
    qos: int = 1                  # 0: anyone's unacknowledged publish (nothing to acknowledge)


class Postbox(PahoBridge):
    """A seat's persistent inbox on the broker (see the module doc); open it with `open_postbox`."""

    def __init__(self, url: RelayUrl, game_id: bytes, key: bytes, expiry: int):
        self.url = url
        self.game_id = game_id
        self.inbox = inbox_of(key)
        self.topic = inbox_topic(game_id, self.inbox)
        self.expiry = expiry
        super().__init__()
        self._client = new_client(url, client_id(game_id, self.inbox), manual_ack=True)
        self._client.max_inflight_messages_set(0)
        self._client.on_connect = self._on_connect
        self.attach(self._client)
        self._client.on_message = self._on_message
        self._client.on_subscribe = self._on_subscribe
        self._client.on_publish = self._on_publish
        self._lock = threading.Lock()
        self._published: set[int] = set()          # PUBACKs that came before `send` recorded the mid
        self._pending: set[int] = set()            # our publishes the broker has not acknowledged
        self._send, self.parcels = trio.open_memory_channel[Parcel](INBOUND)
        self.ready = trio.Event()                  # connected and subscribed
        self.session_present: bool | None = None   # at the first connection: did the broker hold ours?
        self._subscribe_mid: int | None = None
        self.closing = False
        self.last_arrival = 0.0                    # trio clock: when an envelope last came
        self.dropped = 0
        self.connection = 0                        # connections so far (a reconnect starts a new one)
        self.queued_bytes = 0                      # bytes of the parcels in `parcels`
        self._changed = trio.Event()                # set (and replaced) at each PUBACK

    # ------------------------------------------------------------------ paho's thread
    def _on_connect(self, client, userdata, flags, reason_code, properties) -> None:
        if reason_code.is_failure:
            self.to_trio(self.refused_by_broker, str(reason_code))
            return
        mid = client.subscribe(self.topic, qos=1)[1]    # again each time: a broker that lost its store
        self.to_trio(self._connected, bool(flags.session_present), mid)

    def _on_message(self, client, userdata, msg) -> None:
        if msg.topic != self.topic or len(msg.payload) > MAX_ENVELOPE:
            client.ack(msg.mid, msg.qos)                 # not ours to keep: let the broker forget it
            return
        self.to_trio(self._arrived, msg.mid, bytes(msg.payload), bool(msg.dup), msg.qos)

    def _on_subscribe(self, client, userdata, mid, reason_codes, properties) -> None:
        failures = [str(r) for r in reason_codes if r.is_failure]
        self.to_trio(self._subscribed, mid, failures)

    def _on_publish(self, client, userdata, mid, reason_code, properties) -> None:
        with self._lock:
            if mid in self._pending:
                self._pending.discard(mid)
            else:
                self._published.add(mid)
        self.to_trio(self._acked)

    # ------------------------------------------------------------------ trio's thread
    def _connected(self, session_present: bool, mid: int) -> None:
        self.connection += 1
        if self.session_present is None:
            self.session_present = session_present
        elif not session_present:
            log.warning("postbox %s: the broker %s no longer held this seat's session (restarted without "
                        "its store?): what waited for it is lost; the others send it again", self.topic, self.url)
        self._subscribe_mid = mid

    def _subscribed(self, mid: int, failures: list[str]) -> None:
        if failures:
            self.refused = f"subscription to {self.topic} refused: {', '.join(failures)}"
            return
        if mid == self._subscribe_mid:
            self.ready.set()

    def disconnected(self, why: str) -> None:
        self.last_error = why
        if self.ready.is_set() and not self.closing:
            log.warning("postbox %s: connection to %s lost (%s); reconnecting", self.topic, self.url, why)
            self.ready = trio.Event()

    def _arrived(self, mid: int, payload: bytes, dup: bool, qos: int) -> None:
        self.last_arrival = trio.current_time()
        parcel = Parcel(mid, payload, dup, self.connection, qos)
        if self.queued_bytes + len(payload) > INBOUND_BYTES:
            self.dropped += 1                       # never acknowledged: the broker sends it again
            return
        try:
            self._send.send_nowait(parcel)
        except trio.WouldBlock:
            self.dropped += 1
            return
        self.queued_bytes += len(payload)

    def took(self, parcel: Parcel) -> None:
        """The node took `parcel` from `parcels` (its bytes no longer count against INBOUND_BYTES)."""
        self.queued_bytes -= len(parcel.envelope)

    def _acked(self) -> None:
        self._changed.set()
        self._changed = trio.Event()

    # ------------------------------------------------------------------ the node's side
    def send(self, inbox: str, envelope: bytes) -> None:
        """Publish `envelope` to seat `inbox`'s postbox (QoS 1: the broker keeps it for that seat
        until its node takes it); `flush` waits for the broker's acknowledgement."""
        self._track(self._client.publish(inbox_topic(self.game_id, inbox), envelope, qos=1))

    def retain(self, topic: str, payload: bytes, expiry: int) -> None:
        """Leave `payload` retained at `topic` for `expiry` s (b"": take it away), acknowledged
        like a `send`: a turn-based lobby's announcement, read by joiners who come later."""
        props = Properties(PacketTypes.PUBLISH)
        props.MessageExpiryInterval = expiry
        self._track(self._client.publish(topic, payload, qos=1, retain=True, properties=props if payload else None))

    def _track(self, info: mqtt.MQTTMessageInfo) -> None:
        if info.rc != mqtt.MQTT_ERR_SUCCESS and info.rc != mqtt.MQTT_ERR_NO_CONN:
            raise RelayError(f"the broker {self.url} did not take an envelope ({mqtt.error_string(info.rc)})")
        with self._lock:
            if info.mid in self._published:
                self._published.discard(info.mid)
            else:
                self._pending.add(info.mid)

    def unacknowledged(self) -> int:
        with self._lock:
            return len(self._pending)

    async def flush(self, timeout: float) -> bool:
        """Wait until the broker acknowledged every envelope sent (True), at most `timeout` s."""
        with trio.move_on_after(timeout):
            while self.unacknowledged():
                changed = self._changed
                with trio.move_on_after(0.5):        # paho re-sends unacknowledged ones after a reconnect
                    await changed.wait()
            return True
        return False

    def ack(self, parcel: Parcel) -> None:
        """The node has taken `parcel` (and stored what it changed): the broker may forget it.
        One from an earlier connection is not acknowledged (the broker sent it again on this one,
        under another number, or will at the next); nor one that came at QoS 0 (anyone may publish
        one to a seat's inbox: a PUBACK of its number 0 would be a protocol error, and the broker
        would cut this connection)."""
        if parcel.connection == self.connection and parcel.qos > 0:
            self._client.ack(parcel.mid, parcel.qos)

    async def drained(self, quiet: float, timeout: float) -> bool:
        """Wait until no envelope has come for `quiet` seconds since this postbox was ready
        (what waited on the broker has all come: a broker sends a session's queue at once),
        at most `timeout` s; False if envelopes kept coming."""
        with trio.move_on_after(timeout):
            await self.ready.wait()
            start = trio.current_time()
            while True:
                since = trio.current_time() - max(self.last_arrival, start)
                if since >= quiet:
                    return True
                await trio.sleep(quiet - since)
        return False


@asynccontextmanager
async def open_postbox(url: RelayUrl, game_id: bytes, key: bytes, time_limit: float,
                       timeout: float = CONNECT_TIMEOUT) -> AsyncIterator[Postbox]:
    """Seat `key`'s postbox for game `game_id` for the duration of the block (created on the
    broker at the first call, resumed after); RelayError (one line) if the broker does not
    accept it within `timeout`. Leaving the block disconnects without ending the session:
    the broker keeps collecting envelopes for this seat."""
    box = Postbox(url, game_id, key, session_expiry(time_limit))
    client = box._client
    props = Properties(PacketTypes.CONNECT)
    props.SessionExpiryInterval = box.expiry
    props.MaximumPacketSize = MAX_ENVELOPE + PACKET_OVERHEAD
    try:
        await box.start(client, url, props, False, box.ready, timeout)
        if box.refused is not None:
            raise RelayError(f"the broker {url} refused this seat's postbox: {box.refused}")
        if not box.ready.is_set():
            raise RelayError(f"cannot reach the broker {url} within {timeout:.0f} s ({box.last_error})")
        yield box
    finally:
        with trio.CancelScope(shield=True):
            box.closing = True
            with trio.move_on_after(2):
                await trio.to_thread.run_sync(stop_client, client, abandon_on_cancel=True)

