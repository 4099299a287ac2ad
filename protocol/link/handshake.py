"""Mutual authentication bound to the link, then keys for an encrypted stream: the state
machine of one end, fed the peer's frames and the time, giving the frames to send.

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
hellos or auths may arrive for one step (issue 27): each is checked on its own (`fits`) and
the first that proves the expected key for exactly this link is taken, the rest are dropped
(node/net/relay_link.py). A forged or replayed frame cannot displace the real peer's; over TCP
there is one sender, and a frame that does not fit fails the handshake (`receive`).
"""

from __future__ import annotations

from typing import Any

import nacl.bindings as sodium

from ..hashing import tagged_hash
from ..identity import SigningKey, fingerprint, strong_key, verify

VERSION = 3
PIN_BYTES = 16
"""A key pin (what an invite or `HOST:PORT/KEY` names): 128 bits of a hash of the key."""


class HandshakeError(Exception):
    pass


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
    """The inbox on a relay (node/net/relay.py) of the key with this pin: the pin's first 8
    bytes, in hex, so a joiner that holds only the host's pin knows where to dial."""
    return pin[:8].hex()


def inbox_of(key: bytes) -> str:
    return pin_inbox(key_pin(key))


def role(dialer: bool) -> str:
    return "dialer" if dialer else "listener"


def hello_signed(role: str, scope: bytes, link: bytes, hello: dict) -> bytes:
    """What a hello's signature covers: its role, the scope, the link and its key, nonce and
    X25519 key."""
    return tagged_hash("caravan/hello/v3", role, scope, link, hello["key"], hello["nonce"], hello["eph"])


def _transcript(scope: bytes, dialer_hello: dict, listener_hello: dict) -> bytes:
    """What both ends sign: the game or lobby, and both hellos in a fixed order."""
    return tagged_hash("caravan/handshake/v2", scope,
                       [dialer_hello["key"], dialer_hello["nonce"], dialer_hello["eph"]],
                       [listener_hello["key"], listener_hello["nonce"], listener_hello["eph"]])


def _signed(role: str, transcript: bytes) -> bytes:
    return tagged_hash("caravan/handshake-auth/v2", role, transcript)


def _stream_key(shared: bytes, transcript: bytes, sender_role: str) -> bytes:
    return tagged_hash("caravan/stream-key/v2", shared, transcript, sender_role)


def _valid_hello(hello: object) -> bool:
    return (type(hello) is dict and hello.get("t") == "hello" and hello.get("v") == VERSION
            and type(hello.get("key")) is bytes and type(hello.get("nonce")) is bytes
            and len(hello["nonce"]) == 32 and type(hello.get("eph")) is bytes and len(hello["eph"]) == 32
            and type(hello.get("sig")) is bytes)


HELLO, AUTH, DONE = "hello", "auth", "done"


