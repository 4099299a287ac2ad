"""One link to a peer through an MQTT broker, with the interface of frames.Connection
(`send`, `recv`, `seal`, `aclose`, `address`, `max_frame`), so the handshake, the sealing,
gossip, resync and abandon code run over it unchanged.

Each MQTT message is one frame: an 8-byte big-endian sequence number (in the clear), then
the body: one type byte and a msgpack value. Types: "O" open (seq 0, dialer -> listener), "A"
accept (seq 0, back), "D" data, "P" ping (keeps a quiet link alive), "C" close, "K" ack (the
count of sealed frames the receiver took, for the sender's window).

A broker never pushes back (publishing returns at once) while the receiver holds only
MAX_HELD frames: a burst (a spectator's history, a resync) from a fast sender to a slower
receiver lost frames and the link closed as having lost one (issue 31). So sealed links have
TCP's flow control: a sender has at most WINDOW sealed frames the receiver has not said it
took; the receiver says so every ACK_EVERY frames its `recv` takes, and `send` waits for it.
Frames are opened as they arrive (acks and pings are taken there and then, so a sender busy
in a task that also reads still sees its window open), and the data waits for `recv`.

Two numberings, per link and direction (issue 27): the frames of the handshake go before
the link is sealed, in the clear, with the PRESEAL bit set in their seq; every frame after
it is sealed as one crypto_secretstream message and numbered from 1.

The broker, or anyone able to publish on the link's topic, is untrusted: it may drop,
duplicate, delay, reorder, replay or forge messages. Before the link is sealed nothing is
authentic by itself, so the handshake says what it waits for (`recv(accept=...)`: a hello
signed for this link by the key that owns the peer's inbox, then an auth signed over this
exchange): every unsealed frame is checked against that as it comes, the first that fits
is taken and the others are dropped, so an injected hello, auth or a competing "host"
cannot displace the real peer's (at most PRESEAL_HELD unsealed frames wait between two
steps). Sealed frames: a seq already passed is a duplicate and is dropped; frames ahead of
the next expected seq wait in a bounded buffer (smaller before the link is sealed, and then
the oldest make room); at the
expected seq each candidate is opened in arrival order and one that fails authentication is
logged and dropped (secretstream's pull leaves its state unchanged on failure,
tests/relay/test_relay_link.py checks it), so an injected message never breaks a link. A
frame truly lost (no authentic frame at the expected seq while later ones wait for
GAP_WAIT) closes the link: the node redials and the heads-based resync fills the gap."""

from __future__ import annotations

import logging
import struct
from collections import deque
from typing import Any, Callable

import msgpack
import nacl.bindings as sodium
import nacl.exceptions
import trio

from .frames import MAX_FRAME, FrameError, encode, no_ext

log = logging.getLogger("caravan.relay")

