"""Games through an MQTT broker (issue 14): every node connects *out* to the broker, so NAT
does not matter, and the broker only forwards bytes it cannot read or forge.

One paho-mqtt client per connection, run by paho's own network thread (it connects,
reconnects with backoff and pings); its callbacks hand everything to trio's thread with
`TrioToken.run_sync_soon` (messages in batches: one wake-up of trio's thread for all that came
while it was busy, not one each; under a flood each wake-up cost the network thread a wait for
the GIL), and publishing (thread-safe in paho) queues a packet for that thread. Over it, `Endpoint`s speak for this node in one lobby or game and open `RelayLink`s
(node/net/relay_link.py), which the lobby and game code use exactly like TCP connections.

Topics (MQTT 5, QoS 1, never retained except the lobby announcement):
`caravan/v1/<scope>/<to>/<from>/<link>`: one link's frames from inbox `from` to inbox `to`,
where scope is the lobby id or the game id's first 16 bytes (hex), an inbox is the first 8
bytes of the node's key pin (hex, `handshake.inbox_of`: a lobby's host too, so a joiner
dials the inbox its invite names), and link a fresh 8-byte nonce per dial.
`caravan/v1/<lobby>/lobby`: the retained lobby announcement, cleared at game start.
A node's connection subscribes to `caravan/v1/<scope>/<its inbox>/+/+` for each scope it is
in (a lobby's connection to that lobby's only, a game's to that game's only: a flood aimed at
a lobby never reaches the game's connection, nor the reverse), or to every scope
(`caravan/v1/+/<its inbox>/+/+`) when it names none. Each connection also tells the broker the
largest packet it takes (MQTT 5 Maximum Packet Size, from the largest frame its links read):
the broker drops anything bigger before it costs the node a byte, so junk megabytes sent to a
lobby host's inbox are the broker's work, not the host's (issue 31). What a broker and its
other clients can and cannot do: specs/node.md "Relay", threat model."""

from __future__ import annotations

import json
import logging
import os
import socket
import threading
from collections import deque
from contextlib import asynccontextmanager
from typing import Any, AsyncIterator, Awaitable, Callable

import paho.mqtt.client as mqtt
import trio
from paho.mqtt.enums import CallbackAPIVersion
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from protocol.link.relay_url import PACKET_OVERHEAD, ROOT, lobby_topic, scope_of

from .frames import MAX_FRAME
from .handshake import inbox_of
from .relay_link import ACCEPT, OPEN, PING_INTERVAL, RelayLink
from .relay_url import WS_PATH, RelayUrl

log = logging.getLogger("caravan.relay")

CONNECT_TIMEOUT = 10.0
"""The broker must accept the first connection within this many seconds."""
DIAL_TIMEOUT = 3.0
"""A dialled inbox must accept within this many seconds (else: nobody is there now)."""
RECONNECT = (0.25, 2.0)
"""paho's reconnect backoff after the broker went away: first and longest pause (s)."""
KEEPALIVE = 15
"""MQTT keepalive (s): how soon the broker notices a node that vanished."""
ANNOUNCE_EXPIRY = 3600
"""A lobby announcement expires after this many seconds even if its host never clears it."""
DISPATCH_BATCH = 64
"""Messages handed to the links in one go before trio's other tasks get a turn."""
INBOUND_BYTES = 32 << 20
"""Bytes of messages paho's thread may queue for trio: past it (a flood trio cannot keep up
with) new messages are dropped there, at no cost; a genuine link that loses one closes and
redials (its gap), as after any lost frame."""
EARLY_OPENS = 32
"""Opens held for an endpoint not registered yet (a game a peer started a moment earlier)."""


class RelayError(OSError):
    """The broker cannot be reached or refused us; one line naming the broker and why."""


