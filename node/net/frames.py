"""Length-prefixed frames over a trio stream: the I/O around `protocol.link.framing`
(4-byte big-endian length, then the payload; sealed after the handshake)."""

from __future__ import annotations

from typing import Any, Callable

import trio

from protocol.link.framing import MAX_FRAME, FrameError, Packed, TcpFraming, encode, no_ext, pack

FRAME_TIMEOUT = 10.0
"""A frame once begun must arrive whole within this many seconds (no slowloris)."""


class Connection:
    """A framed, msgpack-speaking connection to one peer; sealed after the handshake (each
    frame's payload is then one crypto_secretstream message, see node/net/handshake.py)."""

    def __init__(self, stream: trio.abc.Stream, address: str, max_frame: int = MAX_FRAME):
        self.stream = stream
        self.address = address
        self._framing = TcpFraming(max_frame)
        self._send_lock = trio.Lock()

    @property
    def max_frame(self) -> int:
        """The largest frame payload taken (a node lowers it during a handshake)."""
        return self._framing.max_frame

    @max_frame.setter
    def max_frame(self, value: int) -> None:
        self._framing.max_frame = value

    def seal(self, push: Any, pull: Any) -> None:
        """From now on every frame sent is sealed with `push` and every frame received must
        open with `pull` (crypto_secretstream states set up by the handshake)."""
        self._framing.seal(push, pull)

    async def _receive(self) -> bool:
        chunk = await self.stream.receive_some(65536)
        self._framing.feed(chunk)
        return bool(chunk)

    async def recv(self, accept: Callable[[Any], bool] | None = None) -> Any:
        """The next frame's decoded value; None when the peer closed cleanly between frames.
        `accept` is for links many can publish on (relay_link.RelayLink); a TCP connection has
        one sender, so its next frame is the answer whatever it is."""
        framing = self._framing
        if not framing.buffered and not await self._receive():
            return None
        if not framing.whole():                       # (a frame already whole needs no timer)
            with trio.move_on_after(FRAME_TIMEOUT) as scope:
                while not framing.whole():
                    if not await self._receive():
                        raise FrameError("connection closed inside a frame header" if framing.buffered < 4
                                         else "connection closed inside a frame")
            if scope.cancelled_caught:
                raise FrameError(f"a frame did not arrive whole within {FRAME_TIMEOUT:.0f} s")
        return framing.next()

    async def send(self, obj: Any) -> None:
        """Send one frame: a value, or a value already encoded by `pack` (sent to several
        links, it is encoded once)."""
        async with self._send_lock:                   # sealed in send order, under the lock
            await self.stream.send_all(self._framing.frame(obj))

    async def aclose(self) -> None:
        with trio.move_on_after(1):
            await self.stream.aclose()


__all__ = ["Connection", "FrameError", "MAX_FRAME", "Packed", "encode", "no_ext", "pack"]
