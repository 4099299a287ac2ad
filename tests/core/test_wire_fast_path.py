"""wire.decode and hashing take fast paths (issue 25 item 5); it must answer exactly as the
fully checked path does (tagged_hash: the same bytes as encode): the same value, or the same error with the same text, for every
input, including non-canonical, float-holding, mistyped-key and corrupted bytes."""

import msgpack
from hypothesis import given, settings, strategies as st

from protocol import wire

keys = st.text(max_size=4) | st.integers(-3, 300) | st.booleans() | st.floats(allow_nan=False) | st.binary(max_size=2)
leaves = (st.none() | st.booleans() | st.integers(-(1 << 64), 1 << 65) | st.floats() | st.binary(max_size=40)
          | st.text(max_size=10))
values = st.recursive(leaves, lambda inner: st.lists(inner, max_size=4) | st.tuples(inner, inner)
                      | st.dictionaries(keys, inner, max_size=4), max_leaves=20)


def _outcome(fn, arg):
    try:
        return "ok", fn(arg)
    except Exception as exc:           # the error's type and text are part of the answer
        return type(exc).__name__, str(exc)


def _raw(v):
    """Any msgpack bytes for v, canonical or not (keys in the order given, floats kept)."""
    return msgpack.packb(v, use_bin_type=True, strict_types=False)


@settings(max_examples=400, deadline=None)
@given(values, st.data())
def test_decode_answers_as_the_checked_path(v, data):
    try:
        raw = _raw(v)
    except Exception:
        return
    # also flip, cut or extend the bytes: the fast path must refuse them exactly as before
    mutate = data.draw(st.sampled_from(["none", "flip", "cut", "extend", "single"]))
    if mutate == "flip" and raw:
        i = data.draw(st.integers(0, len(raw) - 1))
        raw = raw[:i] + bytes([data.draw(st.integers(0, 255))]) + raw[i + 1:]
    elif mutate == "cut":
        raw = raw[:data.draw(st.integers(0, len(raw)))]
    elif mutate == "extend":
        raw += data.draw(st.binary(min_size=1, max_size=3))
    elif mutate == "single":
        try:
            raw = msgpack.packb(v, use_bin_type=True, use_single_float=True)
        except OverflowError:
            return
    assert _outcome(wire.decode, raw) == _outcome(wire._decode_checked, raw)


def test_decode_fast_path_refuses_what_it_cannot_prove():
    """Cases the fast path's shortcuts could miss: a repeated key (merged by the unpack), a
    bool key (equal to 1 in a key tuple), a float64 that re-encodes exactly, a float32."""
    cases = [b"\x82\xa1a\x01\xa1a\x02",                       # {"a": 1, "a": 2}
             b"\x81\xc3\x01",                                   # {True: 1}
             msgpack.packb({1: 0}) + b"",                       # {1: 0}: fine
             msgpack.packb({"x": 1.5}),                         # float64
             msgpack.packb({"x": 1.5}, use_single_float=True),  # float32
             msgpack.packb([{"b": 1, "a": 2}])]                 # unsorted inside a list
    wire.decode(msgpack.packb({1: 0}))
    wire.decode(msgpack.packb({"a": 1}))            # fill the key-tuple cache first
    for raw in cases:
        assert _outcome(wire.decode, raw) == _outcome(wire._decode_checked, raw)
    assert _outcome(wire.decode, cases[1])[0] == "WireError"
    assert _outcome(wire.decode, cases[3])[0] == "WireError"


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=5), st.lists(leaves | st.lists(leaves, max_size=2), max_size=4))
def test_tagged_hash_fields_are_encoded_as_encode_does(tag, fields):
    from protocol import hashing
    assert _outcome(lambda f: hashing._encode_fields(tag, tuple(f)), fields) == \
        _outcome(lambda f: wire.encode([tag, *f]), fields)


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=33), st.integers(-5, 70000) | st.booleans(), st.binary(min_size=31, max_size=33))
def test_a_beacon_chain_link_hashes_what_tagged_hash_would(nonce, seat, x):
    from protocol import beacon, hashing
    for _ in range(2):          # the second time from the memo of the fixed part
        assert beacon.chain_step(nonce, seat, x) == hashing.tagged_hash("caravan/beacon-chain/v1", nonce, seat, x)