class PahoBridge:
    """paho's network thread to trio's, shared by the relay connection and the postboxes
    (node/net/postbox.py): each callback hands its news to trio's thread with `to_trio`; `refused`
    says why the broker refused us, `last_error` why the last connection failed or ended; a
    subclass says in `disconnected` what a lost connection means to it."""

    def __init__(self) -> None:
        self.trio_token = trio.lowlevel.current_trio_token()
        self.refused: str | None = None
        self.last_error = "no answer"

    def attach(self, client: mqtt.Client) -> None:
        client.on_disconnect = self.on_disconnect
        client.on_connect_fail = self.on_connect_fail

    def to_trio(self, fn: Callable, *args: Any) -> None:
        """Run fn(*args) soon in trio's thread (nothing once trio's run has ended)."""
        try:
            self.trio_token.run_sync_soon(fn, *args)
        except trio.RunFinishedError:
            pass

    def on_disconnect(self, client, userdata, flags, reason_code, properties) -> None:
        self.to_trio(self.disconnected, str(reason_code))

    def on_connect_fail(self, client, userdata) -> None:
        self.to_trio(self.connect_failed)

    def refused_by_broker(self, why: str) -> None:
        self.refused = why

    def connect_failed(self) -> None:
        self.last_error = "connection failed (nothing answers there, or TLS failed)"

    def disconnected(self, why: str) -> None:
        self.last_error = why

    async def start(self, client: mqtt.Client, url: RelayUrl, props: Properties, clean_start: bool,
                    ready: trio.Event, timeout: float, poll: Callable[[], None] = lambda: None) -> None:
        """Connect `client` and wait (at most `timeout`) until `ready` or refused; the caller
        says what a refusal or a silence means (`refused`, `ready`)."""
        try:
            client.connect_async(url.host, url.port, keepalive=KEEPALIVE, clean_start=clean_start,
                                 properties=props)
        except (OSError, ValueError) as exc:
            raise RelayError(f"cannot reach the broker {url}: {exc}") from None
        client.loop_start()
        with trio.move_on_after(timeout):
            while not ready.is_set() and self.refused is None:
                await trio.sleep(0.02)
                poll()


