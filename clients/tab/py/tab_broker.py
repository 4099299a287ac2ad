"""The tab's MQTT connection, for Python in the worker: a small asyncio API over mqtt.js
(clients/tab/broker.js, registered by the worker as the JS module `_caravan_broker`).

Pyodide runs asyncio on the worker's JS event loop (its WebLoop), so `await` here waits for
mqtt.js's promises and timers without blocking anything: no busy loop, no thread. Messages
the broker sends are queued as they come (mqtt.js calls `_received` on the worker's thread),
bounded in count and bytes: past either bound a message is dropped and counted (a flood must
not eat the phone's memory; a relay link that loses a frame redials, as on the desktop).
A subscriber may instead take each message of a topic at once (`routes`), which is what the
relay link does (its own state machine holds and bounds what it keeps). A postbox's connection
(tab_postbox) hands each message with its packet number to its own taker instead, and holds
its acknowledgement until `ack`."""

from __future__ import annotations

import asyncio
from collections import deque
from urllib.parse import urlsplit, urlunsplit
from typing import Any, Callable

MAX_QUEUED = 1024
MAX_QUEUED_BYTES = 8 << 20
CONNECT_TIMEOUT = 10.0


class BrokerError(Exception):
    """The broker cannot be reached, refused us, or refused a subscription: one line."""


def _js() -> Any:
    import _caravan_broker  # type: ignore[import-not-found]  # registered by worker.js
    return _caravan_broker


def public_url(url: str) -> str:
    """`url` without its user and password (what messages and the page may show)."""
    parts = urlsplit(url)
    if parts.username is None and parts.password is None:
        return url
    host = parts.netloc.rpartition("@")[2]
    return urlunsplit((parts.scheme, host, parts.path, parts.query, parts.fragment))


def check_url(url: str) -> str:
    """A broker URL a tab can use: ws:// or wss:// (a browser opens no raw TCP), else BrokerError."""
    if type(url) is not str or not url.startswith(("ws://", "wss://")):
        shown = public_url(url) if type(url) is str else repr(url)
        raise BrokerError(f"{shown}: a tab reaches a broker by ws:// or wss:// only (the broker's websockets listener)")
    return url