_SEAL = sodium.crypto_secretstream_xchacha20poly1305_ABYTES
OPEN, ACCEPT, DATA, PING, CLOSE, SEALED, ACK = b"O", b"A", b"D", b"P", b"C", b"S", b"K"
PING_INTERVAL = 2.0
"""A link that sent nothing for this long sends a ping (the peer then knows it is alive)."""
IDLE_TIMEOUT = 10.0
"""A link that received no authentic frame for this long is dead (its peer or the broker left)."""
GAP_WAIT = 4.0
"""A frame missing this long while later ones wait was lost: the link is closed (redial, resync)."""
MAX_HELD = 512
MAX_HELD_BYTES = 8 << 20
"""Frames (and bytes) held per link ahead of the expected seq or competing for it; more are dropped."""
WINDOW = 256
"""Sealed frames a sender may have ahead of the receiver's last ack (well under MAX_HELD:
the acks come every ACK_EVERY frames, pings and acks go outside the window)."""
ACK_EVERY = 64
"""The receiver acks after taking this many sealed frames since its last ack."""
PRESEAL = 1 << 63
"""The seq bit of a frame sent before the link was sealed (the handshake's, in the clear)."""
PRESEAL_HELD = 16
PRESEAL_FRAME = 4 << 10
"""Unsealed frames waiting between two handshake steps (oldest dropped first), each at most
PRESEAL_FRAME bytes: a handshake frame or a lobby's advert is far smaller."""
OVERSLEPT = 1.0
WAKE_GRACE = 2.0
"""A wait that ends OVERSLEPT seconds after its deadline means this process was not run
(the machine suspended, or the process starved): before the link is called dead, what came
meanwhile (still on its way through the broker connection's thread) gets WAKE_GRACE seconds."""
PEER_SEAL_WAIT = 2.0
"""How long `send` holds data for a peer that has not yet sealed the link (see `seal`)."""
UNSEALED_HELD = 16
UNSEALED_HELD_BYTES = 64 << 10
"""Sealed frames held (frames, bytes) before this side has sealed the link: a peer sends a
few at most, nobody can authenticate them yet, so a flood of them is capped low, and the
oldest make room for new ones (junk sent ahead cannot crowd out the real peer's first)."""
_CLOSED = object()
_NOTHING = object()