class Relay(PahoBridge):
    """This node's connection to the broker (see the module doc); open it with `connect`."""

    def __init__(self, url: RelayUrl, inbox: str, scopes: list[bytes] | None = None):
        self.url = url
        self.inbox = inbox
        super().__init__()
        self._client = new_client(url, f"caravan-{os.urandom(8).hex()}")
        self._client.max_inflight_messages_set(0)       # unlimited: a dropped PUBACK must not stall us
        self._client.on_connect = self._on_connect
        self.attach(self._client)
        self._client.on_message = self._on_message
        self._client.on_subscribe = self._on_subscribe
        self._topics_lock = threading.Lock()
        self._topics: list[str] = ([f"{ROOT}/+/{inbox}/+/+"] if scopes is None     # resubscribed at
                                   else [self._inbox_topic(s) for s in scopes])   # every (re)connect
        self._retained: dict[str, bytes] = {}                   # republished at every reconnect
        self.ready = trio.Event()                               # connected and subscribed
        self._ready_mid: int | None = None                      # the SUBSCRIBE that makes us ready
        self._subscribed_at = 0.0
        self._acks: dict[int, trio.Event] = {}
        self._acked: set[int] = set()
        self.links: dict[tuple[str, str, str, str], RelayLink] = {}   # (scope, me, peer, nonce)
        self.endpoints: dict[tuple[str, str], Endpoint] = {}
        self._early: list[tuple[float, str, str, str, str]] = []
        self._announcements: dict[str, trio.Event] = {}
        self._announced: dict[str, bytes] = {}
        self.connected_once = False
        self.closing = False
        self._inbound: deque[tuple[str, bytes]] = deque()     # from paho's thread, in arrival order
        self._queued_bytes = 0          # payload bytes ever queued (written by paho's thread only)
        self._taken_bytes = 0           # ... and taken (by trio's only): no lock needed
        self.dropped_inbound = 0                               # messages dropped over that bound
        self._drain_due = False                                # a _drain is scheduled in trio's

    # ------------------------------------------------------------------ paho's thread
    def _on_connect(self, client, userdata, flags, reason_code, properties) -> None:
        if reason_code.is_failure:
            self.to_trio(self.refused_by_broker, str(reason_code))
            return
        with self._topics_lock:
            topics = [(t, 1) for t in self._topics]
            retained = dict(self._retained)
        mid = client.subscribe(topics)[1] if topics else None      # None: nothing to wait for
        for topic, payload in retained.items():
            client.publish(topic, payload, qos=1, retain=True, properties=self._expiry())
        self.to_trio(self._connected, mid)

    def _on_message(self, client, userdata, msg) -> None:
        size = len(msg.payload)
        if self._queued_bytes - self._taken_bytes + size > INBOUND_BYTES:
            self.dropped_inbound += 1
            if self.dropped_inbound == 1:            # once: a flood's thousands would cost more
                log.warning("relay %s: over %d MiB of messages waiting; dropping new ones (a flood?)",
                            self.url, INBOUND_BYTES >> 20)
            return
        self._queued_bytes += size
        self._inbound.append((msg.topic, bytes(msg.payload)))
        if not self._drain_due:
            self._drain_due = True
            self.to_trio(self._drain)

    def _on_subscribe(self, client, userdata, mid, reason_codes, properties) -> None:
        self.to_trio(self._subscribed, mid, [str(r) for r in reason_codes if r.is_failure])

    # ------------------------------------------------------------------ trio's thread
    def _connected(self, mid: int | None) -> None:
        self._ready_mid = mid
        self._subscribed_at = trio.current_time()
        if mid is None or mid in self._acked:
            self._subscribed(mid, [])

    def _subscribed(self, mid: int | None, failures: list[str]) -> None:
        if failures:
            log.warning("relay %s: subscription refused: %s", self.url, ", ".join(failures))
        if mid == self._ready_mid:
            if self.connected_once:
                log.warning("relay %s: reconnected; links redial and resync", self.url)
            self.connected_once = True
            self.ready.set()
        event = self._acks.pop(mid, None) if mid is not None else None
        if event is not None:
            event.set()
        elif mid is not None and mid != self._ready_mid:
            self._acked.add(mid)                   # `subscribe` has not registered it yet

    def disconnected(self, why: str) -> None:
        if self.ready.is_set() and not self.closing:
            log.warning("relay %s: connection lost (%s); reconnecting", self.url, why)
        self.last_error = why
        if self.ready.is_set():                  # waiters on the unset one keep waiting on it
            self.ready = trio.Event()
        self._ready_mid = None
        for link in list(self.links.values()):
            link.fail(f"the connection to the broker {self.url} was lost ({why})")

    def _drain(self) -> None:
        """The messages paho's thread queued, DISPATCH_BATCH at a time (then trio's other
        tasks run before the next batch). The flag is cleared first: a message queued while
        this runs either is taken by it or schedules another drain."""
        self._drain_due = False
        for _ in range(DISPATCH_BATCH):
            try:
                topic, payload = self._inbound.popleft()
            except IndexError:
                return
            self._taken_bytes += len(payload)
            self._dispatch(topic, payload)
        if self._inbound and not self._drain_due:
            self._drain_due = True
            self.to_trio(self._drain)

    def _dispatch(self, topic: str, payload: bytes) -> None:
        parts = topic.split("/")
        if len(parts) == 4 and parts[3] == "lobby":
            self._announced[parts[2]] = payload
            event = self._announcements.get(parts[2])
            if event is not None:
                event.set()
            return
        if len(parts) != 6:
            return
        scope, me, peer, nonce = parts[2:]
        link = self.links.get((scope, me, peer, nonce))
        if link is not None:
            link.deliver(payload)
            return
        if payload[:9] != bytes(8) + OPEN:
            return                                  # for a link that is gone (or never was)
        endpoint = self.endpoints.get((scope, me))
        if endpoint is None:
            if me == self.inbox:                    # a game this node starts a moment later
                now = trio.current_time()
                self._early = [e for e in self._early if now - e[0] < DIAL_TIMEOUT][-EARLY_OPENS + 1:]
                self._early.append((now, scope, me, peer, nonce))
            return
        endpoint._opened(peer, nonce)

    def publish(self, topic: str, payload: bytes) -> None:
        self._client.publish(topic, payload, qos=1)

    def _expiry(self) -> Properties:
        props = Properties(PacketTypes.PUBLISH)
        props.MessageExpiryInterval = ANNOUNCE_EXPIRY
        return props

    async def subscribe(self, topic: str) -> None:
        """Subscribe (now and after every reconnect) and wait for the broker's answer."""
        with self._topics_lock:
            self._topics.append(topic)
        await self.ready.wait()
        result, mid = self._client.subscribe(topic, qos=1)
        if mid in self._acked:
            self._acked.discard(mid)
            return
        event = self._acks[mid] = trio.Event()
        with trio.move_on_after(DIAL_TIMEOUT):
            await event.wait()

    def unsubscribe(self, topic: str) -> None:
        with self._topics_lock:
            if topic in self._topics:
                self._topics.remove(topic)
        self._client.unsubscribe(topic)

    def _check_subscribed(self) -> None:
        """Subscribe again if the broker's answer to the last (re)connect's SUBSCRIBE was lost."""
        now = trio.current_time()
        if self._ready_mid is not None and not self.ready.is_set() and now - self._subscribed_at > DIAL_TIMEOUT:
            with self._topics_lock:
                topics = [(t, 1) for t in self._topics]
            self._ready_mid = None
            self._connected(self._client.subscribe(topics)[1] if topics else None)

    async def _keepalive(self) -> None:
        """Ping every link that has been quiet for PING_INTERVAL (its peer's idle timer)."""
        while True:
            await trio.sleep(PING_INTERVAL / 4)
            now = trio.current_time()
            self._check_subscribed()
            for link in list(self.links.values()):
                if now - link.last_sent >= PING_INTERVAL:
                    link.ping()

    # ------------------------------------------------------------------ lobbies and games
    def _inbox_topic(self, scope: bytes) -> str:
        return f"{ROOT}/{scope_of(scope)}/{self.inbox}/+/+"

    async def listen(self, scope: bytes) -> None:
        """Take links in `scope` too (a game about to start on a connection opened with none),
        once the broker confirmed it: a peer's first dial must not fall in between."""
        await self.subscribe(self._inbox_topic(scope))

    def endpoint(self, scope: bytes, inbox: str | None = None) -> "Endpoint":
        """This node in one lobby or game (under its own inbox unless `inbox` is given)."""
        endpoint = Endpoint(self, scope_of(scope), inbox or self.inbox)
        self.endpoints[(endpoint.scope, endpoint.me)] = endpoint
        early, self._early = self._early, []
        for _, s, me, peer, nonce in early:
            if (s, me) == (endpoint.scope, endpoint.me):
                endpoint._opened(peer, nonce)
            else:
                self._early.append((_, s, me, peer, nonce))
        return endpoint

    def announce(self, lobby: bytes, status: dict[str, Any]) -> None:
        """The retained lobby announcement (what a joiner checks first), until `clear`."""
        topic = lobby_topic(lobby)
        payload = json.dumps(status).encode()
        with self._topics_lock:
            self._retained[topic] = payload
        self._client.publish(topic, payload, qos=1, retain=True, properties=self._expiry())

    def clear(self, lobby: bytes) -> None:
        topic = lobby_topic(lobby)
        with self._topics_lock:
            self._retained.pop(topic, None)
        self._client.publish(topic, b"", qos=1, retain=True)

    async def lookup(self, lobby: str, timeout: float = 3.0) -> dict[str, Any] | None:
        """The lobby's announcement, if the broker holds one (None: no such open lobby seen)."""
        topic = f"{ROOT}/{lobby}/lobby"
        event = self._announcements[lobby] = trio.Event()
        try:
            await self.subscribe(topic)
            with trio.move_on_after(timeout):
                await event.wait()
        finally:
            self._announcements.pop(lobby, None)
            self.unsubscribe(topic)
        try:
            found = json.loads(self._announced.get(lobby) or b"null")
        except ValueError:
            return None
        return found if type(found) is dict else None