class Handshake:
    """One end of a link's handshake. Send `hello` first; then each frame the peer sends goes
    to `receive`, which gives what to send back; once `step` is DONE, `peer_key` is the
    peer's proven key and `push`/`pull` the secretstream states to seal the link with. A
    frame that cannot be the awaited one raises HandshakeError naming why (`fits` says it
    without raising, for links anyone may publish on).

    `link`: the link's id its hellos are signed for (a relay link's; b"" over TCP);
    `peer_inbox`: the relay inbox the peer's key must own; `expect`: the pin (`key_pin`) the
    peer's key must have. `now` and `timeout` set `deadline`; `eph_secret` and `nonce` are
    fresh random bytes from libsodium unless given."""

    def __init__(self, key: SigningKey, scope: bytes, *, dialer: bool, now: float, timeout: float,
                 link: bytes = b"", expect: bytes | None = None, peer_inbox: str | None = None,
                 eph_secret: bytes | None = None, nonce: bytes | None = None):
        self.key, self.scope, self.dialer, self.link = key, scope, dialer, link
        self.expect, self.peer_inbox = expect, peer_inbox
        self.timeout = timeout
        self.deadline = now + timeout
        self._eph = eph_secret if eph_secret is not None else sodium.randombytes(32)
        self.hello = {"t": "hello", "v": VERSION, "scope": scope, "key": key.public,
                      "nonce": nonce if nonce is not None else sodium.randombytes(32),
                      "eph": sodium.crypto_scalarmult_base(self._eph)}
        self.hello["sig"] = key.sign(hello_signed(role(dialer), scope, link, self.hello))
        self.step = HELLO
        self.peer_key: bytes | None = None
        self.push: Any = None
        self.pull: Any = None
        self._theirs = b""          # what the peer's auth must sign
        self._shared = self._transcript = b""

    # ------------------------------------------------------------------ checks
    def hello_problem(self, hello: Any) -> str | None:
        """Why `hello` cannot be the peer's hello on this link (None: it can)."""
        if not _valid_hello(hello):
            return "the peer did not send a valid hello"
        if hello.get("scope") != self.scope:
            return "the peer is in another lobby or game"
        key, mine = hello["key"], self.hello
        if not strong_key(key):
            return "the peer's key is not a valid Ed25519 key (small order, identity or non-canonical)"
        if key == mine["key"] or hello["nonce"] == mine["nonce"] or hello["eph"] == mine["eph"]:
            return "the peer echoed this node's own hello (a reflection)"
        if not verify(key, hello["sig"], hello_signed(role(not self.dialer), self.scope, self.link, hello)):
            return f"the peer's hello is not signed by its key {fingerprint(key)} for this link"
        if self.peer_inbox is not None and inbox_of(key) != self.peer_inbox:
            return f"the peer's key {fingerprint(key)} does not own the inbox this link goes to"
        if self.expect is not None and key_pin(key) != self.expect:
            return f"the peer is key {fingerprint(key)}, not the one expected"
        return None

    def auth_problem(self, auth: Any) -> str | None:
        """Why `auth` cannot be the peer's answer to this exchange (None: it can)."""
        if (type(auth) is not dict or auth.get("t") != "auth" or type(auth.get("sig")) is not bytes
                or type(auth.get("hdr")) is not bytes
                or len(auth["hdr"]) != sodium.crypto_secretstream_xchacha20poly1305_HEADERBYTES):
            return "the peer did not answer the challenge"
        assert self.peer_key is not None
        if not verify(self.peer_key, auth["sig"], self._theirs):
            return ("the peer's signature does not cover this connection (a relayed or replayed "
                    f"handshake, or a wrong key; its hello was key {fingerprint(self.peer_key)})")
        return None

    def problem(self, frame: Any) -> str | None:
        """Why `frame` is not what this step awaits (None: it is)."""
        if self.step == HELLO:
            return self.hello_problem(frame)
        if self.step == AUTH:
            return self.auth_problem(frame)
        return "the handshake is over"

    def fits(self, frame: Any) -> bool:
        return self.problem(frame) is None

    def expired(self, now: float) -> str | None:
        """Why the handshake has failed by `now` (None while there is time)."""
        if self.step != DONE and now >= self.deadline:
            return f"no handshake within {self.timeout:.0f} s"
        return None

    # ------------------------------------------------------------------ steps
    def receive(self, frame: Any, now: float, proven_timeout: float | None = None) -> list[dict]:
        """Take the peer's next frame: its hello gives this side's auth to send (and, with
        `proven_timeout`, moves `deadline` to at least that long after `now`: a proven peer
        gets time for the rest); its auth ends the handshake (nothing to send)."""
        why = self.problem(frame)
        if why:
            raise HandshakeError(why)
        if self.step == HELLO:
            if proven_timeout is not None:
                self.deadline = max(self.deadline, now + proven_timeout)
            return [self._take_hello(frame)]
        self._take_auth(frame)
        return []

    def _take_hello(self, hello: dict) -> dict:
        self.peer_key = hello["key"]
        mine = self.hello
        self._transcript = _transcript(self.scope, *((mine, hello) if self.dialer else (hello, mine)))
        try:
            self._shared = sodium.crypto_box_beforenm(hello["eph"], self._eph)
        except Exception:
            raise HandshakeError("the peer's X25519 key is invalid") from None
        self.push = sodium.crypto_secretstream_xchacha20poly1305_state()
        header = sodium.crypto_secretstream_xchacha20poly1305_init_push(
            self.push, _stream_key(self._shared, self._transcript, role(self.dialer)))
        self._theirs = _signed(role(not self.dialer), self._transcript)
        self.step = AUTH
        return {"t": "auth", "sig": self.key.sign(_signed(role(self.dialer), self._transcript)), "hdr": header}

    def _take_auth(self, auth: dict) -> None:
        self.pull = sodium.crypto_secretstream_xchacha20poly1305_state()
        sodium.crypto_secretstream_xchacha20poly1305_init_pull(
            self.pull, auth["hdr"], _stream_key(self._shared, self._transcript, role(not self.dialer)))
        self.step = DONE
