"""One relay link from the tab, through a broker (tab_broker), on the transport-free core:
protocol.link.relay_frames.RelayFrames for the frames and protocol.link.handshake for the
handshake, driven exactly as the desktop's trio shell (node/net/relay_link.py and
node/net/relay.py's Endpoint.open, node/net/handshake.handshake) drives them, with asyncio
in the worker instead of trio: the same topics, link ids, opens, pings and acks, so a desktop
node's relay link cannot tell a tab from a desktop.

The tab dials (`dial`): it opens `caravan/v1/<scope>/<peer>/<me>/<nonce>` (its frames to the
peer's inbox) and takes `caravan/v1/<scope>/<me>/<peer>/<nonce>`; or it serves its own inbox
(`TabEndpoint`), taking the links peers open to it. What the link refuses (a forged
or replayed frame, junk) is counted by RelayFrames and logged here, naming the link and,
once proven, the peer's key."""

from __future__ import annotations

import asyncio
import logging
import os
import time
from typing import Any, Callable

from protocol.identity import SigningKey, fingerprint
from protocol.link.framing import FrameError, encode
from protocol.link.handshake import Handshake, HandshakeError, inbox_of
from protocol.link.relay_frames import (ACCEPT, CLOSE, CLOSED, DATA, GAP_WAIT, IDLE_TIMEOUT, OPEN, PING_INTERVAL, WAIT,
                                        RelayFrames)
from protocol.link.relay_url import ROOT, scope_of

from tab_broker import BrokerError, TabBroker

DIAL_TIMEOUT = 3.0
HANDSHAKE_TIMEOUT = 20.0
PEER_SEAL_WAIT = 2.0
LOG_KEPT = 64
WAITING_LINKS = 8
"""Links a peer opened that wait for the tab to take them; more opens are refused (a flood)."""