class Endpoint:
    """This node's inbox in one lobby or game: dial a peer's inbox, or serve incoming links."""

    def __init__(self, relay: Relay, scope: str, me: str):
        self.relay, self.scope, self.me = relay, scope, me
        self._incoming_send, self._incoming = trio.open_memory_channel[RelayLink](64)

    def _link(self, peer: str, nonce: str, dialer: bool) -> RelayLink:
        out = f"{ROOT}/{self.scope}/{peer}/{self.me}/{nonce}"
        key = (self.scope, self.me, peer, nonce)
        link = RelayLink(lambda payload: self.relay.publish(out, payload), f"relay:{peer}/{nonce[:6]}",
                         lambda _: self.relay.links.pop(key, None), dialer=dialer)
        link.topic = out
        link.peer_inbox = peer                      # only the key owning it can sign a hello for it
        link.link_id = "/".join((self.me, peer, nonce) if dialer else (peer, self.me, nonce)).encode()
        self.relay.links[key] = link
        return link

    def _opened(self, peer: str, nonce: str) -> None:
        if not self.relay.ready.is_set():
            return
        link = self._link(peer, nonce, dialer=False)
        try:
            self._incoming_send.send_nowait(link)
        except trio.WouldBlock:
            log.warning("relay: %s refused: too many links waiting to be served", link.address)
            link.fail("refused")
            self.relay.links.pop((self.scope, self.me, peer, nonce), None)
            return
        link.send_open(ACCEPT)

    async def open(self, peer: str | bytes, accept_within: float = DIAL_TIMEOUT) -> RelayLink:
        """A link to `peer` (an inbox, or a seat's key) as soon as its open went out, before
        the answer: its first frames may follow at once (a lobby joiner's hello, so that the
        host reads both together); its `recv` fails if no answer came within `accept_within`
        seconds. RelayError if the broker is not reachable within that time."""
        inbox = inbox_of(peer) if isinstance(peer, bytes) else peer
        with trio.move_on_after(accept_within):
            await self.relay.ready.wait()
        if not self.relay.ready.is_set():
            raise RelayError(f"the broker {self.relay.url} is not reachable now ({self.relay.last_error})")
        link = self._link(inbox, os.urandom(8).hex(), dialer=True)
        link.accept_by = trio.current_time() + accept_within
        link.send_open(OPEN)
        return link

    async def dial(self, peer: str | bytes, timeout: float = DIAL_TIMEOUT) -> RelayLink:
        """A link to `peer` (an inbox, or a seat's key), once it accepted; RelayError if nobody
        there answers within `timeout` (it is offline, or not in this lobby or game)."""
        link = await self.open(peer, timeout)
        with trio.move_on_at(link.accept_by):
            await link.accepted.wait()
        if not link.accepted.is_set():
            await link.aclose()
            raise RelayError(f"nobody answered at inbox {link.peer_inbox} through {self.relay.url} "
                             f"within {timeout:.0f} s")
        return link

    async def serve(self, handler: Callable[[RelayLink], Awaitable[Any]],
                    task_status=trio.TASK_STATUS_IGNORED) -> None:
        """Run `handler` on every incoming link (like trio.serve_listeners)."""
        try:
            async with trio.open_nursery() as nursery:
                task_status.started()
                async for link in self._incoming:
                    nursery.start_soon(_handle, handler, link)
        finally:
            self.close()                         # no more accepts: a late dialer times out and retries

    def close(self) -> None:
        """No more accepts, and the links opened to it that nobody served are closed: an
        endpoint used only to dial (a joiner's in a lobby) kept them, each registered with
        the relay, until the node left the broker."""
        self.relay.endpoints.pop((self.scope, self.me), None)
        while True:
            try:
                link = self._incoming.receive_nowait()
            except (trio.WouldBlock, trio.EndOfChannel):
                break
            link.close_now()


