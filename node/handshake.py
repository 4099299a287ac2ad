"""Mutual authentication bound to the connection, then an authenticated, encrypted stream.

Each side sends a hello (its Ed25519 key, a fresh nonce and a fresh X25519 key, signed with
its role and the link's id, so that nobody else can make a hello for that key on that link),
then signs the whole exchange: H(scope, the dialer's key, nonce and X25519 key, the listener's) with
its role ("dialer" or "listener"). So a signature proves one end of exactly this
connection, for this lobby or game: an outsider who passes each node's hello to the other
(a relay, issue 16 item 3) gets two listeners (or two dialers) expecting the other role and
both refuse. The frames after the handshake are sealed with libsodium's
crypto_secretstream (XChaCha20-Poly1305, one stream per direction) under keys derived from
the X25519 secret and the signed transcript: an outsider cannot read, inject, drop one
frame unnoticed, reorder or replay, so it cannot take a link over mid-stream either.

Through a broker anyone may publish on a link's topic, so before the link is sealed several
hellos or auths may arrive for one step (issue 27): each is checked on its own and the first
that proves the expected key for exactly this link is taken, the rest are dropped
(`recv(accept=...)`, node/relay_link.py). A forged or replayed frame cannot displace the real
peer's; over TCP there is one sender, and a frame that does not fit fails the handshake.
"""

from __future__ import annotations

import os
from contextlib import contextmanager
from typing import Any, Callable, Iterator

import nacl.bindings as sodium
import nacl.public
import trio

from protocol.hashing import tagged_hash
from protocol.identity import SigningKey, fingerprint, strong_key, verify

from .frames import Connection, FrameError

HANDSHAKE_TIMEOUT = 5.0
VERSION = 3
PIN_BYTES = 16
"""A key pin (what an invite or `HOST:PORT/KEY` names): 128 bits of a hash of the key."""


def key_pin(key: bytes) -> bytes:
    """The pin of a public key: what a joiner is told to expect of the host (a short
    `fingerprint` is for people to compare by eye; a pin must resist a made-up key)."""
    return tagged_hash("caravan/key-pin/v1", key)[:PIN_BYTES]


def parse_pin(text: str, where: str) -> bytes:
    """A key pin as written in an invite or after `HOST:PORT/`: its 32 hex digits (ValueError
    of one line naming `where` otherwise)."""
    text = text.strip().lower()
    if len(text) != 2 * PIN_BYTES or any(c not in "0123456789abcdef" for c in text):
        raise ValueError(f"{where}: the host's key must be {2 * PIN_BYTES} hex digits, as the host "
                         "printed it (copy the whole line)")
    return bytes.fromhex(text)


def pin_inbox(pin: bytes) -> str:
    """The inbox on a relay (node/relay.py) of the key with this pin: the pin's first 8
    bytes, in hex, so a joiner that holds only the host's pin knows where to dial."""
    return pin[:8].hex()


def inbox_of(key: bytes) -> str:
    return pin_inbox(key_pin(key))


class HandshakeSlots:
    """At most `limit` links in their handshake at once. A new link closes the oldest whose
    peer has not yet sent a valid hello, else the oldest: a flood of half-open links cannot
    keep a real peer out (refusing the new link instead would let it), and a link whose peer
    proved its key is the last to go."""

    def __init__(self, limit: int):
        self.limit = limit
        self._pending: list[trio.CancelScope] = []
        self._proven: set[trio.CancelScope] = set()
        self.most = 0
        """The most links ever in their handshake at once (at most `limit`)."""

    def __len__(self) -> int:
        return len(self._pending)

    @contextmanager
    def slot(self) -> Iterator[Callable[[], None]]:
        """Run one link's handshake inside: gives the `on_hello` to pass to `handshake`; the
        block is cancelled (and ends without a result) when a newer link takes its slot."""
        if len(self._pending) >= self.limit:
            unproven = [s for s in self._pending if s not in self._proven]
            oldest = (unproven or self._pending)[0]
            self._pending.remove(oldest)
            oldest.cancel()
        scope = trio.CancelScope()
        self._pending.append(scope)
        self.most = max(self.most, len(self._pending))
        try:
            with scope:
                yield lambda: self._proven.add(scope)
        finally:
            self._proven.discard(scope)
            if scope in self._pending:
                self._pending.remove(scope)


class HandshakeError(Exception):
    pass


def _role(dialer: bool) -> str:
    return "dialer" if dialer else "listener"


def _transcript(scope: bytes, dialer_hello: dict, listener_hello: dict) -> bytes:
    """What both ends sign: the game or lobby, and both hellos in a fixed order."""
    return tagged_hash("caravan/handshake/v2", scope,
                       [dialer_hello["key"], dialer_hello["nonce"], dialer_hello["eph"]],
                       [listener_hello["key"], listener_hello["nonce"], listener_hello["eph"]])


def _signed(role: str, transcript: bytes) -> bytes:
    return tagged_hash("caravan/handshake-auth/v2", role, transcript)


def _stream_key(shared: bytes, transcript: bytes, sender_role: str) -> bytes:
    return tagged_hash("caravan/stream-key/v2", shared, transcript, sender_role)


def _hello_signed(role: str, scope: bytes, link: bytes, hello: dict) -> bytes:
    return tagged_hash("caravan/hello/v3", role, scope, link, hello["key"], hello["nonce"], hello["eph"])


