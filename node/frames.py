"""Length-prefixed frames over a trio stream: 4-byte big-endian length, then the payload."""

from __future__ import annotations

import struct
from typing import Any, Callable

import msgpack
import nacl.bindings as sodium
import nacl.exceptions
import trio

MAX_FRAME = 1 << 20
_SEAL = sodium.crypto_secretstream_xchacha20poly1305_ABYTES
FRAME_TIMEOUT = 10.0
"""A frame once begun must arrive whole within this many seconds (no slowloris)."""


class FrameError(Exception):
    """The peer broke framing (oversized frame, closed mid-frame, too slow, bad payload)."""


def no_ext(code: int, data: bytes) -> Any:
    """msgpack's ext_hook for frames: no extension type is ever valid in one."""
    raise ValueError(f"msgpack extension type {code} in a frame")


class Packed:
    """A frame's value, msgpack-encoded once for several links (see `pack`)."""
    __slots__ = ("data",)

    def __init__(self, data: bytes):
        self.data = data


def pack(obj: Any) -> Packed:
    return Packed(msgpack.packb(obj, use_bin_type=True))


def encode(frame: Any) -> bytes:
    """A frame's bytes: a value, or one already `pack`ed."""
    return frame.data if type(frame) is Packed else msgpack.packb(frame, use_bin_type=True)


class Connection:
    """A framed, msgpack-speaking connection to one peer; sealed after the handshake (each
    frame's payload is then one crypto_secretstream message, see node/handshake.py)."""

    def __init__(self, stream: trio.abc.Stream, address: str, max_frame: int = MAX_FRAME):
        self.stream = stream
        self.address = address
        self.max_frame = max_frame
        self._buf = bytearray()
        self._send_lock = trio.Lock()
        self._push: Any = None
        self._pull: Any = None

    def seal(self, push: Any, pull: Any) -> None:
        """From now on every frame sent is sealed with `push` and every frame received must
        open with `pull` (crypto_secretstream states set up by the handshake)."""
        self._push, self._pull = push, pull

    async def _fill(self, n: int) -> bool:
        while len(self._buf) < n:
            chunk = await self.stream.receive_some(65536)
            if not chunk:
                return False
            self._buf += chunk
        return True

    def _length(self) -> int:
        """The length of the frame whose 4-byte header starts the buffer (FrameError if over
        the limit, before any of it is waited for)."""
        (n,) = struct.unpack_from(">I", self._buf)
        if n > self.max_frame + (_SEAL if self._pull is not None else 0):
            raise FrameError(f"frame of {n} bytes is over the {self.max_frame}-byte limit")
        return n

    async def recv(self, accept: Callable[[Any], bool] | None = None) -> Any:
        """The next frame's decoded value; None when the peer closed cleanly between frames.
        `accept` is for links many can publish on (relay_link.RelayLink); a TCP connection has
        one sender, so its next frame is the answer whatever it is."""
        if not await self._fill(1):
            return None
        if len(self._buf) < 4 or len(self._buf) < 4 + self._length():   # (a frame already whole needs no timer)
            with trio.move_on_after(FRAME_TIMEOUT) as scope:
                if not await self._fill(4):
                    raise FrameError("connection closed inside a frame header")
                if not await self._fill(4 + self._length()):
                    raise FrameError("connection closed inside a frame")
            if scope.cancelled_caught:
                raise FrameError(f"a frame did not arrive whole within {FRAME_TIMEOUT:.0f} s")
        n = self._length()
        data = bytes(self._buf[4:4 + n])
        del self._buf[:4 + n]
        if self._pull is not None:
            try:
                data, _ = sodium.crypto_secretstream_xchacha20poly1305_pull(self._pull, data)
            except (nacl.exceptions.CryptoError, ValueError, TypeError):
                raise FrameError("a frame fails authentication (forged, replayed, reordered or "
                                 "injected by someone without the link's keys)") from None
        try:
            # transport frames are not signed or hashed, so plain msgpack is enough; the
            # signed messages inside are checked canonically by the session
            return msgpack.unpackb(data, raw=False, strict_map_key=False, ext_hook=no_ext)
        except (ValueError, TypeError, msgpack.UnpackException) as exc:
            raise FrameError(f"undecodable frame: {type(exc).__name__}: {exc}") from None

    async def send(self, obj: Any) -> None:
        """Send one frame: a value, or a value already encoded by `pack` (sent to several
        links, it is encoded once)."""
        data = encode(obj)
        async with self._send_lock:
            if self._push is not None:   # sealed in send order, under the lock
                data = sodium.crypto_secretstream_xchacha20poly1305_push(self._push, data)
            await self.stream.send_all(struct.pack(">I", len(data)) + data)

    async def aclose(self) -> None:
        with trio.move_on_after(1):
            await self.stream.aclose()