async def _handle(handler: Callable[[RelayLink], Awaitable[Any]], link: RelayLink) -> None:
    try:
        await handler(link)
    finally:
        await link.aclose()


@asynccontextmanager
async def connect(url: RelayUrl, key: bytes, timeout: float = CONNECT_TIMEOUT, *,
                  scopes: list[bytes] | None = None, max_frame: int = MAX_FRAME) -> AsyncIterator[Relay]:
    """This node's relay connection for the duration of the block; RelayError (one line) if
    the broker does not accept it within `timeout`. It takes links in `scopes` (lobby ids or
    game ids; every scope when None, none until `listen` when empty), and no frame over
    `max_frame` bytes reaches it (the broker drops them: see the module doc)."""
    relay = Relay(url, inbox_of(key), scopes)
    client = relay._client
    props = Properties(PacketTypes.CONNECT)
    props.MaximumPacketSize = max_frame + PACKET_OVERHEAD
    try:
        await relay.start(client, url, props, True, relay.ready, timeout, relay._check_subscribed)
        if relay.refused is not None:
            raise RelayError(f"the broker {url} refused this node: {relay.refused} "
                             "(check the user and password: --relay-auth FILE or mqtt://USER:PASSWORD@HOST)")
        if not relay.ready.is_set():
            raise RelayError(f"cannot reach the broker {url} within {timeout:.0f} s ({relay.last_error})")
        async with trio.open_nursery() as nursery:
            nursery.start_soon(relay._keepalive)
            yield relay
            nursery.cancel_scope.cancel()
    finally:
        with trio.CancelScope(shield=True):
            relay.closing = True
            for link in list(relay.links.values()):
                await link.aclose()
            with trio.move_on_after(2):           # let the last frames (closes, the final heads) go out
                await trio.to_thread.run_sync(stop_client, client, abandon_on_cancel=True)


def new_client(url: RelayUrl, client_id: str, manual_ack: bool = False) -> mqtt.Client:
    """A paho MQTT 5 client for the broker at `url` (TCP or websockets, TLS, its login), with
    the reconnect delays and no Nagle delay: the relay's and the postboxes' (node/net/postbox.py)."""
    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=client_id, protocol=mqtt.MQTTv5,
                         transport="websockets" if url.websockets else "tcp", manual_ack=manual_ack)
    if url.websockets:
        client.ws_set_options(path=WS_PATH)
    if url.username is not None:
        client.username_pw_set(url.username, url.password)
    if url.tls:
        client.tls_set()
    client.reconnect_delay_set(*RECONNECT)
    client.on_socket_open = _no_delay
    return client


def _no_delay(client, userdata, sock) -> None:
    """Frames are small and each one waits for an answer: Nagle's algorithm would hold them
    back tens of milliseconds (the broker should set `set_tcp_nodelay true` too)."""
    try:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    except (OSError, AttributeError):
        pass


def stop_client(client: mqtt.Client) -> None:
    """Disconnect and stop paho's thread (blocking: call it from a worker thread)."""
    try:
        client.disconnect()
    finally:
        client.loop_stop()
