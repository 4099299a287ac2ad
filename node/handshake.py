"""Mutual authentication bound to the connection, then an authenticated, encrypted stream.

Each side sends a hello (its Ed25519 key, a fresh nonce and a fresh X25519 key), then signs
the whole exchange: H(scope, the dialer's key, nonce and X25519 key, the listener's) with
its role ("dialer" or "listener"). So a signature proves one end of exactly this
connection, for this lobby or game: an outsider who passes each node's hello to the other
(a relay, issue 16 item 3) gets two listeners (or two dialers) expecting the other role and
both refuse. The frames after the handshake are sealed with libsodium's
crypto_secretstream (XChaCha20-Poly1305, one stream per direction) under keys derived from
the X25519 secret and the signed transcript: an outsider cannot read, inject, drop one
frame unnoticed, reorder or replay, so it cannot take a link over mid-stream either.
"""

from __future__ import annotations

import os

import nacl.bindings as sodium
import nacl.public
import trio

from protocol.hashing import tagged_hash
from protocol.identity import SigningKey, strong_key, verify

from .frames import Connection, FrameError

HANDSHAKE_TIMEOUT = 5.0
VERSION = 2


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


def _valid_hello(hello: object) -> bool:
    return (type(hello) is dict and hello.get("t") == "hello" and hello.get("v") == VERSION
            and type(hello.get("key")) is bytes and type(hello.get("nonce")) is bytes
            and len(hello["nonce"]) == 32 and type(hello.get("eph")) is bytes and len(hello["eph"]) == 32)


async def handshake(conn: Connection, key: SigningKey, scope: bytes, *, dialer: bool = True,
                    received: dict | None = None) -> bytes:
    """Run the handshake on a connection this side opened (`dialer`) or accepted; returns
    the peer's proven public key, with `conn` sealed from then on, or raises HandshakeError.
    `received`: the peer's hello, already read (a spectator reads it first to learn the
    game id it names as its scope)."""
    eph = nacl.public.PrivateKey.generate()
    mine = {"t": "hello", "v": VERSION, "scope": scope, "key": key.public, "nonce": os.urandom(32),
            "eph": bytes(eph.public_key)}
    with trio.move_on_after(HANDSHAKE_TIMEOUT) as timer:
        await conn.send(mine)
        hello = received if received is not None else await conn.recv()
        if not _valid_hello(hello):
            raise HandshakeError("the peer did not send a valid hello")
        if hello.get("scope") != scope:
            raise HandshakeError("the peer is in another lobby or game")
        peer_key = hello["key"]
        if not strong_key(peer_key):
            raise HandshakeError("the peer's key is not a valid Ed25519 key (small order, identity or "
                                 "non-canonical)")
        if peer_key == key.public or hello["nonce"] == mine["nonce"] or hello["eph"] == mine["eph"]:
            raise HandshakeError("the peer echoed this node's own hello (a reflection)")
        transcript = _transcript(scope, *((mine, hello) if dialer else (hello, mine)))
        try:
            shared = nacl.public.Box(eph, nacl.public.PublicKey(hello["eph"])).shared_key()
        except Exception:
            raise HandshakeError("the peer's X25519 key is invalid") from None
        push = sodium.crypto_secretstream_xchacha20poly1305_state()
        header = sodium.crypto_secretstream_xchacha20poly1305_init_push(
            push, _stream_key(shared, transcript, _role(dialer)))
        await conn.send({"t": "auth", "sig": key.sign(_signed(_role(dialer), transcript)), "hdr": header})
        auth = await conn.recv()
        if (type(auth) is not dict or auth.get("t") != "auth" or type(auth.get("sig")) is not bytes
                or type(auth.get("hdr")) is not bytes
                or len(auth["hdr"]) != sodium.crypto_secretstream_xchacha20poly1305_HEADERBYTES):
            raise HandshakeError("the peer did not answer the challenge")
        if not verify(peer_key, auth["sig"], _signed(_role(not dialer), transcript)):
            raise HandshakeError("the peer's signature does not cover this connection (a relayed "
                                 "or replayed handshake, or a wrong key)")
        pull = sodium.crypto_secretstream_xchacha20poly1305_state()
        sodium.crypto_secretstream_xchacha20poly1305_init_pull(
            pull, auth["hdr"], _stream_key(shared, transcript, _role(not dialer)))
        conn.seal(push, pull)
        return peer_key
    assert timer.cancelled_caught
    raise HandshakeError(f"no handshake within {HANDSHAKE_TIMEOUT:.0f} s")


__all__ = ["handshake", "HandshakeError", "FrameError"]
