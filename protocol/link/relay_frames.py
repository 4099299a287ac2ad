"""A link to one peer through an MQTT broker, without the broker: the state machine that
turns the broker's messages for the link (`deliver`) into frames for the node, and the
node's frames into messages to publish (`outbox`), given the time at each call.
node/net/relay_link.py is its trio shell (waiting, waking, publishing, logging).

Each MQTT message is one frame: an 8-byte big-endian sequence number (in the clear), then
the body: one type byte and a msgpack value. Types: "O" open (seq 0, dialer -> listener), "A"
accept (seq 0, back), "D" data, "P" ping (keeps a quiet link alive), "C" close, "K" ack (the
count of sealed frames the receiver took, for the sender's window), "S" (unsealed: this side
sealed the link).

A broker never pushes back (publishing returns at once) while the receiver holds only
MAX_HELD frames: a burst (a spectator's history, a resync) from a fast sender to a slower
receiver lost frames and the link closed as having lost one (issue 31). So sealed links have
TCP's flow control: a sender has at most WINDOW sealed frames the receiver has not said it
took (`window_full`); the receiver says so every ACK_EVERY frames the node takes. Frames are
opened as they arrive (acks and pings are taken there and then, so a sender busy in a task
that also reads still sees its window open), and the data waits for the node.

Two numberings, per link and direction (issue 27): the frames of the handshake go before
the link is sealed, in the clear, with the PRESEAL bit set in their seq; every frame after
it is sealed as one crypto_secretstream message and numbered from 1.

The broker, or anyone able to publish on the link's topic, is untrusted: it may drop,
duplicate, delay, reorder, replay or forge messages. Before the link is sealed nothing is
authentic by itself, so the handshake says what it waits for (`awaiting`, or the `accept`
of `next_unsealed`: a hello signed for this link by the key that owns the peer's inbox,
then an auth signed over this exchange): every unsealed frame is checked against that as it
comes, the first that fits is taken and the others are dropped, so an injected hello, auth
or a competing "host" cannot displace the real peer's (at most PRESEAL_HELD unsealed frames
wait between two steps). Sealed frames: at a seq already passed, a copy of the frame taken
there is a duplicate and is dropped, any other frame is refused as a forgery (TAKEN_KEPT);
frames ahead of the next expected seq wait in a bounded buffer (smaller before the link is
sealed, and then the oldest make room); at the expected seq each candidate is opened in
arrival order and one that fails authentication is counted and dropped (secretstream's pull
leaves its state unchanged on failure, tests/relay/test_relay_link.py checks it), so an
injected message never breaks a link. A frame truly lost (no authentic frame at the
expected seq while later ones wait for `gap_wait`) fails the link: the node redials and the
heads-based resync fills the gap.
"""

from __future__ import annotations

import hashlib
import struct
from collections import OrderedDict, deque
from typing import Any, Callable

from .framing import MAX_FRAME, SEAL_BYTES, FrameError, decode, seal, try_open

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
TAKEN_KEPT = 512
"""Sealed frames taken whose digest is kept: a later, different frame at one of these seqs is
a forgery or a replay from elsewhere (secretstream gives one authentic frame per seq), and is
counted as one without being opened, where a copy of the frame taken is a mere duplicate."""
UNSEALED_HELD = 16
UNSEALED_HELD_BYTES = 64 << 10
"""Sealed frames held (frames, bytes) before this side has sealed the link: a peer sends a
few at most, nobody can authenticate them yet, so a flood of them is capped low, and the
oldest make room for new ones (junk sent ahead cannot crowd out the real peer's first)."""


class _Marker:
    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return self.name


CLOSED = _Marker("CLOSED")
"""An unsealed close, among the frames held for the handshake."""
WAIT = _Marker("WAIT")
"""What `next_unsealed` and `next_sealed` give when nothing is there yet: wait until `wake_at`
(or until `deliver` says something arrived), then ask again."""
_NOTHING = _Marker("NOTHING")


def _digest(body: bytes) -> bytes:
    return hashlib.blake2b(body, digest_size=16).digest()


def _power_of_ten(n: int) -> bool:
    while n % 10 == 0:
        n //= 10
    return n == 1


def _fits(accept: Callable[[Any], bool], value: Any) -> bool:
    try:
        return bool(accept(value))
    except Exception:                                # a malformed frame the check did not foresee
        return False


