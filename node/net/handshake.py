"""The handshake over a trio connection (TCP or a relay link): the I/O around
`protocol.link.handshake.Handshake`, which holds the protocol (hello, auth, the stream keys;
its docstring says why each check is there), and the slots that bound how many links may be
in their handshake at once."""

from __future__ import annotations

from contextlib import contextmanager
from typing import Callable, Iterator

import trio

from protocol.identity import SigningKey
from protocol.link.handshake import (VERSION, Handshake, HandshakeError, hello_signed, inbox_of, key_pin,
                                     parse_pin, pin_inbox)

from .frames import Connection, FrameError

HANDSHAKE_TIMEOUT = 5.0
_hello_signed = hello_signed   # (the name tests/relay/test_relay_hijack.py forges hellos with)


class HandshakeSlots:
    """At most `limit` links in their handshake at once. A new link closes the oldest whose
    peer has not yet sent a valid hello, else the oldest: a flood of half-open links cannot
    keep a real peer out (refusing the new link instead would let it), and a link whose peer
    proved its key is the last to go."""

    def __init__(self, limit: int):
        self.limit = limit
        self._pending: list[trio.CancelScope] = []
        self._proven: set[trio.CancelScope] = set()
        self.most = 0
        """The most links ever in their handshake at once (at most `limit`)."""

    def __len__(self) -> int:
        return len(self._pending)

    @contextmanager
    def slot(self) -> Iterator[Callable[[], None]]:
        """Run one link's handshake inside: gives the `on_hello` to pass to `handshake`; the
        block is cancelled (and ends without a result) when a newer link takes its slot."""
        if len(self._pending) >= self.limit:
            unproven = [s for s in self._pending if s not in self._proven]
            oldest = (unproven or self._pending)[0]
            self._pending.remove(oldest)
            oldest.cancel()
        scope = trio.CancelScope()
        self._pending.append(scope)
        self.most = max(self.most, len(self._pending))
        try:
            with scope:
                yield lambda: self._proven.add(scope)
        finally:
            self._proven.discard(scope)
            if scope in self._pending:
                self._pending.remove(scope)


async def handshake(conn: Connection, key: SigningKey, scope: bytes, *, dialer: bool = True,
                    expect: bytes | None = None, on_hello: Callable[[], None] = lambda: None,
                    received: dict | None = None, timeout: float | None = None,
                    proven_timeout: float | None = None) -> bytes:
    """Run the handshake on a connection this side opened (`dialer`) or accepted; returns
    the peer's proven public key, with `conn` sealed from then on, or raises HandshakeError.
    `expect`: the pin (`key_pin`) the peer's key must have; any other key is refused (over a
    relay its frames are dropped as not this link's, and the real peer's are waited for).
    `on_hello` is called once the peer's hello checked (a lobby spares such links in a flood).
    `received`: the peer's hello, already read (a spectator reads it first to learn the game id
    it names as its scope); it is checked exactly like one read here.
    `timeout` bounds the whole (HANDSHAKE_TIMEOUT by default); `proven_timeout`, once the
    peer's hello checked, the rest: a lobby host behind a flood's backlog reads a proven
    joiner's answer late, and a new try would queue behind that backlog again."""
    shake = Handshake(key, scope, dialer=dialer, now=trio.current_time(),
                      timeout=HANDSHAKE_TIMEOUT if timeout is None else timeout,
                      link=getattr(conn, "link_id", b""), expect=expect,
                      peer_inbox=getattr(conn, "peer_inbox", None))
    with trio.move_on_at(shake.deadline) as timer:
        await conn.send(shake.hello)
        hello = received if received is not None else await conn.recv(accept=shake.fits)
        [auth] = shake.receive(hello, trio.current_time(), proven_timeout)
        on_hello()
        timer.deadline = shake.deadline
        await conn.send(auth)
        shake.receive(await conn.recv(accept=shake.fits), trio.current_time())
        conn.seal(shake.push, shake.pull)
        assert shake.peer_key is not None
        return shake.peer_key
    raise HandshakeError(f"no handshake within {shake.timeout:.0f} s")


__all__ = ["handshake", "HandshakeError", "HandshakeSlots", "FrameError", "VERSION", "key_pin", "parse_pin",
           "pin_inbox", "inbox_of"]