def _valid_hello(hello: object) -> bool:
    return (type(hello) is dict and hello.get("t") == "hello" and hello.get("v") == VERSION
            and type(hello.get("key")) is bytes and type(hello.get("nonce")) is bytes
            and len(hello["nonce"]) == 32 and type(hello.get("eph")) is bytes and len(hello["eph"]) == 32
            and type(hello.get("sig")) is bytes)


def _hello_problem(hello: Any, mine: dict, scope: bytes, link: bytes, role: str, conn: Any,
                   expect: bytes | None) -> str | None:
    """Why the peer's hello cannot be this link's (None: it can)."""
    if not _valid_hello(hello):
        return "the peer did not send a valid hello"
    if hello.get("scope") != scope:
        return "the peer is in another lobby or game"
    key = hello["key"]
    if not strong_key(key):
        return "the peer's key is not a valid Ed25519 key (small order, identity or non-canonical)"
    if key == mine["key"] or hello["nonce"] == mine["nonce"] or hello["eph"] == mine["eph"]:
        return "the peer echoed this node's own hello (a reflection)"
    if not verify(key, hello["sig"], _hello_signed(role, scope, link, hello)):
        return "the peer's hello is not signed by its key for this link"
    inbox = getattr(conn, "peer_inbox", None)
    if inbox is not None and inbox_of(key) != inbox:
        return "the peer's key does not own the inbox this link goes to"
    if expect is not None and key_pin(key) != expect:
        return f"the peer is key {fingerprint(key)}, not the one expected"
    return None


def _auth_problem(auth: Any, peer_key: bytes, signed: bytes) -> str | None:
    if (type(auth) is not dict or auth.get("t") != "auth" or type(auth.get("sig")) is not bytes
            or type(auth.get("hdr")) is not bytes
            or len(auth["hdr"]) != sodium.crypto_secretstream_xchacha20poly1305_HEADERBYTES):
        return "the peer did not answer the challenge"
    if not verify(peer_key, auth["sig"], signed):
        return ("the peer's signature does not cover this connection (a relayed or replayed "
                "handshake, or a wrong key)")
    return None


async def handshake(conn: Connection, key: SigningKey, scope: bytes, *, dialer: bool = True,
                    expect: bytes | None = None, on_hello: Callable[[], None] = lambda: None,
                    received: dict | None = None, timeout: float | None = None,
                    proven_timeout: float | None = None) -> bytes:
    """Run the handshake on a connection this side opened (`dialer`) or accepted; returns
    the peer's proven public key, with `conn` sealed from then on, or raises HandshakeError.
    `expect`: the pin (`key_pin`) the peer's key must have; any other key is refused (over a
    relay its frames are dropped as not this link's, and the real peer's are waited for).
    `on_hello` is called once the peer's hello checked (a lobby spares such links in a flood).
    `received`: the peer's hello, already read (a spectator reads it first to learn the game id
    it names as its scope); it is checked exactly like one read here.
    `timeout` bounds the whole (HANDSHAKE_TIMEOUT by default); `proven_timeout`, once the
    peer's hello checked, the rest: a lobby host behind a flood's backlog reads a proven
    joiner's answer late, and a new try would queue behind that backlog again."""
    timeout = HANDSHAKE_TIMEOUT if timeout is None else timeout
    eph = nacl.public.PrivateKey.generate()
    link = getattr(conn, "link_id", b"")
    mine = {"t": "hello", "v": VERSION, "scope": scope, "key": key.public, "nonce": os.urandom(32),
            "eph": bytes(eph.public_key)}
    mine["sig"] = key.sign(_hello_signed(_role(dialer), scope, link, mine))
    with trio.move_on_after(timeout) as timer:
        await conn.send(mine)

        def hello_problem(frame: Any) -> str | None:
            return _hello_problem(frame, mine, scope, link, _role(not dialer), conn, expect)
        hello = received if received is not None else await conn.recv(accept=lambda f: hello_problem(f) is None)
        why = hello_problem(hello)
        if why:
            raise HandshakeError(why)
        on_hello()
        if proven_timeout is not None:
            timer.deadline = max(timer.deadline, trio.current_time() + proven_timeout)
        peer_key = hello["key"]
        transcript = _transcript(scope, *((mine, hello) if dialer else (hello, mine)))
        try:
            shared = nacl.public.Box(eph, nacl.public.PublicKey(hello["eph"])).shared_key()
        except Exception:
            raise HandshakeError("the peer's X25519 key is invalid") from None
        push = sodium.crypto_secretstream_xchacha20poly1305_state()
        header = sodium.crypto_secretstream_xchacha20poly1305_init_push(
            push, _stream_key(shared, transcript, _role(dialer)))
        await conn.send({"t": "auth", "sig": key.sign(_signed(_role(dialer), transcript)), "hdr": header})
        theirs = _signed(_role(not dialer), transcript)
        auth = await conn.recv(accept=lambda f: _auth_problem(f, peer_key, theirs) is None)
        why = _auth_problem(auth, peer_key, theirs)
        if why:
            raise HandshakeError(why)
        pull = sodium.crypto_secretstream_xchacha20poly1305_state()
        sodium.crypto_secretstream_xchacha20poly1305_init_pull(
            pull, auth["hdr"], _stream_key(shared, transcript, _role(not dialer)))
        conn.seal(push, pull)
        return peer_key
    assert timer.cancelled_caught
    raise HandshakeError(f"no handshake within {timeout:.0f} s")


__all__ = ["handshake", "HandshakeError", "FrameError", "key_pin", "parse_pin", "pin_inbox", "inbox_of"]