class TabRelayLink:
    """A framed, msgpack-speaking link to one peer over the broker (see the module doc)."""

    def __init__(self, broker: TabBroker, scope: bytes, me: str, peer: str, nonce: str, *, dialer: bool):
        self.broker = broker
        self.out_topic = f"{ROOT}/{scope_of(scope)}/{peer}/{me}/{nonce}"
        self.in_topic = f"{ROOT}/{scope_of(scope)}/{me}/{peer}/{nonce}"
        self.link_id = "/".join((me, peer, nonce) if dialer else (peer, me, nonce)).encode()
        self.address = f"relay:{peer}/{nonce[:6]}"
        self.peer_key: bytes | None = None
        self.log: list[str] = []
        self._frames = RelayFrames(now=time.monotonic(), idle_timeout=IDLE_TIMEOUT, gap_wait=GAP_WAIT)
        self._frames.peer_inbox = peer
        self._arrived = asyncio.Event()
        self._window = asyncio.Event()
        self._peer_sealed = asyncio.Event()          # the peer said it sealed (or a sealed frame came)
        self._acked = 0
        self._pinger: asyncio.Task | None = None
        self.subscribed = False                      # to its own topic (a dialer's; a listener's inbox takes all)

    @property
    def forged(self) -> int:
        return self._frames.forged

    def _say(self, line: str) -> None:
        who = f" (peer {fingerprint(self.peer_key)})" if self.peer_key else ""
        self.log.append(f"relay link {self.address}{who}: {line}")
        del self.log[:-LOG_KEPT]

    def _flush(self) -> None:
        """Publish what the state machine gave, log what it refused, wake who waits."""
        frames = self._frames
        out, frames.outbox = frames.outbox, []
        for payload in out:
            self.broker.publish_soon(self.out_topic, payload, 1)
        for line in frames.warnings:
            self._say(line)
        frames.warnings.clear()
        if frames.peer_sealed:
            self._peer_sealed.set()
        if frames.acked != self._acked:
            self._acked = frames.acked
            self._window.set()

    def deliver(self, payload: bytes) -> None:
        """A message from the broker on this link's topic."""
        arrived = self._frames.deliver(payload, time.monotonic())
        self._flush()
        if arrived:
            self._arrived.set()

    def open(self, accept_within: float = DIAL_TIMEOUT) -> None:
        """A dialer's: the open, answered by the peer's accept within `accept_within` s."""
        self._frames.accept_by = time.monotonic() + accept_within
        self._frames.send_open(OPEN, time.monotonic())
        self._flush()
        self._pinger = asyncio.ensure_future(self._keepalive())

    def accept(self) -> None:
        """A listener's: answer the peer's open."""
        self._frames.send_open(ACCEPT, time.monotonic())
        self._flush()
        self._pinger = asyncio.ensure_future(self._keepalive())

    async def _keepalive(self) -> None:
        """A ping whenever the link was quiet for PING_INTERVAL (the peer's idle timer)."""
        while not self._frames.closed and self._frames.failed is None:
            await asyncio.sleep(PING_INTERVAL / 4)
            if time.monotonic() - self._frames.last_sent >= PING_INTERVAL:
                self._frames.ping(time.monotonic())
                self._flush()

    def seal(self, push: Any, pull: Any) -> None:
        self._frames.seal(push, pull, time.monotonic())
        self._flush()

    async def send(self, obj: Any) -> None:
        frames = self._frames
        if frames.push is not None and not self._peer_sealed.is_set():
            try:
                await asyncio.wait_for(self._peer_sealed.wait(), PEER_SEAL_WAIT)
            except asyncio.TimeoutError:
                pass
            frames.peer_sealed = True                 # a peer that says nothing: as the desktop does
            self._peer_sealed.set()
        while frames.window_full():
            self._window.clear()
            await self._window.wait()
        if frames.failed is not None or frames.closed:
            raise FrameError(frames.failed or "link closed")
        frames.send(DATA, encode(obj), time.monotonic())
        self._flush()

    async def recv(self, accept: Callable[[Any], bool] | None = None) -> Any:
        """The next frame's value (None: the peer closed); before sealing, the next unsealed
        frame `accept` takes (the others are dropped). FrameError when the link failed."""
        frames = self._frames
        while True:
            sealed = frames.pull is not None
            try:
                got = frames.next_sealed(time.monotonic()) if sealed else frames.next_unsealed(accept, time.monotonic())
            finally:
                self._flush()
            if got is not WAIT:
                return None if got is CLOSED else got
            deadline = frames.wake_at
            self._arrived.clear()
            if not sealed:
                frames.awaiting = accept
            try:
                await asyncio.wait_for(self._arrived.wait(), max(0.0, deadline - time.monotonic()))
            except asyncio.TimeoutError:
                pass
            finally:
                frames.awaiting = None
            frames.woke(deadline, time.monotonic())

    def fail(self, why: str) -> None:
        """The broker connection under this link broke: recv raises, send fails."""
        self._frames.fail(why)
        self._arrived.set()
        self._peer_sealed.set()
        self._window.set()

    def close(self) -> None:
        frames = self._frames
        if frames.closed:
            return
        if frames.failed is None:
            frames.send(CLOSE, b"", time.monotonic())
            try:
                self._flush()
            except BrokerError:                       # the broker connection is gone: nothing to tell
                frames.outbox.clear()
        frames.closed = True
        frames.fail("link closed")
        self.broker.on_lost.pop(self.in_topic, None)
        if self.subscribed:
            self.broker.unsubscribe_soon(self.in_topic)
        else:
            self.broker.routes.pop(self.in_topic, None)
        self._arrived.set()
        self._window.set()
        if self._pinger is not None:
            self._pinger.cancel()


async def dial(broker: TabBroker, key: SigningKey, scope: bytes, peer: str,
               timeout: float = HANDSHAKE_TIMEOUT) -> TabRelayLink:
    """A sealed link to the node owning inbox `peer` in `scope` (a lobby or game), after the
    handshake proved its key for this very link; HandshakeError or FrameError (one line) if not."""
    me = inbox_of(key.public)
    link = TabRelayLink(broker, scope, me, peer, os.urandom(8).hex(), dialer=True)
    broker.routes[link.in_topic] = link.deliver
    broker.on_lost[link.in_topic] = link.fail
    await broker.subscribe(link.in_topic, 1)
    link.subscribed = True
    link.open()
    return await handshake(link, key, scope, dialer=True, timeout=timeout)


async def handshake(link: TabRelayLink, key: SigningKey, scope: bytes, *, dialer: bool,
                    timeout: float = HANDSHAKE_TIMEOUT) -> TabRelayLink:
    """Run the handshake on `link` (as node/net/handshake.handshake does): the link sealed, the
    peer's key proven; else the link closed and HandshakeError or FrameError (one line)."""
    peer = link._frames.peer_inbox
    shake = Handshake(key, scope, dialer=dialer, now=time.monotonic(), timeout=timeout, link=link.link_id,
                      peer_inbox=peer)
    try:
        await asyncio.wait_for(_run_handshake(link, shake), timeout)
    except asyncio.TimeoutError:
        link.close()
        raise HandshakeError(f"no handshake with inbox {peer} within {timeout:.0f} s") from None
    except (HandshakeError, FrameError):
        link.close()
        raise
    return link