class RelayFrames:
    """One relay link's frames, both ways (see the module doc). Every call that may send
    leaves its messages in `outbox` (to publish in order) and its log lines in `warnings`;
    `now` is the caller's clock, in seconds."""

    def __init__(self, *, now: float, max_frame: int = MAX_FRAME, idle_timeout: float = IDLE_TIMEOUT,
                 gap_wait: float = GAP_WAIT):
        self.max_frame = max_frame
        self.idle_timeout, self.gap_wait = idle_timeout, gap_wait
        self.outbox: list[bytes] = []
        self.warnings: list[str] = []
        self.out_seq = 1                             # sealed frames; open and accept are seq 0
        self.pre_seq = 1                             # unsealed frames, sent as PRESEAL | n
        self.expect = 1
        self.pre: deque[Any] = deque(maxlen=PRESEAL_HELD)
        self.awaiting: Callable[[Any], bool] | None = None   # what a waiting node accepts (unsealed)
        self.fit: Any = _NOTHING                     # the unsealed frame it accepted
        self.dropped = 0                             # unsealed frames that fit no handshake step
        self.held: dict[int, list[bytes]] = {}
        self.held_count = self.held_bytes = 0
        self.early: deque[tuple[int, bytes]] = deque()   # sealed frames held before sealing, oldest first
        self.push: Any = None
        self.pull: Any = None
        self.accepted = False                        # the dialer's open was accepted
        self.peer_sealed = False                     # the peer said it sealed, or a sealed frame came
        self.failed: str | None = None               # why the link broke
        self.eof = False
        self.closed = False
        self.last_heard = self.last_sent = now
        self.gap_since: float | None = None
        self.forged = 0                              # frames refused for failing authentication
        self.taken: OrderedDict[int, bytes] = OrderedDict()   # seq -> digest of the frame taken there
        self.oversized = 0                           # messages dropped as too big or too small to be frames
        self.accept_by: float | None = None          # a dialer's: fails if not accepted by then
        self.acked = 0                               # our sealed frames the peer said it took
        self.acked_out = 0                           # the peer's frames we last said we took
        self.ready: deque[tuple[int, bytes, bytes]] = deque()   # opened (seq, type, data) for the node
        self.ready_bytes = 0
        self.wake_at = now                           # when a WAIT ends (see WAIT)
        self.peer_inbox: str | None = None           # whose key may answer (named when nobody does)

    # ------------------------------------------------------------------ sending
    def seal(self, push: Any, pull: Any, now: float) -> None:
        """From now on frames are sealed. The two sides seal at different moments (each when
        the other's auth arrives), and a side that has not sealed yet can hold only a few
        sealed frames (UNSEALED_HELD): a burst sent at once lost its first frames. So each
        side says "sealed" at once (an unsealed SEALED mark: it takes no place in the sealed
        sequence, so junk sent ahead cannot crowd it out of that small buffer), and the
        node holds data until `peer_sealed` (for a while: a forged mark only brings back
        the old race)."""
        self.push, self.pull = push, pull
        self.pre.clear()
        self.early.clear()
        self.awaiting = None
        if self.held:
            self.peer_sealed = True
            self._open_ready(now)
        if self.failed is None and not self.closed:
            seq, self.pre_seq = PRESEAL | self.pre_seq, self.pre_seq + 1
            self.outbox.append(struct.pack(">Q", seq) + SEALED)

    def send(self, kind: bytes, data: bytes, now: float) -> None:
        """One frame of `kind` (DATA, PING, CLOSE, ACK) out: sealed and numbered in one step
        once sealed (nothing can come in between), numbered as unsealed before."""
        body = kind + data
        if self.push is not None:
            body = seal(self.push, body)
            seq, self.out_seq = self.out_seq, self.out_seq + 1
        else:
            seq, self.pre_seq = PRESEAL | self.pre_seq, self.pre_seq + 1
        self.outbox.append(struct.pack(">Q", seq) + body)
        self.last_sent = now

    def send_open(self, kind: bytes, now: float) -> None:
        """An open (the dialer) or accept (the listener): seq 0, never sealed."""
        self.outbox.append(struct.pack(">Q", 0) + kind)
        self.last_sent = now

    def ping(self, now: float) -> None:
        """Only once sealed: a plain frame sent while the peer already expects sealed ones
        (between the two auth frames) would stall the link."""
        if self.push is not None and self.failed is None and not self.closed:
            self.send(PING, b"", now)

    def window_full(self) -> bool:
        """Whether the peer must ack before this side sends more sealed data."""
        return self.push is not None and self.out_seq - 1 - self.acked >= WINDOW and self.failed is None

    def fail(self, why: str) -> None:
        """The link broke (its relay connection, or it was closed): the node's reads and
        sends fail with `why`."""
        if self.failed is None:
            self.failed = why
            self.peer_sealed = True

    # ------------------------------------------------------------------ receiving
    def deliver(self, payload: bytes, now: float) -> bool:
        """A message from the broker for this link; True when it may be what a waiting node
        asked for (its frames are then taken with `next_unsealed` or `next_sealed`)."""
        if len(payload) < 9 or len(payload) > self.max_frame + SEAL_BYTES + 9 + 1:
            self.oversized += 1
            if self.oversized == 1:                  # once a link: a flood's thousands would cost more than they do
                self.warnings.append(f"a message of {len(payload)} bytes dropped (not a frame of this link; "
                                     "more are counted, not logged)")
            return False
        (seq,) = struct.unpack_from(">Q", payload)
        body = payload[8:]
        if seq == 0:                                 # the dialer's accept: never sealed
            if body == ACCEPT and not self.accepted:
                self.last_heard = now
                self.accepted = True
            return False
        if seq & PRESEAL:
            if body == SEALED:
                self.peer_sealed = True
                return False
            return self._deliver_unsealed(body)
        if seq < self.expect:                        # a duplicate (QoS 1 redelivery) or a replay
            if seq in self.taken and self.taken[seq] != _digest(body):   # one digest, only for a seq kept
                self._refuse()
            return False
        return self._deliver_sealed(seq, body, now)

    def _deliver_sealed(self, seq: int, body: bytes, now: float) -> bool:
        if self.pull is not None:
            self.peer_sealed = True
        candidates = self.held.setdefault(seq, [])
        if body in candidates:
            return False
        if self.pull is None:                        # before sealing: the oldest make room
            self._make_room_early(seq, len(body))
            if len(body) > UNSEALED_HELD_BYTES:
                if not candidates:
                    del self.held[seq]
                return False
            self.early.append((seq, body))
        elif (self.held_count + len(self.ready) >= MAX_HELD
              or self.held_bytes + self.ready_bytes + len(body) > MAX_HELD_BYTES):
            if not candidates:
                del self.held[seq]
            self.warnings.append(f"over {MAX_HELD} frames held; one dropped")
            return False
        candidates.append(body)
        self.held_count += 1
        self.held_bytes += len(body)
        if self.pull is not None:
            self._open_ready(now)
        return True

    def _make_room_early(self, seq: int, size: int) -> None:
        while self.early and (self.held_count >= UNSEALED_HELD
                              or self.held_bytes + size > UNSEALED_HELD_BYTES):
            old_seq, old = self.early.popleft()
            held = self.held.get(old_seq, [])
            if old in held:
                held.remove(old)
                self.held_count -= 1
                self.held_bytes -= len(old)
            if not held and old_seq != seq:
                self.held.pop(old_seq, None)

    def _deliver_unsealed(self, body: bytes) -> bool:
        """A handshake frame (or one claiming to be): checked now against what a waiting node
        accepts, else kept (a few) for the next ask."""
        if self.pull is not None or len(body) > PRESEAL_FRAME + 1:
            return False
        kind, data = body[:1], body[1:]
        if kind == CLOSE:
            value: Any = CLOSED
        elif kind == DATA:
            try:
                value = decode(data)
            except FrameError:
                self.dropped += 1
                return False
        else:
            return False
        if self.awaiting is not None and self.fit is _NOTHING:
            if value is not CLOSED and _fits(self.awaiting, value):
                self.fit = value
                return True
            self.dropped += 1
            return False
        self.pre.append(value)
        return True

    def _open_ready(self, now: float) -> None:
        """Open the frames held at the expected seq onwards: an ack or a ping is taken at once,
        the rest waits (in order) for the node."""
        while (body := self._take(now)) is not None:
            kind, data = body[:1], body[1:]
            if kind == ACK:
                if len(data) == 8:
                    self.acked = max(self.acked, struct.unpack(">Q", data)[0])
            elif kind != PING:
                self.ready.append((self.expect - 1, kind, data))
                self.ready_bytes += len(data)
        self._ack(now)

    def _take(self, now: float) -> bytes | None:
        """The next authentic frame body at the expected seq, if one has arrived."""
        candidates = self.held.get(self.expect)
        while candidates:
            body = candidates.pop(0)
            self.held_count -= 1
            self.held_bytes -= len(body)
            opened = try_open(self.pull, body)
            if opened is None:
                self._refuse()
                continue
            for _ in candidates:                     # others at this seq: not the authentic one
                self._refuse()
            self.held_count -= len(candidates)
            self.held_bytes -= sum(map(len, candidates))
            del self.held[self.expect]
            self.taken[self.expect] = _digest(body)
            if len(self.taken) > TAKEN_KEPT:
                self.taken.popitem(last=False)
            self.expect += 1
            self.last_heard = now
            self.gap_since = None
            return opened
        self.held.pop(self.expect, None)
        return None

    def _refuse(self) -> None:
        """Count a frame that is not the authentic one at its seq; log the first, then every
        power of ten (a flood of them must not flood the log)."""
        self.forged += 1
        if self.forged == 1:
            self.warnings.append("refused a frame that fails authentication (forged, replayed "
                                 "or from another link)")
        elif _power_of_ten(self.forged):
            self.warnings.append(f"refused {self.forged} frames that fail authentication so far "
                                 "(forged, replayed or from another link)")

    def _ack(self, now: float) -> None:
        """Tell the sender how far this side took its frames, every ACK_EVERY of them."""
        taken = self.ready[0][0] - 1 if self.ready else self.expect - 1
        if taken - self.acked_out >= ACK_EVERY and self.failed is None and not self.closed:
            self.acked_out = taken
            self.send(ACK, struct.pack(">Q", taken), now)

    # ------------------------------------------------------------------ the node's reads
    def next_unsealed(self, accept: Callable[[Any], bool] | None, now: float) -> Any:
        """Before sealing: the next unsealed frame `accept` takes (any, without it; CLOSED for
        a close), or WAIT; FrameError when the link failed or its time ran out. While the node
        waits, set `awaiting` to `accept` (frames are then checked as they come)."""
        if self.fit is not _NOTHING:
            value, self.fit = self.fit, _NOTHING
            self.last_heard = now
            return value
        while self.pre:
            value = self.pre.popleft()
            if accept is None:
                return value
            if value is not CLOSED and _fits(accept, value):
                self.last_heard = now
                return value
            self.dropped += 1
        if self.failed is not None:
            raise FrameError(self.failed)
        deadline = self.last_heard + self.idle_timeout
        if self.accept_by is not None and not self.accepted:
            if now >= self.accept_by:
                raise FrameError(f"nobody answered at inbox {self.peer_inbox} in time")
            deadline = min(deadline, self.accept_by)
        if now >= deadline:
            raise FrameError(f"nothing heard for {self.idle_timeout:.0f} s (the peer or the broker went away)")
        self.wake_at = deadline
        return WAIT

    def next_sealed(self, now: float) -> Any:
        """After sealing: the next data frame's value (None once the peer closed), or WAIT;
        FrameError when the link failed, a frame was lost, its time ran out or the frame is
        not one."""
        if self.eof:
            return None
        while self.ready:
            _, kind, data = self.ready.popleft()
            self.ready_bytes -= len(data)
            self._ack(now)
            if kind == CLOSE:
                self.eof = True
                return None
            if kind != DATA:
                continue                              # a stray open/accept
            if len(data) > self.max_frame:
                raise FrameError(f"frame of {len(data)} bytes is over the {self.max_frame}-byte limit")
            return decode(data)
        if self.failed is not None:
            raise FrameError(self.failed)
        if self.held and self.gap_since is None:
            self.gap_since = now
        deadline = self.last_heard + self.idle_timeout
        if self.gap_since is not None:
            deadline = min(deadline, self.gap_since + self.gap_wait)
        if now >= deadline:
            if self.gap_since is not None and now >= self.gap_since + self.gap_wait:
                raise FrameError(f"frame {self.expect} of this link was lost (later ones came); "
                                 "closing it to redial and resync")
            raise FrameError(f"nothing heard for {self.idle_timeout:.0f} s (the peer or the broker went away)")
        self.wake_at = deadline
        return WAIT

    def woke(self, deadline: float, now: float) -> None:
        """A wait for `deadline` ended at `now`: long after it means this process was not run,
        so what came meanwhile gets WAKE_GRACE seconds before the link is called dead or a
        frame lost."""
        if now - deadline > OVERSLEPT:
            self.last_heard = max(self.last_heard, now - self.idle_timeout + WAKE_GRACE)
            if self.gap_since is not None:
                self.gap_since = max(self.gap_since, now - self.gap_wait + WAKE_GRACE)
