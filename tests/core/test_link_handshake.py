"""The handshake's state machine alone (protocol/link/handshake.py), fed frames and the time
as a trio, asyncio or browser driver would: no sockets, no clock. Bad input is refused with
its cause and, when it is signed, the key that signed it (or claims to)."""

import hashlib

import msgpack
import nacl.bindings as sodium
import pytest

from protocol.deck.group import SMALL_ORDER_POINTS
from protocol.identity import SigningKey, fingerprint
from protocol.link.framing import FrameError, TcpFraming
from protocol.link.handshake import (AUTH, DONE, HELLO, VERSION, Handshake, HandshakeError, hello_signed,
                                     key_pin, pin_inbox)

SCOPE = b"s" * 32
A, B, C = (SigningKey(bytes([n]) * 32) for n in (1, 2, 3))


def pair(now: float = 0.0, **listener) -> tuple[Handshake, Handshake]:
    """A dialer (key A) and a listener (key B) on one link."""
    return (Handshake(A, SCOPE, dialer=True, now=now, timeout=5.0, link=b"a/b/1"),
            Handshake(B, SCOPE, dialer=False, now=now, timeout=5.0, link=b"a/b/1", **listener))


def run(dialer: Handshake, listener: Handshake) -> None:
    """Both ends to the end, each frame handed over as a driver would."""
    [auth_b] = listener.receive(dialer.hello, 1.0)
    [auth_a] = dialer.receive(listener.hello, 1.0)
    assert dialer.receive(auth_b, 2.0) == [] and listener.receive(auth_a, 2.0) == []


def forged_hello(key: SigningKey, signer: SigningKey, *, role: str = "listener", link: bytes = b"a/b/1",
                 eph: bytes | None = None) -> dict:
    """A hello naming `key`, signed by `signer` for `role` on `link`."""
    hello = {"t": "hello", "v": VERSION, "scope": SCOPE, "key": key.public, "nonce": b"n" * 32,
             "eph": eph if eph is not None else sodium.crypto_scalarmult_base(b"e" * 32)}
    hello["sig"] = signer.sign(hello_signed(role, SCOPE, link, hello))
    return hello


def test_two_ends_prove_their_keys_and_share_a_sealed_stream():
    dialer, listener = pair()
    run(dialer, listener)
    assert (dialer.step, listener.step) == (DONE, DONE)
    assert (dialer.peer_key, listener.peer_key) == (B.public, A.public)
    a, b = TcpFraming(), TcpFraming()
    a.seal(dialer.push, dialer.pull)
    b.seal(listener.push, listener.pull)
    wire = a.frame({"n": 1}) + a.frame({"n": 2})
    for byte in wire:                                     # the stream cut anywhere
        b.feed(bytes([byte]))
    assert [b.next(), b.next()] == [{"n": 1}, {"n": 2}]
    b.feed(a.frame({"n": 3}))
    a.feed(b.frame("back"))
    assert b.next() == {"n": 3} and a.next() == "back"


def test_the_hello_on_the_wire_is_the_trio_nodes():
    """Given the same random bytes, the hello's bytes are those of the node before the state
    machine (measured against it when it moved): the wire format did not change."""
    hello = Handshake(SigningKey(b"k" * 32), b"s" * 32, dialer=True, now=0, timeout=5, link=b"a/b/c",
                      eph_secret=bytes(range(100, 132)), nonce=bytes(range(32))).hello
    assert hashlib.sha256(msgpack.packb(hello, use_bin_type=True)).hexdigest() == \
        "d1312144832f58da0a76d9c7e2d3296df59177c25b6d4a40df1ecbe1df349215"


@pytest.mark.parametrize("bad,cause", [
    (None, "did not send a valid hello"),
    (b"\x00junk", "did not send a valid hello"),
    ({"t": "hello", "v": VERSION - 1}, "did not send a valid hello"),
    ({"t": "auth", "sig": b"x" * 64, "hdr": b"h" * 24}, "did not send a valid hello"),
])
def test_a_malformed_hello_is_refused(bad, cause):
    _, listener = pair()
    with pytest.raises(HandshakeError, match=cause):
        listener.receive(bad, 0.5)
    assert listener.step == HELLO


def test_a_hello_signed_by_another_key_names_the_key_it_claims():
    _, listener = pair()
    with pytest.raises(HandshakeError, match=f"not signed by its key {fingerprint(A.public)} for this link"):
        listener.receive(forged_hello(A, C, role="dialer"), 0.5)


@pytest.mark.parametrize("change,cause", [
    ({"role": "listener"}, "not signed by its key"),            # a listener's hello relayed to a listener
    ({"link": b"a/b/2"}, "not signed by its key"),              # replayed from another link
])
def test_a_hello_relayed_or_replayed_from_elsewhere_is_refused(change, cause):
    _, listener = pair()
    with pytest.raises(HandshakeError, match=f"{cause} {fingerprint(A.public)}"):
        listener.receive(forged_hello(A, A, **{"role": "dialer", **change}), 0.5)


def test_a_hello_for_another_scope_is_refused():
    _, listener = pair()
    hello = dict(forged_hello(A, A, role="dialer"), scope=b"t" * 32)
    with pytest.raises(HandshakeError, match="another lobby or game"):
        listener.receive(hello, 0.5)


def test_a_reflected_hello_is_refused():
    dialer, _ = pair()
    with pytest.raises(HandshakeError, match="echoed this node's own hello"):
        dialer.receive(dict(dialer.hello), 0.5)