class TabEndpoint:
    """This tab's inbox in one scope (as node/net/relay.py's Endpoint serves): a peer's open on
    `caravan/v1/<scope>/<me>/<peer>/<nonce>` makes a link, answered at once with an accept,
    that waits (a few at most) for `next_link`."""

    def __init__(self, broker: TabBroker, key: SigningKey, scope: bytes, waiting: int = WAITING_LINKS):
        self.broker, self.key, self.scope = broker, key, scope
        self.me = inbox_of(key.public)
        self.prefix = f"{ROOT}/{scope_of(scope)}/{self.me}/"
        self.incoming: asyncio.Queue[TabRelayLink] = asyncio.Queue(waiting)
        self.refused = 0                              # opens past the queue's bound

    async def listen(self) -> None:
        """Take opens from now on, once the broker confirmed the subscription."""
        self.broker.prefixes[self.prefix] = self._opened
        await self.broker.subscribe(self.prefix + "+/+", 1)

    def _opened(self, topic: str, payload: bytes) -> None:
        parts = topic[len(self.prefix):].split("/")
        if len(parts) != 2 or payload[:9] != bytes(8) + OPEN:
            return                                    # for a link that is gone (or never was)
        peer, nonce = parts
        if self.incoming.full():
            self.refused += 1
            return
        link = TabRelayLink(self.broker, self.scope, self.me, peer, nonce, dialer=False)
        self.broker.routes[link.in_topic] = link.deliver
        self.broker.on_lost[link.in_topic] = link.fail
        link.accept()
        self.incoming.put_nowait(link)

    async def next_link(self, timeout: float) -> TabRelayLink | None:
        """The next link a peer opened (not yet handshaken), or None after `timeout` s."""
        try:
            return await asyncio.wait_for(self.incoming.get(), timeout)
        except asyncio.TimeoutError:
            return None


async def _run_handshake(link: TabRelayLink, shake: Handshake) -> None:
    await link.send(shake.hello)
    hello = await link.recv(accept=shake.fits)
    if hello is None:
        raise HandshakeError("the peer closed the link during the handshake")
    [auth] = shake.receive(hello, time.monotonic())
    link.peer_key = shake.peer_key
    await link.send(auth)
    answer = await link.recv(accept=shake.fits)
    if answer is None:
        raise HandshakeError("the peer closed the link during the handshake")
    shake.receive(answer, time.monotonic())
    link.seal(shake.push, shake.pull)


# ---------------------------------------------------------------- a seat's lasting links
REDIAL = (0.5, 8.0)
"""A link this tab dials that fails or closes is dialled again after the first pause, doubled
on each failure up to the second (s); back to the first once a link stayed up STEADY s."""
STEADY = 10.0
log = logging.getLogger("caravan.tab.relay")


class LastingLink:
    """A TabSeat's link to one other seat that outlives the relay links under it: their frames
    go into `inbox` (never None: the seat waits for the next link), `send` raises
    ConnectionError while none is up (the seat's resync covers the loss)."""

    def __init__(self, seat: int):
        self.seat = seat
        self.inbox: asyncio.Queue = asyncio.Queue()
        self.link: TabRelayLink | None = None
        self.lost = asyncio.Event()                   # set while no link is up
        self.lost.set()
        self.made = 0                                 # relay links this one had
        self._reader: asyncio.Future | None = None

    def attach(self, link: TabRelayLink) -> None:
        """`link` (handshaken, proven to be this seat's) replaces the current one."""
        old, self.link = self.link, link
        if self._reader is not None:
            self._reader.cancel()
        if old is not None:
            old.close()
        self.made += 1
        self.lost.clear()
        self._reader = asyncio.ensure_future(self._read(link))

    async def _read(self, link: TabRelayLink) -> None:
        try:
            while (frame := await link.recv()) is not None:
                await self.inbox.put(frame)
            why = "closed by the peer"
        except FrameError as exc:
            why = str(exc)
        if self.link is link:
            log.info("the link to seat %d (%s) is down: %s", self.seat, link.address, why)
            link.close()
            self.link = None
            self.lost.set()

    async def send(self, frame: dict) -> None:
        link = self.link
        if link is None:
            raise ConnectionError(f"no link to seat {self.seat} now")
        await link.send(frame)

    def close(self) -> None:
        if self._reader is not None:
            self._reader.cancel()
        if self.link is not None:
            self.link.close()
            self.link = None