class RelayLink:
    """A framed, msgpack-speaking link to one peer over the broker (see the module doc)."""

    def __init__(self, publish: Callable[[bytes], None], address: str, on_close: Callable[["RelayLink"], None],
                 *, dialer: bool, max_frame: int = MAX_FRAME):
        self._publish = publish
        self.address = address
        self.topic = ""                              # where its frames go (set by the endpoint)
        self.max_frame = max_frame
        self._on_close = on_close
        self._out_seq = 1                            # sealed frames; open and accept are seq 0
        self._pre_seq = 1                            # unsealed frames, sent as PRESEAL | n
        self._expect = 1
        self._pre: deque[Any] = deque(maxlen=PRESEAL_HELD)
        self._need: Callable[[Any], bool] | None = None   # what a waiting recv accepts (unsealed)
        self._fit: Any = _NOTHING                    # the unsealed frame it accepted
        self.peer_inbox: str | None = None           # whose key may answer (set by the endpoint)
        self.link_id = b""                           # what its hellos are signed for
        self.dropped = 0                             # unsealed frames that fit no handshake step
        self._held: dict[int, list[bytes]] = {}
        self._held_count = self._held_bytes = 0
        self._early: deque[tuple[int, bytes]] = deque()   # sealed frames held before sealing, oldest first
        self._push: Any = None
        self._pull: Any = None
        self._arrived = trio.Event()
        self.accepted = trio.Event()
        self._peer_sealed = trio.Event()             # a sealed frame came from the peer
        self._failed: str | None = None              # why the link broke (recv raises, send fails)
        self._eof = False
        self._closed = False
        now = trio.current_time()
        self.last_heard = self.last_sent = now
        self._gap_since: float | None = None
        self.forged = 0                              # frames refused for failing authentication
        self.oversized = 0                           # messages dropped as too big or too small to be frames
        self.accept_by: float | None = None          # a dialer's: recv fails if not accepted by then
        self._acked = 0                              # our sealed frames the peer said it took
        self._window = trio.Event()                  # set when an ack (or the end) came
        self._acked_out = 0                          # the peer's frames we last said we took
        self._ready: deque[tuple[int, bytes, bytes]] = deque()   # opened (seq, type, data) for recv
        self._ready_bytes = 0

    # ------------------------------------------------------------------ sending
    def seal(self, push: Any, pull: Any) -> None:
        """From now on frames are sealed. The two sides seal at different moments (each when
        the other's auth arrives), and a side that has not sealed yet can hold only a few
        sealed frames (UNSEALED_HELD): a burst sent at once (a resync, a spectator's history)
        lost its first frames, and the link was closed as having lost one. So each side
        says "sealed" at once (an unsealed SEALED mark: it takes no place in the sealed
        sequence, so junk sent ahead cannot crowd it out of that small buffer), and `send`
        holds data until the peer's mark or first sealed frame (at most PEER_SEAL_WAIT). A
        forged mark only brings back the old race."""
        self._push, self._pull = push, pull
        self._pre.clear()
        self._early.clear()
        self._need = None
        if self._held:
            self._peer_sealed.set()
            self._open_ready()
        if self._failed is None and not self._closed:
            seq, self._pre_seq = PRESEAL | self._pre_seq, self._pre_seq + 1
            self._publish(struct.pack(">Q", seq) + SEALED)

    def _send_body(self, kind: bytes, data: bytes = b"") -> None:
        body = kind + data
        if self._push is not None:      # sealed and numbered in one step: nothing can come in between
            body = sodium.crypto_secretstream_xchacha20poly1305_push(self._push, body)
            seq, self._out_seq = self._out_seq, self._out_seq + 1
        else:
            seq, self._pre_seq = PRESEAL | self._pre_seq, self._pre_seq + 1
        self._publish(struct.pack(">Q", seq) + body)
        self.last_sent = trio.current_time()

    async def send(self, obj: Any) -> None:
        if self._push is not None and not self._peer_sealed.is_set():
            with trio.move_on_after(PEER_SEAL_WAIT):
                await self._peer_sealed.wait()
            self._peer_sealed.set()                  # a peer that says nothing: as before
        while self._push is not None and self._out_seq - 1 - self._acked >= WINDOW and self._failed is None:
            self._window = trio.Event()               # the receiver is behind: wait for its ack
            await self._window.wait()
        if self._failed is not None or self._closed:
            raise trio.BrokenResourceError(self._failed or "link closed")
        self._send_body(DATA, encode(obj))
        await trio.lowlevel.checkpoint()

    def ping(self) -> None:
        """Only once sealed: a plain frame sent while the peer already expects sealed ones
        (between the two auth frames) would stall the link."""
        if self._push is not None and self._failed is None and not self._closed:
            self._send_body(PING)

    def send_open(self, kind: bytes) -> None:
        self._publish(struct.pack(">Q", 0) + kind)
        self.last_sent = trio.current_time()

    # ------------------------------------------------------------------ receiving
    def deliver(self, payload: bytes) -> None:
        """A message from the broker for this link (called in trio's thread): held until recv."""
        if len(payload) < 9 or len(payload) > self.max_frame + _SEAL + 9 + 1:
            self.oversized += 1
            if self.oversized == 1:                  # once a link: a flood's thousands would cost more than they do
                log.warning("relay link %s: a message of %d bytes dropped (not a frame of this link; "
                            "more are counted, not logged)", self.address, len(payload))
            return
        (seq,) = struct.unpack_from(">Q", payload)
        body = payload[8:]
        if seq == 0:                                 # the dialer's accept: never sealed
            if body == ACCEPT and not self.accepted.is_set():
                self.last_heard = trio.current_time()
                self.accepted.set()
            return
        if seq & PRESEAL:
            if body == SEALED:
                self._peer_sealed.set()
                return
            self._deliver_unsealed(body)
            return
        if seq < self._expect:
            return                                   # a duplicate (QoS 1 redelivery) or a replay
        if self._pull is not None:
            self._peer_sealed.set()
        candidates = self._held.setdefault(seq, [])
        if body in candidates:
            return
        if self._pull is None:                       # before sealing: the oldest make room
            while self._early and (self._held_count >= UNSEALED_HELD
                                   or self._held_bytes + len(body) > UNSEALED_HELD_BYTES):
                old_seq, old = self._early.popleft()
                held = self._held.get(old_seq, [])
                if old in held:
                    held.remove(old)
                    self._held_count -= 1
                    self._held_bytes -= len(old)
                if not held and old_seq != seq:
                    self._held.pop(old_seq, None)
            if len(body) > UNSEALED_HELD_BYTES:
                if not candidates:
                    del self._held[seq]
                return
            self._early.append((seq, body))
        elif (self._held_count + len(self._ready) >= MAX_HELD
              or self._held_bytes + self._ready_bytes + len(body) > MAX_HELD_BYTES):
            if not candidates:
                del self._held[seq]
            log.warning("relay link %s: over %d frames held; one dropped", self.address, MAX_HELD)
            return
        candidates.append(body)
        self._held_count += 1
        self._held_bytes += len(body)
        if self._pull is not None:
            self._open_ready()
        self._arrived.set()

    def _deliver_unsealed(self, body: bytes) -> None:
        """A handshake frame (or one claiming to be): checked now against what a waiting recv
        accepts, else kept (a few) for the next recv."""
        if self._pull is not None or len(body) > PRESEAL_FRAME + 1:
            return
        kind, data = body[:1], body[1:]
        if kind == CLOSE:
            value = _CLOSED
        elif kind == DATA:
            try:
                value = msgpack.unpackb(data, raw=False, strict_map_key=False, ext_hook=no_ext)
            except (ValueError, TypeError, msgpack.UnpackException):
                self.dropped += 1
                return
        else:
            return
        if self._need is not None and self._fit is _NOTHING:
            if value is not _CLOSED and _fits(self._need, value):
                self._fit = value
                self._arrived.set()
            else:
                self.dropped += 1
            return
        self._pre.append(value)
        self._arrived.set()

    def fail(self, why: str) -> None:
        """The relay connection under this link broke: recv raises, send fails."""
        if self._failed is None:
            self._failed = why
            self._arrived.set()
            self._peer_sealed.set()
            self._window.set()

    def _open_ready(self) -> None:
        """Open the frames held at the expected seq onwards: an ack or a ping is taken at once,
        the rest waits (in order) for `recv`."""
        while (body := self._take()) is not None:
            kind, data = body[:1], body[1:]
            if kind == ACK:
                if len(data) == 8:
                    self._acked = max(self._acked, struct.unpack(">Q", data)[0])
                    self._window.set()
            elif kind != PING:
                self._ready.append((self._expect - 1, kind, data))
                self._ready_bytes += len(data)
        self._ack()

    def _take(self) -> bytes | None:
        """The next authentic frame body at the expected seq, if one has arrived."""
        candidates = self._held.get(self._expect)
        while candidates:
            body = candidates.pop(0)
            self._held_count -= 1
            self._held_bytes -= len(body)
            try:
                body, _ = sodium.crypto_secretstream_xchacha20poly1305_pull(self._pull, body)
            except (nacl.exceptions.CryptoError, ValueError, TypeError):
                self.forged += 1
                log.warning("relay link %s: refused a frame that fails authentication (forged, replayed "
                            "or from another link)", self.address)
                continue
            self._held_count -= len(candidates)
            self._held_bytes -= sum(map(len, candidates))
            del self._held[self._expect]
            self._expect += 1
            self.last_heard = trio.current_time()
            self._gap_since = None
            return body
        self._held.pop(self._expect, None)
        return None

    def _ack(self) -> None:
        """Tell the sender how far this side took its frames, every ACK_EVERY of them."""
        taken = self._ready[0][0] - 1 if self._ready else self._expect - 1
        if taken - self._acked_out >= ACK_EVERY and self._failed is None and not self._closed:
            self._acked_out = taken
            self._send_body(ACK, struct.pack(">Q", taken))

    async def _recv_unsealed(self, accept: Callable[[Any], bool] | None) -> Any:
        """The next unsealed frame that `accept` takes (any, without it; a close then is None)."""
        while True:
            if self._fit is not _NOTHING:
                value, self._fit = self._fit, _NOTHING
                self.last_heard = trio.current_time()
                return value
            while self._pre:
                value = self._pre.popleft()
                if accept is None:
                    return None if value is _CLOSED else value
                if value is not _CLOSED and _fits(accept, value):
                    self.last_heard = trio.current_time()
                    return value
                self.dropped += 1
            if self._failed is not None:
                raise FrameError(self._failed)
            deadline = self.last_heard + IDLE_TIMEOUT
            if self.accept_by is not None and not self.accepted.is_set():
                if trio.current_time() >= self.accept_by:
                    raise FrameError(f"nobody answered at inbox {self.peer_inbox} in time")
                deadline = min(deadline, self.accept_by)
            if trio.current_time() >= deadline:
                raise FrameError(f"nothing heard for {IDLE_TIMEOUT:.0f} s (the peer or the broker went away)")
            self._arrived = trio.Event()
            self._need = accept
            try:
                with trio.move_on_at(deadline):
                    await self._arrived.wait()
            finally:
                self._need = None
            self._after_sleep(deadline)

    async def recv(self, accept: Callable[[Any], bool] | None = None) -> Any:
        """The next frame's decoded value; None when the peer closed the link. Before the link
        is sealed, the next unsealed frame `accept` takes (the others are dropped: anyone can
        publish on the topic); after it, `accept` is not needed (forgeries fail authentication)."""
        if self._pull is None:
            return await self._recv_unsealed(accept)
        while True:
            if self._eof:
                return None
            if self._ready:
                _, kind, data = self._ready.popleft()
                self._ready_bytes -= len(data)
                self._ack()
                if kind == CLOSE:
                    self._eof = True
                    return None
                if kind != DATA:
                    continue                          # a stray open/accept
                if len(data) > self.max_frame:
                    raise FrameError(f"frame of {len(data)} bytes is over the {self.max_frame}-byte limit")
                try:
                    return msgpack.unpackb(data, raw=False, strict_map_key=False, ext_hook=no_ext)
                except (ValueError, TypeError, msgpack.UnpackException) as exc:
                    raise FrameError(f"undecodable frame: {type(exc).__name__}: {exc}") from None
            if self._failed is not None:
                raise FrameError(self._failed)
            now = trio.current_time()
            if self._held and self._gap_since is None:
                self._gap_since = now
            deadline = self.last_heard + IDLE_TIMEOUT
            if self._gap_since is not None:
                deadline = min(deadline, self._gap_since + GAP_WAIT)
            if now >= deadline:
                if self._gap_since is not None and now >= self._gap_since + GAP_WAIT:
                    raise FrameError(f"frame {self._expect} of this link was lost (later ones came); "
                                     "closing it to redial and resync")
                raise FrameError(f"nothing heard for {IDLE_TIMEOUT:.0f} s (the peer or the broker went away)")
            self._arrived = trio.Event()
            with trio.move_on_at(deadline):
                await self._arrived.wait()
            self._after_sleep(deadline)

    def _after_sleep(self, deadline: float) -> None:
        """A wait that ended long after its deadline: this process was not run, so give what
        came meanwhile WAKE_GRACE seconds before the link is called dead or a frame lost."""
        now = trio.current_time()
        if now - deadline > OVERSLEPT:
            self.last_heard = max(self.last_heard, now - IDLE_TIMEOUT + WAKE_GRACE)
            if self._gap_since is not None:
                self._gap_since = max(self._gap_since, now - GAP_WAIT + WAKE_GRACE)

    async def aclose(self) -> None:
        self.close_now()
        await trio.lowlevel.checkpoint()

    def close_now(self) -> None:
        """Close the link (telling the peer when the relay still carries it) without waiting."""
        if self._closed:
            return
        if self._failed is None:
            try:
                self._send_body(CLOSE)
            except Exception:                         # the relay is gone: nothing to tell
                pass
        self._closed = True
        self.fail("link closed")
        self._on_close(self)


def _fits(accept: Callable[[Any], bool], value: Any) -> bool:
    try:
        return bool(accept(value))
    except Exception:                                # a malformed frame the check did not foresee
        return False
