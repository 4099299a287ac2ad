"""Frames: one msgpack value each, sealed after the handshake as one crypto_secretstream
message; over TCP each is a 4-byte big-endian length, then the payload (`TcpFraming`)."""

from __future__ import annotations

import struct
from typing import Any

import msgpack
import nacl.bindings as sodium
import nacl.exceptions

MAX_FRAME = 1 << 20
SEAL_BYTES = sodium.crypto_secretstream_xchacha20poly1305_ABYTES
"""What sealing adds to a frame's payload."""


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


def decode(data: bytes) -> Any:
    """A frame's value (FrameError naming why it is not one). Transport frames are not signed
    or hashed, so plain msgpack is enough; the signed messages inside are checked
    canonically by the session."""
    try:
        return msgpack.unpackb(data, raw=False, strict_map_key=False, ext_hook=no_ext)
    except (ValueError, TypeError, msgpack.UnpackException) as exc:
        raise FrameError(f"undecodable frame: {type(exc).__name__}: {exc}") from None


def try_open(pull: Any, data: bytes) -> bytes | None:
    """A sealed message opened with the secretstream state `pull`, or None when it fails
    authentication (libsodium then leaves `pull` as it was, so the next one may still open)."""
    try:
        return sodium.crypto_secretstream_xchacha20poly1305_pull(pull, data)[0]
    except (nacl.exceptions.CryptoError, ValueError, TypeError):
        return None


def seal(push: Any, data: bytes) -> bytes:
    return sodium.crypto_secretstream_xchacha20poly1305_push(push, data)


class TcpFraming:
    """TCP's side of framing: bytes in (`feed`), whole frames' values out (`next`). Sealed
    once `seal` is called: every frame written is then sealed with `push`, and every frame
    read must open with `pull`."""

    def __init__(self, max_frame: int = MAX_FRAME):
        self.max_frame = max_frame
        self._buf = bytearray()
        self._push: Any = None
        self._pull: Any = None

    def seal(self, push: Any, pull: Any) -> None:
        self._push, self._pull = push, pull

    def feed(self, data: bytes) -> None:
        self._buf += data

    @property
    def buffered(self) -> int:
        """Bytes received and not yet taken as a frame (a frame begun, when not 0)."""
        return len(self._buf)

    def wanted(self) -> int:
        """How many bytes the buffer must hold for its next frame to be whole (FrameError when
        its header announces more than the limit, before any of it is waited for)."""
        if len(self._buf) < 4:
            return 4
        (n,) = struct.unpack_from(">I", self._buf)
        if n > self.max_frame + (SEAL_BYTES if self._pull is not None else 0):
            raise FrameError(f"frame of {n} bytes is over the {self.max_frame}-byte limit")
        return 4 + n

    def whole(self) -> bool:
        """Whether a whole frame is buffered (FrameError for an oversized header)."""
        return len(self._buf) >= 4 and len(self._buf) >= self.wanted()

    def next(self) -> Any:
        """The next whole frame's value (call only when `whole()`); FrameError when it fails
        authentication or does not decode."""
        n = self.wanted()
        data = bytes(self._buf[4:n])
        del self._buf[:n]
        if self._pull is not None:
            opened = try_open(self._pull, data)
            if opened is None:
                raise FrameError("a frame fails authentication (forged, replayed, reordered or "
                                 "injected by someone without the link's keys)")
            data = opened
        return decode(data)

    def frame(self, obj: Any) -> bytes:
        """The bytes that carry one frame (a value or a `Packed` one), sealed once sealed:
        call in send order (the seal numbers them)."""
        data = encode(obj)
        if self._push is not None:
            data = seal(self._push, data)
        return struct.pack(">I", len(data)) + data
