"""One link to a peer through an MQTT broker, with the interface of frames.Connection
(`send`, `recv`, `seal`, `aclose`, `address`, `max_frame`), so the handshake, the sealing,
gossip, resync and abandon code run over it unchanged.

The frames, their numbering, sealing, held buffers, acks and timing are
`protocol.link.relay_frames.RelayFrames` (its docstring describes the wire and what an
untrusted broker can and cannot do); this is its trio shell: it publishes what the state
machine gives, feeds it the broker's messages and trio's clock, wakes the task waiting for
a frame, holds `send` while the peer's window is full or the peer has not sealed yet, and
logs what it refused."""

from __future__ import annotations

import logging
from typing import Any, Callable

import trio

from protocol.link.framing import MAX_FRAME, FrameError, encode
from protocol.link.relay_frames import (ACCEPT, ACK, CLOSE, CLOSED, DATA, GAP_WAIT, IDLE_TIMEOUT, MAX_HELD,
                                        OPEN, PING, PING_INTERVAL, PRESEAL, SEALED, UNSEALED_HELD, WAIT,
                                        WINDOW, RelayFrames)

log = logging.getLogger("caravan.relay")

PEER_SEAL_WAIT = 2.0
"""How long `send` holds data for a peer that has not yet sealed the link (see `seal`)."""


def _shared(name: str, doc: str | None = None) -> property:
    """An attribute of the link's RelayFrames, read and set through the link."""
    return property(lambda link: getattr(link._frames, name),
                    lambda link, value: setattr(link._frames, name, value), doc=doc)


class RelayLink:
    """A framed, msgpack-speaking link to one peer over the broker (see the module doc)."""

    def __init__(self, publish: Callable[[bytes], None], address: str, on_close: Callable[["RelayLink"], None],
                 *, dialer: bool, max_frame: int = MAX_FRAME):
        self._publish = publish
        self.address = address
        self.topic = ""                              # where its frames go (set by the endpoint)
        self.link_id = b""                           # what its hellos are signed for
        self._on_close = on_close
        self._frames = RelayFrames(now=trio.current_time(), max_frame=max_frame,
                                   idle_timeout=IDLE_TIMEOUT, gap_wait=GAP_WAIT)
        self._arrived = trio.Event()
        self.accepted = trio.Event()
        self._peer_sealed = trio.Event()             # a sealed frame came from the peer
        self._window = trio.Event()                  # set when an ack (or the end) came
        self._acked = 0                              # the peer's last ack the window saw

    # the state machine's, as the endpoint and the node (and tests) read or set them
    max_frame = _shared("max_frame")
    peer_inbox = _shared("peer_inbox", "Whose key may answer (set by the endpoint; the handshake checks it).")
    accept_by = _shared("accept_by", "A dialer's: recv fails if not accepted by then.")
    last_sent = _shared("last_sent")
    forged = _shared("forged")
    oversized = _shared("oversized")
    dropped = _shared("dropped")
    _out_seq = _shared("out_seq")
    _held = _shared("held")

    def _flush(self) -> None:
        """Publish what the state machine gave, log what it refused, wake who waits for it."""
        frames = self._frames
        out, frames.outbox = frames.outbox, []
        for payload in out:
            self._publish(payload)
        for line in frames.warnings:
            log.warning("relay link %s: %s", self.address, line)
        frames.warnings.clear()
        if frames.accepted:
            self.accepted.set()
        if frames.peer_sealed:
            self._peer_sealed.set()
        if frames.acked != self._acked:
            self._acked = frames.acked
            self._window.set()

    # ------------------------------------------------------------------ sending
    def seal(self, push: Any, pull: Any) -> None:
        """From now on frames are sealed; `send` holds data until the peer says it sealed too
        (at most PEER_SEAL_WAIT; RelayFrames.seal says why)."""
        self._frames.seal(push, pull, trio.current_time())
        self._flush()

    async def send(self, obj: Any) -> None:
        frames = self._frames
        if frames.push is not None and not self._peer_sealed.is_set():
            with trio.move_on_after(PEER_SEAL_WAIT):
                await self._peer_sealed.wait()
            frames.peer_sealed = True                # a peer that says nothing: as before
            self._peer_sealed.set()
        while frames.window_full():
            self._window = trio.Event()               # the receiver is behind: wait for its ack
            await self._window.wait()
        if frames.failed is not None or frames.closed:
            raise trio.BrokenResourceError(frames.failed or "link closed")
        frames.send(DATA, encode(obj), trio.current_time())
        self._flush()
        await trio.lowlevel.checkpoint()

    def ping(self) -> None:
        self._frames.ping(trio.current_time())
        self._flush()

    def send_open(self, kind: bytes) -> None:
        self._frames.send_open(kind, trio.current_time())
        self._flush()

    # ------------------------------------------------------------------ receiving
    def deliver(self, payload: bytes) -> None:
        """A message from the broker for this link (called in trio's thread): held until recv."""
        arrived = self._frames.deliver(payload, trio.current_time())
        self._flush()
        if arrived:
            self._arrived.set()

    def fail(self, why: str) -> None:
        """The relay connection under this link broke: recv raises, send fails."""
        self._frames.fail(why)
        self._arrived.set()
        self._peer_sealed.set()
        self._window.set()

    async def recv(self, accept: Callable[[Any], bool] | None = None) -> Any:
        """The next frame's decoded value; None when the peer closed the link. Before the link
        is sealed, the next unsealed frame `accept` takes (the others are dropped: anyone can
        publish on the topic); after it, `accept` is not needed (forgeries fail authentication)."""
        frames = self._frames
        while True:
            sealed = frames.pull is not None
            try:
                got = frames.next_sealed(trio.current_time()) if sealed else \
                    frames.next_unsealed(accept, trio.current_time())
            finally:
                self._flush()                          # (an ack the node's reading owes)
            if got is not WAIT:
                return None if got is CLOSED else got
            deadline = frames.wake_at
            self._arrived = trio.Event()
            if not sealed:
                frames.awaiting = accept
            try:
                with trio.move_on_at(deadline):
                    await self._arrived.wait()
            finally:
                frames.awaiting = None
            frames.woke(deadline, trio.current_time())

    async def aclose(self) -> None:
        self.close_now()
        await trio.lowlevel.checkpoint()

    def close_now(self) -> None:
        """Close the link (telling the peer when the relay still carries it) without waiting."""
        frames = self._frames
        if frames.closed:
            return
        if frames.failed is None:
            frames.send(CLOSE, b"", trio.current_time())
            try:
                self._flush()
            except Exception:                         # the relay is gone: nothing to tell
                frames.outbox.clear()
        frames.closed = True
        self.fail("link closed")
        self._on_close(self)


__all__ = ["RelayLink", "FrameError", "OPEN", "ACCEPT", "DATA", "PING", "CLOSE", "SEALED", "ACK", "PRESEAL",
           "PING_INTERVAL", "IDLE_TIMEOUT", "GAP_WAIT", "MAX_HELD", "WINDOW", "UNSEALED_HELD"]