@pytest.mark.parametrize("weak", [SMALL_ORDER_POINTS[0], bytes(32)])
def test_a_weak_key_is_refused(weak):
    _, listener = pair()
    hello = dict(forged_hello(A, A, role="dialer"), key=weak)
    with pytest.raises(HandshakeError, match="not a valid Ed25519 key"):
        listener.receive(hello, 0.5)


def test_a_key_other_than_the_pinned_or_the_inbox_owner_is_named():
    _, pinned = pair(expect=key_pin(C.public))
    with pytest.raises(HandshakeError, match=f"key {fingerprint(A.public)}, not the one expected"):
        pinned.receive(forged_hello(A, A, role="dialer"), 0.5)
    _, inbox = pair(peer_inbox=pin_inbox(key_pin(C.public)))
    with pytest.raises(HandshakeError, match=f"key {fingerprint(A.public)} does not own the inbox"):
        inbox.receive(forged_hello(A, A, role="dialer"), 0.5)


def test_an_invalid_x25519_key_is_refused():
    _, listener = pair()
    with pytest.raises(HandshakeError, match="X25519 key is invalid"):
        listener.receive(forged_hello(A, A, role="dialer", eph=bytes(32)), 0.5)


def test_a_replayed_auth_from_an_earlier_handshake_names_the_peer():
    """The same two keys, an earlier connection: its auth signs that exchange, not this one."""
    old_dialer, old_listener = pair()
    [old_auth] = old_dialer.receive(old_listener.hello, 0.5)
    dialer, listener = pair()
    listener.receive(dialer.hello, 1.0)
    with pytest.raises(HandshakeError, match=f"does not cover this connection .*key {fingerprint(A.public)}"):
        listener.receive(old_auth, 1.5)
    with pytest.raises(HandshakeError, match="did not answer the challenge"):
        listener.receive({"t": "auth", "sig": b"x", "hdr": b"short"}, 1.5)
    assert listener.step == AUTH and listener.pull is None


def test_frames_after_the_end_are_refused():
    dialer, listener = pair()
    run(dialer, listener)
    with pytest.raises(HandshakeError, match="the handshake is over"):
        listener.receive(dialer.hello, 3.0)


def test_a_flood_of_hellos_leaves_the_awaited_step_open():
    """Over a broker anyone may publish: `fits` takes the real peer's hello among junk,
    replays and forgeries, and none of them changes the state."""
    dialer, listener = pair()
    junk = [None, {}, forged_hello(A, C, role="dialer"), forged_hello(A, A, role="listener"), listener.hello,
            dict(forged_hello(A, A, role="dialer"), v=VERSION + 1)] * 100
    assert not any(listener.fits(f) for f in junk)
    assert listener.step == HELLO and listener.fits(dialer.hello)


def test_time_is_what_the_driver_says():
    dialer, _ = pair(now=100.0)
    assert dialer.expired(104.9) is None
    assert dialer.expired(105.0) == "no handshake within 5 s"
    proven, listener = pair(now=100.0)
    listener.receive(proven.hello, 104.0, proven_timeout=20.0)
    assert listener.deadline == 124.0 and listener.expired(110.0) is None


def test_tcp_framing_refuses_what_is_not_a_frame():
    reader = TcpFraming(max_frame=100)
    reader.feed((101).to_bytes(4, "big"))
    with pytest.raises(FrameError, match="frame of 101 bytes is over the 100-byte limit"):
        reader.whole()                                    # before any of it is waited for
    for payload, cause in ((b"\xc1", "undecodable frame"), (b"\xd4\x05\x00", "extension type 5")):
        reader = TcpFraming()
        reader.feed(len(payload).to_bytes(4, "big") + payload)
        with pytest.raises(FrameError, match=cause):
            reader.next()


def test_a_sealed_frame_tampered_or_replayed_fails_authentication():
    dialer, listener = pair()
    run(dialer, listener)
    a, b = TcpFraming(), TcpFraming()
    a.seal(dialer.push, dialer.pull)
    b.seal(listener.push, listener.pull)
    first = a.frame({"n": 1})
    tampered = first[:-1] + bytes([first[-1] ^ 1])
    for bad in (tampered,):
        b.feed(bad)
        with pytest.raises(FrameError, match="fails authentication"):
            b.next()
    b.feed(first)
    assert b.next() == {"n": 1}
    b.feed(first)                                         # the same frame again
    with pytest.raises(FrameError, match="fails authentication"):
        b.next()


@pytest.mark.parametrize("core", ["link", "mail"])
def test_the_link_core_imports_nothing_a_tab_lacks(core):
    """protocol/link and protocol/mail run in the browser tab: no trio, sockets, clocks, files,
    threads or random sources of their own (no `os`), and of PyNaCl only `nacl.bindings` (what
    the tab's shim provides)."""
    import ast
    from pathlib import Path

    # hashlib: deterministic digests, in Pyodide's standard library (the relay link's TAKEN_KEPT);
    # urllib.parse: pure parsing, in Pyodide's standard library (relay_url.py: the tab reads invites);
    # copy and json: pure, in Pyodide's standard library (the courier's state at a mark, the
    # lobby by mail's announcement)
    allowed = {"__future__", "struct", "typing", "collections", "dataclasses", "hashlib", "urllib.parse", "msgpack",
               "nacl.bindings", "nacl.exceptions", "copy", "json"}
    found = {}
    for path in (Path(__file__).resolve().parents[2] / "protocol" / core).glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module] if isinstance(node, ast.ImportFrom) and node.level == 0 else [])
            found.update({name: path.name for name in names if name not in allowed})
    assert found == {}
