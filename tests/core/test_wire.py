import msgpack
import pytest
from hypothesis import given, settings, strategies as st

from protocol import wire

scalars = st.none() | st.booleans() | st.integers(-(1 << 63), (1 << 64) - 1) | st.binary(max_size=40) | st.text(max_size=20)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=8) | st.integers(-50, 50), inner, max_size=5),
    max_leaves=30,
)


@given(values)
def test_roundtrip_is_identity_and_canonical(v):
    data = wire.encode(v)
    assert wire.decode(data) == v
    assert wire.encode(wire.decode(data)) == data


@given(st.dictionaries(st.text(max_size=6), st.integers(-1000, 1000), min_size=2, max_size=6))
def test_key_order_does_not_change_the_bytes(d):
    reordered = dict(reversed(list(d.items())))
    assert wire.encode(d) == wire.encode(reordered)


def test_unsorted_map_is_rejected():
    with pytest.raises(wire.WireError, match="not canonical"):
        wire.decode(msgpack.packb({"b": 1, "a": 2}))


def test_repeated_map_key_is_rejected():
    # fixmap of 2 entries with the key "a" twice
    with pytest.raises(wire.WireError, match="not canonical"):
        wire.decode(b"\x82\xa1a\x01\xa1a\x02")


@pytest.mark.parametrize("data", [b"\xcc\x05", b"\xd0\x01", b"\xcd\x00\x10", b"\xd9\x01a", b"\xdc\x00\x00"])
def test_non_minimal_encodings_are_rejected(data):
    with pytest.raises(wire.WireError, match="not canonical"):
        wire.decode(data)


def test_floats_are_rejected_both_ways():
    with pytest.raises(wire.WireError, match="floats"):
        wire.decode(msgpack.packb([1, 2.5]))
    with pytest.raises(wire.WireError, match="floats"):
        wire.encode({"x": 0.1})


def test_trailing_bytes_extension_and_utf8():
    with pytest.raises(wire.WireError, match="trailing"):
        wire.decode(wire.encode(1) + b"\x00")
    with pytest.raises(wire.WireError, match="extension"):
        wire.decode(b"\xd4\x01\x01")
    with pytest.raises(wire.WireError, match="UTF-8"):
        wire.decode(b"\xa1\xff")
    with pytest.raises(wire.WireError, match="empty"):
        wire.decode(b"")


def test_size_limit():
    data = wire.encode(b"x" * 1000)
    assert wire.decode(data, max_size=2000) == b"x" * 1000
    with pytest.raises(wire.WireError, match="size limit"):
        wire.decode(data, max_size=999)


def test_unencodable_values():
    for bad in [{1.5: 1}, {(1, 2): 3}, object(), 1 << 64, set()]:
        with pytest.raises(wire.WireError):
            wire.encode(bad)


def test_deep_nesting_is_an_error_not_a_crash():
    with pytest.raises(wire.WireError):
        wire.decode(b"\x91" * 100_000 + b"\x01")


@settings(max_examples=500)
@given(st.binary(max_size=200))
def test_random_bytes_decode_or_fail_cleanly(data):
    try:
        v = wire.decode(data)
    except wire.WireError:
        return
    assert wire.encode(v) == data


@settings(max_examples=300)
@given(values, st.data())
def test_mutated_encodings_decode_or_fail_cleanly(v, data):
    raw = bytearray(wire.encode(v))
    i = data.draw(st.integers(0, len(raw) - 1))
    raw[i] = data.draw(st.integers(0, 255))
    try:
        out = wire.decode(bytes(raw))
    except wire.WireError:
        return
    assert wire.encode(out) == bytes(raw)