class SeatLinks:
    """One seat's lasting links to every other seat of a game through the broker, as a desktop
    node keeps them: it dials the seats after it (again, with a bounded backoff, whenever a link
    fails or closes) and takes the links any seat opens to its inbox (a peer that lost its link,
    or reloaded, dials again), each proving the seat's key."""

    def __init__(self, broker: TabBroker, key: SigningKey, scope: bytes, seats: list[bytes], within: float,
                 endpoint: TabEndpoint | None = None):
        self.broker, self.key, self.scope, self.seats, self.within = broker, key, scope, seats, within
        self.me = seats.index(key.public)
        self.links = {s: LastingLink(s) for s in range(len(seats)) if s != self.me}
        self.endpoint = endpoint or TabEndpoint(broker, key, scope)
        """The game's inbox (one listened on already: a lobby's joiner's, tab_lobby)."""
        self._tasks: set[asyncio.Future] = set()

    def _spawn(self, job: Any) -> None:
        task = asyncio.ensure_future(job)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def start(self, wait: bool = True) -> None:
        """Listen and dial; with `wait`, until every link is up (ValueError naming the seats
        missing after `within` s, everything closed)."""
        if self.broker.prefixes.get(self.endpoint.prefix) is None:
            await self.endpoint.listen()
        self._spawn(self._accept())
        for peer in range(self.me + 1, len(self.seats)):
            self._spawn(self._keep(peer))
        if not wait:
            return
        try:
            await asyncio.wait_for(asyncio.gather(*(self._up(s) for s in self.links)), self.within)
        except asyncio.TimeoutError:
            missing = sorted(s for s, link in self.links.items() if link.link is None)
            self.close()
            raise ValueError(f"no link to seats {missing} within {self.within:g} s") from None

    async def _up(self, seat: int) -> None:
        while self.links[seat].link is None:
            await asyncio.sleep(0.05)

    async def _keep(self, peer: int) -> None:
        """Keep a link to `peer` up: dial it whenever there is none."""
        lasting, delay, up_at = self.links[peer], REDIAL[0], None
        while True:
            await lasting.lost.wait()
            if up_at is not None:                     # it was up: pause before dialling again
                delay = REDIAL[0] if time.monotonic() - up_at >= STEADY else delay
                await asyncio.sleep(delay)
                delay = min(REDIAL[1], delay * 2)
                up_at = None
                if not lasting.lost.is_set():
                    continue                          # the peer dialled meanwhile
            try:
                link = await dial(self.broker, self.key, self.scope, inbox_of(self.seats[peer]), timeout=self.within)
            except (HandshakeError, FrameError, BrokerError) as exc:
                log.info("dialling seat %d failed: %s; again in %g s", peer, exc, delay)
                await asyncio.sleep(delay)
                delay = min(REDIAL[1], delay * 2)
                continue
            if link.peer_key != self.seats[peer]:
                log.warning("the node at seat %d's inbox proved another key (%s)", peer, fingerprint(link.peer_key))
                link.close()
                await asyncio.sleep(delay)
                continue
            lasting.attach(link)
            up_at = time.monotonic()

    async def _accept(self) -> None:
        while True:
            link = await self.endpoint.next_link(3600)
            if link is not None:
                self._spawn(self._take(link))

    async def _take(self, link: TabRelayLink) -> None:
        try:
            link = await handshake(link, self.key, self.scope, dialer=False, timeout=self.within)
        except (HandshakeError, FrameError) as exc:
            log.info("a link opened to this tab failed its handshake: %s", exc)
            return
        seat = self.seats.index(link.peer_key) if link.peer_key in self.seats else None
        if seat is None or seat == self.me:
            log.warning("a link opened to this tab proved key %s, which holds no other seat; dropped",
                        fingerprint(link.peer_key))
            link.close()
            return
        self.links[seat].attach(link)

    def close(self) -> None:
        """Stop dialling and taking links; close every link."""
        for task in list(self._tasks):
            task.cancel()
        for lasting in self.links.values():
            lasting.close()
        if self.broker.prefixes.pop(self.endpoint.prefix, None) is not None:
            try:
                self.broker.unsubscribe_soon(self.endpoint.prefix + "+/+")
            except BrokerError:                       # the connection is gone: nothing to undo
                pass
