"""The envelope checks that issue #17 item 4 rewrote for speed still refuse what they refused:
each case below is accepted if its check is dropped."""

import msgpack
import pytest

from protocol import chain, wire
from protocol.identity import SigningKey

KEY = SigningKey.from_seed(b"\x05" * 32)
GID = bytes(32)
REFS = [[0, 3, b"\x01" * 32], [2, 0, b"\x02" * 32]]


def _message(**fields) -> bytes:
    """A signed message whose envelope holds `fields` in place of valid ones (encoded as given)."""
    env = dict(version=1, game_id=GID, author=KEY.public, seq=4, prev=GID, refs=REFS, kind="act",
               body={"a": 1})
    env.update(fields)
    env_bytes = wire.encode(list(env.values()))
    sig = KEY.sign(b"caravan/sig/v1" + chain.message_id(env_bytes))
    return chain._outer(env_bytes, sig)


def _parts(raw: bytes) -> tuple[bytes, bytes]:
    return chain.split_outer(raw)


def test_the_valid_base_case_parses_and_verifies():
    m = chain.parse(_message())
    assert m.refs == REFS and m.body == {"a": 1} and m.signature_ok()
    assert chain.parse(_message(kind="k" * 32, seq=0, refs=[])).kind == "k" * 32


def test_message_is_immutable():
    m = chain.parse(_message())
    with pytest.raises(AttributeError):
        m.seq = 5


@pytest.mark.parametrize("fields, why", [
    ({"version": 2}, "version"),
    ({"game_id": b"\x00" * 31}, "game id"),
    ({"game_id": "x" * 32}, "game id"),
    ({"author": KEY.public[:31]}, "author"),
    ({"seq": -1}, "seq"),
    ({"seq": "4"}, "seq"),
    ({"seq": True}, "seq"),
    ({"prev": b"\x00" * 33}, "prev"),
    ({"kind": ""}, "kind"),
    ({"kind": "k" * 33}, "kind"),
    ({"kind": b"act"}, "kind"),
    ({"refs": {"0": 1}}, "refs is not an array"),
    ({"refs": [[0, 3]]}, "a ref is"),
    ({"refs": [[0, -1, GID]]}, "a ref is"),
    ({"refs": [["0", 1, GID]]}, "a ref is"),
    ({"refs": [[0, 1, GID[:31]]]}, "a ref is"),
    ({"refs": [[0, 1, GID, 5]]}, "a ref is"),
    ({"refs": [(2, 1, GID), [1, 1, GID]]}, "sorted"),
    ({"refs": [[1, 1, GID], [1, 2, GID]]}, "sorted"),
])
def test_each_bad_field_is_refused_and_named(fields, why):
    with pytest.raises(chain.ParseError, match=why):
        chain.parse(_message(**fields))


def test_the_first_bad_field_is_the_one_named():
    with pytest.raises(chain.ParseError, match="game id"):
        chain.parse(_message(game_id=b"", seq=-1, kind=""))


def test_a_float_anywhere_in_the_envelope_is_refused():
    for body in (0.5, [1, 0.5], {"a": {"b": [0.5]}}):
        with pytest.raises(chain.ParseError, match="floats"):
            chain.parse(_with_raw_body(msgpack.packb(body)))
    with pytest.raises(chain.ParseError, match="floats"):
        chain.parse(_with_raw_version(msgpack.packb(1.0)))     # 1.0 == 1, but it is a float


def _with_raw_body(body_bytes: bytes) -> bytes:
    head = msgpack.packb([1, GID, KEY.public, 4, GID, REFS, "act"], use_bin_type=True)
    env = b"\x98" + head[1:] + body_bytes
    return chain._outer(env, KEY.sign(b"caravan/sig/v1" + chain.message_id(env)))


def _with_raw_version(version_bytes: bytes) -> bytes:
    rest = msgpack.packb([GID, KEY.public, 4, GID, REFS, "act", 1], use_bin_type=True)
    env = b"\x98" + version_bytes + rest[1:]
    return chain._outer(env, KEY.sign(b"caravan/sig/v1" + chain.message_id(env)))


def test_outer_wrapper_must_use_the_shortest_length_header():
    raw = _message(body={"pad": b"x" * 300})
    env, sig = _parts(raw)
    assert 256 <= len(env) < 65536 and raw[1] == 0xc5
    as_bin32 = b"\x92\xc6" + len(env).to_bytes(4, "big") + env + b"\xc4\x40" + sig
    with pytest.raises(chain.ParseError, match="non-minimal"):
        chain.parse(as_bin32)
    small_env, small_sig = _parts(_message())
    assert len(small_env) < 256
    for header in (b"\xc5" + len(small_env).to_bytes(2, "big"), b"\xc6" + len(small_env).to_bytes(4, "big")):
        with pytest.raises(chain.ParseError, match="non-minimal"):
            chain.parse(b"\x92" + header + small_env + b"\xc4\x40" + small_sig)


@pytest.mark.parametrize("cut, why", [
    (lambda env, sig: b"\x92\xc5\x01", "non-minimal"),
    (lambda env, sig: b"\x92\xc4\xff" + env, "signature is missing"),
    (lambda env, sig: b"\x92\xc4" + bytes([len(env)]) + env + b"\xc5\x00\x40" + sig, "signature is missing"),
    (lambda env, sig: b"\x92\xc4" + bytes([len(env)]) + env + b"\xc4\x3f" + sig[:63], "signature is missing"),
    (lambda env, sig: b"\x92\xc4" + bytes([len(env)]) + env + b"\xc4\x40" + sig[:63], "signature is missing"),
    (lambda env, sig: b"\x92\xc4" + bytes([len(env)]) + env + b"\xc4\x40" + sig + b"\x00", "trailing"),
])
def test_outer_wrapper_refuses_bad_lengths(cut, why):
    env, sig = _parts(_message())
    with pytest.raises(chain.ParseError, match=why):
        chain.parse(cut(env, sig))


@pytest.mark.parametrize("value", [0.5, [1, 0.5], {"a": 0.5}, {"a": [{"b": 0.5}]}])
@pytest.mark.parametrize("single", [False, True])
def test_wire_refuses_float32_and_float64_everywhere(value, single):
    data = msgpack.packb(value, use_single_float=single)
    assert (b"\xca" if single else b"\xcb") in data
    with pytest.raises(wire.WireError, match="floats"):
        wire.decode(data)


def test_float_marker_bytes_inside_payloads_are_not_floats():
    value = {"b": b"\xca\xcb\x00\x00\x00\x00\x00\x00\x00\x00", "s": "\u02cb", "i": [0xcb, -0x35]}
    assert wire.decode(wire.encode(value)) == value


def test_a_failed_encode_leaves_nothing_behind_for_the_next():
    for bad in (object(), [1, 1 << 64], {"x": 0.5}, [1, "\ud800"]):
        with pytest.raises(wire.WireError):
            wire.encode(bad)
        assert wire.encode([1, 2]) == b"\x92\x01\x02"
        assert wire.encode_known([3, b"\x04"]) == b"\x92\x03\xc4\x01\x04"

