"""Canonical msgpack: one byte string for every value, so signatures and hashes agree.

Allowed values: None, bool, int (64-bit range), bytes, str, list/tuple (encoded as
arrays) and dicts whose keys are str or int, written sorted by their encoded bytes.
Floats, extension types and anything else are refused. Decoding re-encodes what it
read and rejects input that is not byte-for-byte canonical, has trailing bytes or is
larger than the size limit.
"""

from __future__ import annotations

from typing import Any

import msgpack

MAX_SIZE = 1 << 20
"""Default upper bound for one encoded value (1 MiB); callers may pass their own."""

_INT_MIN, _INT_MAX = -(1 << 63), (1 << 64) - 1


class WireError(ValueError):
    """The bytes are not one canonical Caravan value; the message says why."""


def _canon(obj: Any) -> Any:
    """Return obj with every dict rebuilt in canonical key order; refuse other types."""
    t = type(obj)
    if t is bytes or t is str or obj is None or t is bool:
        return obj
    if t is int:
        if not _INT_MIN <= obj <= _INT_MAX:
            raise WireError(f"integer {obj} is outside the 64-bit msgpack range")
        return obj
    if t is list or t is tuple:
        return [_canon(x) for x in obj]
    if t is dict:
        items = []
        for k, v in obj.items():
            if type(k) not in (str, int):
                raise WireError(f"map key {k!r} is not a str or int")
            items.append((msgpack.packb(_canon(k), use_bin_type=True), k, _canon(v)))
        items.sort(key=lambda kv: kv[0])
        return {k: v for _, k, v in items}
    if t is float:
        raise WireError("floats are not allowed in Caravan messages")
    raise WireError(f"type {t.__name__} cannot be encoded")


def encode(obj: Any) -> bytes:
    """Encode obj canonically; raises WireError for values that have no canonical form."""
    return msgpack.packb(_canon(obj), use_bin_type=True)


def _no_ext(code: int, data: bytes) -> Any:
    raise WireError(f"msgpack extension type {code} is not allowed")


def decode(data: bytes, max_size: int = MAX_SIZE) -> Any:
    """Decode one canonical value, or raise WireError naming what is wrong with the bytes."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise WireError(f"expected bytes, got {type(data).__name__}")
    data = bytes(data)
    if len(data) > max_size:
        raise WireError(f"{len(data)} bytes is over the size limit of {max_size}")
    if not data:
        raise WireError("empty input")
    try:
        obj = msgpack.unpackb(
            data, raw=False, use_list=True, strict_map_key=False, ext_hook=_no_ext
        )
    except WireError:
        raise
    except msgpack.ExtraData:
        raise WireError("trailing bytes after the value") from None
    except UnicodeDecodeError:
        raise WireError("a string is not valid UTF-8") from None
    except (ValueError, TypeError, msgpack.UnpackException) as exc:
        why = str(exc) or {"StackError": "nested too deeply", "FormatError": "invalid type byte"}.get(type(exc).__name__, type(exc).__name__)
        raise WireError(f"malformed msgpack: {why}") from None
    try:
        again = encode(obj)
    except RecursionError:
        raise WireError("value is nested too deeply") from None
    if again != data:
        raise WireError("not canonical (map keys unsorted or repeated, or a non-minimal encoding)")
    return obj
