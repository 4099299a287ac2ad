"""chain.parse takes a fast path (issue 25 item 5): it may only ever accept what the fully
checked path accepts, with the same value; everything else is left to the checked path,
so the error and its text stay the same. Envelopes here mix valid fields with wrong types,
floats (in the body and in the head: 1.0 == 1), non-canonical encodings and corrupted bytes."""

import msgpack
from hypothesis import given, settings, strategies as st

from protocol import chain
from tests.core.test_wire_fast_path import values

GID = bytes(range(32))
ID = bytes(32)

fields = st.fixed_dictionaries({
    "version": st.sampled_from([1, True, 1.0, 2]) | values,
    "game_id": st.just(GID) | st.binary(min_size=31, max_size=33) | values,
    "author": st.just(GID) | values,
    "seq": st.integers(-2, 70000) | st.booleans() | values,
    "prev": st.just(ID) | values,
    "refs": st.lists(st.lists(st.integers(-1, 300) | st.just(ID) | values, min_size=3, max_size=3)
                     | st.tuples(st.integers(0, 5), st.integers(0, 300), st.just(ID)), max_size=3) | values,
    "kind": st.sampled_from(["act", "k" * 32, "k" * 33, "", "é"]) | values,
    "body": values,
})


def _outcome(parse, raw):
    try:
        return "ok", parse(raw)
    except chain.ParseError as exc:
        return "ParseError", str(exc)


def _checked_parse(raw):
    fast, chain._parse_fast = chain._parse_fast, lambda *a: None
    try:
        return chain.parse(raw)
    finally:
        chain._parse_fast = fast


@settings(max_examples=500, deadline=None)
@given(fields, st.booleans(), st.data())
def test_parse_answers_as_the_checked_path(env, single, data):
    try:
        env_bytes = msgpack.packb(list(env.values()), use_bin_type=True, use_single_float=single)
    except Exception:
        return
    mutate = data.draw(st.sampled_from(["none", "none", "flip", "cut", "extend"]))
    if mutate == "flip":
        i = data.draw(st.integers(0, len(env_bytes) - 1))
        env_bytes = env_bytes[:i] + bytes([data.draw(st.integers(0, 255))]) + env_bytes[i + 1:]
    elif mutate == "cut":
        env_bytes = env_bytes[:data.draw(st.integers(0, len(env_bytes)))]
    elif mutate == "extend":
        env_bytes += data.draw(st.binary(min_size=1, max_size=3))
    raw = chain._outer(env_bytes, bytes(64))
    assert _outcome(chain.parse, raw) == _outcome(_checked_parse, raw)


def test_the_fast_path_takes_a_valid_message_and_refuses_a_float_in_the_head():
    good = [1, GID, GID, 5, ID, [[0, 1, ID]], "act", {"a": [1.5], "o": []}]
    body_float = chain._outer(msgpack.packb(good), bytes(64))
    head_float = chain._outer(msgpack.packb([1.0, *good[1:7], {"a": 1}]), bytes(64))
    ok = chain._outer(msgpack.packb([*good[:7], {"a": b"\xcb" * 3, "o": []}]), bytes(64))
    assert chain._parse_fast(ok, *chain.split_outer(ok)) == _checked_parse(ok)
    for raw in (body_float, head_float):
        assert chain._parse_fast(raw, *chain.split_outer(raw)) is None
        assert _outcome(chain.parse, raw) == ("ParseError", "envelope: floats are not allowed in Caravan messages")


def test_a_version_that_only_equals_1_in_python_is_refused():
    """`true` (msgpack 0xc3) is 1 to Python's `==`, but it is not the integer version 1: a
    second encoding of the same message with its own id would verify otherwise."""
    raw = chain._outer(msgpack.packb([True, GID, GID, 5, ID, [], "act", {}]), bytes(64))
    assert _outcome(chain.parse, raw) == ("ParseError", "unsupported message version True")
