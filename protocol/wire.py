"""Canonical msgpack: one byte string for every value, so signatures and hashes agree.

Allowed values: None, bool, int (64-bit range), bytes, str, list/tuple (encoded as
arrays) and dicts whose keys are str or int, written sorted by their encoded bytes.
Floats, extension types and anything else are refused. Decoding re-encodes what it
read and rejects input that is not byte-for-byte canonical, has trailing bytes or is
larger than the size limit.
"""

from __future__ import annotations

import threading
from typing import Any

import msgpack

MAX_SIZE = 1 << 20
"""Default upper bound for one encoded value (1 MiB); callers may pass their own."""



class WireError(ValueError):
    """The bytes are not one canonical Caravan value; the message says why."""


class _Unsorted(Exception):
    """Internal: a map's keys are not in canonical order (or repeat)."""


_KEY_BYTES: dict[str | int, bytes] = {}
"""Encodings of the map keys seen so far (messages use a few dozen); bounded below."""


def _key_bytes(k: str | int) -> bytes:
    kb = _KEY_BYTES.get(k)
    if kb is None:
        kb = msgpack.packb(k, use_bin_type=True)
        if len(_KEY_BYTES) < 4096:
            _KEY_BYTES[k] = kb
    return kb


def _check_pairs(pairs: list) -> dict:
    """object_pairs_hook: accept a map only if its keys are str/int, sorted and unique."""
    prev = b""
    for k, _ in pairs:
        if type(k) is not str and type(k) is not int:
            raise WireError(f"map key {k!r} is not a str or int")
        kb = _KEY_BYTES.get(k) or _key_bytes(k)
        if kb <= prev:
            raise _Unsorted
        prev = kb
    return dict(pairs)


_packers = threading.local()


def packers_of_this_thread() -> tuple[msgpack.Packer, msgpack.Packer]:
    """(double-float packer, single-float packer), reused: making a Packer costs more than
    packing a small value. One pair per thread, as a Packer has a buffer of its own."""
    try:
        return _packers.pair
    except AttributeError:
        _packers.pair = pair = (msgpack.Packer(use_bin_type=True),
                                msgpack.Packer(use_bin_type=True, use_single_float=True))
        return pair


def _canon(obj: Any) -> Any:
    """Return obj with every dict rebuilt in canonical key order (the slow path)."""
    t = type(obj)
    if t is list or t is tuple:
        return [_canon(x) for x in obj]
    if t is dict:
        items = []
        for k, v in obj.items():
            if type(k) not in (str, int):
                raise WireError(f"map key {k!r} is not a str or int")
            items.append((_key_bytes(k), k, _canon(v)))
        items.sort(key=lambda kv: kv[0])
        return {k: v for _, k, v in items}
    return obj


def _pack(obj: Any) -> bytes:
    pack, pack_single = packers_of_this_thread()
    try:
        data = pack.pack(obj)
        single = pack_single.pack(obj)
    except OverflowError:
        raise WireError("an integer is outside the 64-bit msgpack range") from None
    except (TypeError, ValueError) as exc:
        raise WireError(f"cannot be encoded: {exc}") from None
    if single != data:     # only floats encode differently in single precision
        raise WireError("floats are not allowed in Caravan messages")
    return data


def encode(obj: Any) -> bytes:
    """Encode obj canonically; raises WireError for values that have no canonical form.

    Fast path: msgpack packs in C, and one C-speed read-back checks every map's key order;
    only values with unsorted maps are rebuilt in Python."""
    data = _pack(obj)
    try:
        msgpack.unpackb(data, raw=False, strict_map_key=False, object_pairs_hook=_check_pairs)
    except _Unsorted:
        data = _pack(_canon(obj))
    except UnicodeDecodeError:
        raise WireError("a string is not valid UTF-8") from None
    return data


def encode_known(obj: Any) -> bytes:
    """Encode a value the caller built from ints, bytes, str and lists of those only (no
    maps, no floats), which msgpack writes canonically: the checks of `encode` are skipped."""
    return packers_of_this_thread()[0].pack(obj)


def no_ext(code: int, data: bytes) -> Any:
    """msgpack's ext_hook for wire data: no extension type is ever valid."""
    raise WireError(f"msgpack extension type {code} is not allowed")


_ORDERED_KEYS: dict[tuple[str, ...], None] = {}
"""Key tuples of str-only maps known sorted (messages use a few dozen); bounded below. Only
str keys: a str never equals a bool, int or float key, so a hit proves the key types too."""


def ordered(d: dict) -> dict:
    """decode's fast-path object_hook: the keys are str/int, sorted and not repeated (a
    repeat merged into one key is caught by the byte comparison after the unpack)."""
    keys = tuple(d)
    if keys in _ORDERED_KEYS:
        return d
    _check_pairs(list(d.items()))
    if len(_ORDERED_KEYS) < 4096 and all(type(k) is str for k in keys):
        _ORDERED_KEYS[keys] = None
    return d


def decode(data: bytes, max_size: int = MAX_SIZE) -> Any:
    """Decode one canonical value, or raise WireError naming what is wrong with the bytes.

    Fast path (every message goes through it): an unpack with a cached key-order check and
    one re-encoding, accepted only if it reproduces the bytes exactly and cannot hold a
    float; anything else is decided by `_decode_checked`, so the answer (the value, or the
    error and its text) is the same as that path gives for every input."""
    if type(data) is bytes and 0 < len(data) <= max_size:
        try:
            obj = msgpack.unpackb(data, raw=False, strict_map_key=False, ext_hook=no_ext, object_hook=ordered)
            pack, pack_single = packers_of_this_thread()
            # with no 0xcb byte, an exact re-encoding holds no float (floats encode as 0xcb)
            if pack.pack(obj) == data and (b"\xcb" not in data or pack_single.pack(obj) == data):
                return obj
        except Exception:
            pass
    return _decode_checked(data, max_size)


def _decode_checked(data: bytes, max_size: int = MAX_SIZE) -> Any:
    """decode, every check made on its own so that the error names the first problem."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise WireError(f"expected bytes, got {type(data).__name__}")
    data = bytes(data)
    if len(data) > max_size:
        raise WireError(f"{len(data)} bytes is over the size limit of {max_size}")
    if not data:
        raise WireError("empty input")
    try:
        obj = msgpack.unpackb(
            data, raw=False, use_list=True, strict_map_key=False, ext_hook=no_ext,
            object_pairs_hook=_check_pairs,
        )
    except WireError:
        raise
    except _Unsorted:
        raise WireError("not canonical: map keys unsorted or repeated") from None
    except msgpack.ExtraData:
        raise WireError("trailing bytes after the value") from None
    except UnicodeDecodeError:
        raise WireError("a string is not valid UTF-8") from None
    except (ValueError, TypeError, msgpack.UnpackException) as exc:
        why = str(exc) or {"StackError": "nested too deeply", "FormatError": "invalid type byte"}.get(
            type(exc).__name__, type(exc).__name__)
        raise WireError(f"malformed msgpack: {why}") from None
    if _pack(obj) != data:
        raise WireError("not canonical: a non-minimal encoding")
    return obj