class TabBroker:
    """One MQTT 5 connection from the tab (see the module doc)."""

    def __init__(self, max_queued: int = MAX_QUEUED, max_bytes: int = MAX_QUEUED_BYTES):
        self.url = ""
        self.max_queued, self.max_bytes = max_queued, max_bytes
        self.queue: deque[tuple[str, bytes]] = deque()
        self.queued_bytes = 0
        self.dropped = 0                          # messages over the queue's bounds
        self.events: list[str] = []               # the connection's news (lost, back), for the page
        self.routes: dict[str, Callable[[bytes], None]] = {}    # topic -> who takes it (not queued)
        self.prefixes: dict[str, Callable[[str, bytes], None]] = {}   # topic prefix -> taker (an inbox)
        self.on_lost: dict[str, Callable[[str], None]] = {}     # told when the connection drops
        self.watchers: list[Callable[[str, str], None]] = []     # told every event (kind, detail)
        self._arrived = asyncio.Event()
        self._id: int | None = None
        self._proxies: list[Any] = []

    async def connect(self, url: str, client_id: str, *, clean_start: bool = True, session_expiry: int = 0,
                      timeout: float = CONNECT_TIMEOUT, postbox: Callable[..., None] | None = None,
                      max_packet: int = 0) -> "TabBroker":
        """Connect (MQTT 5) as `client_id`; with clean_start False and a session_expiry (s),
        the broker keeps this client's subscriptions and its QoS 1 messages while it is away.
        With `postbox` (and a `max_packet` size, bytes), every message goes to
        postbox(topic, payload, mid, qos, dup, connection) and is acknowledged only by `ack`."""
        from pyodide.ffi import JsException, create_proxy
        self.url = public_url(check_url(url))
        self._proxies = [create_proxy(postbox or self._received), create_proxy(self._event)]
        try:
            self._id = await _js().connect(url, client_id, clean_start, int(session_expiry), int(timeout * 1000),
                                           *self._proxies, max_packet if postbox else 0)
        except JsException as e:
            self._drop_proxies()
            raise BrokerError(_message(e)) from None
        return self

    def _drop_proxies(self) -> None:
        for proxy in self._proxies:
            proxy.destroy()
        self._proxies = []

    def _received(self, topic: str, payload: Any) -> None:
        data = payload.to_bytes()
        taker = self.routes.get(topic)
        if taker is not None:
            taker(data)
            return
        for prefix, inbox in self.prefixes.items():
            if topic.startswith(prefix):
                inbox(topic, data)
                return
        if len(self.queue) >= self.max_queued or self.queued_bytes + len(data) > self.max_bytes:
            self.dropped += 1
            return
        self.queue.append((topic, data))
        self.queued_bytes += len(data)
        self._arrived.set()

    def _event(self, kind: str, detail: str) -> None:
        self.events.append(f"{kind}: {detail}" if detail else kind)
        del self.events[:-32]
        for watcher in list(self.watchers):
            watcher(kind, detail)
        if kind == "close":                       # mqtt.js reconnects; what ran over it must start again
            for hook in list(self.on_lost.values()):
                hook(f"the connection to the broker {self.url} was lost")

    def _need(self) -> int:
        if self._id is None:
            raise BrokerError("not connected to a broker")
        return self._id

    async def subscribe(self, topic: str, qos: int = 1) -> int:
        """Subscribe and wait for the broker's answer: the QoS it granted."""
        from pyodide.ffi import JsException
        try:
            return int(await _js().subscribe(self._need(), topic, qos))
        except JsException as e:
            raise BrokerError(_message(e)) from None

    def unsubscribe_soon(self, topic: str) -> None:
        """Stop taking `topic` (and drop what still comes on it until the broker has it)."""
        self.routes[topic] = lambda data: None
        if self._id is not None:
            forget = lambda *_: self.routes.pop(topic, None)      # noqa: E731 - either way, forget the topic
            _js().unsubscribe(self._id, topic).then(forget, forget)

    def publish_soon(self, topic: str, payload: bytes, qos: int = 1, *, retain: bool = False, expiry: int = 0) -> Any:
        """Queue a message in mqtt.js at once (in call order, so frames keep their order):
        the promise of its being written (QoS 0) or acknowledged (QoS 1). `retain`: left on
        the topic for later subscribers, for `expiry` s if > 0."""
        from pyodide.ffi import to_js
        if qos not in (0, 1):
            raise BrokerError(f"QoS {qos}: a tab publishes with QoS 0 or 1")
        return _js().publish(self._need(), topic, to_js(payload), qos, retain, int(expiry))

    def connection(self) -> int:
        """Which connection is up: mqtt.js counts its CONNACKs (a reconnect starts a new one)."""
        return int(_js().connection(self._need()))

    def ack(self, connection: int, mid: int, qos: int) -> bool:
        """A postbox connection's PUBACK of message `mid` (see broker.js `ack`): sent or not."""
        return bool(_js().ack(self._need(), connection, mid, qos))

    async def publish(self, topic: str, payload: bytes, qos: int = 1) -> None:
        from pyodide.ffi import JsException
        try:
            await self.publish_soon(topic, payload, qos)
        except JsException as e:
            raise BrokerError(_message(e)) from None

    async def next_message(self, timeout: float) -> tuple[str, bytes] | None:
        """The next queued message, or None if none came within `timeout` seconds."""
        if not self.queue:
            self._arrived.clear()
            try:
                await asyncio.wait_for(self._arrived.wait(), timeout)
            except asyncio.TimeoutError:
                return None
        topic, data = self.queue.popleft()
        self.queued_bytes -= len(data)
        return topic, data

    async def close(self) -> None:
        if self._id is not None:
            ident, self._id = self._id, None
            await _js().end(ident)
        self._drop_proxies()


def _message(e: Exception) -> str:
    """A JS error's own message (without Pyodide's 'Error: ' prefix)."""
    text = str(getattr(e, "message", "") or e)
    return text.removeprefix("Error: ")
