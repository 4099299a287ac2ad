"""Mutual authentication: each side proves its Ed25519 key by signing the other's fresh
challenge, bound to the lobby or game the connection is for."""

from __future__ import annotations

import os

import trio

from protocol.hashing import tagged_hash
from protocol.identity import SigningKey, verify

from .frames import Connection, FrameError

HANDSHAKE_TIMEOUT = 5.0


class HandshakeError(Exception):
    pass


def _transcript(scope: bytes, their_nonce: bytes, my_nonce: bytes, my_key: bytes) -> bytes:
    return tagged_hash("caravan/handshake/v1", scope, their_nonce, my_nonce, my_key)


async def handshake(conn: Connection, key: SigningKey, scope: bytes) -> bytes:
    """Run the handshake; returns the peer's proven public key or raises HandshakeError."""
    nonce = os.urandom(32)
    with trio.move_on_after(HANDSHAKE_TIMEOUT) as timer:
        await conn.send({"t": "hello", "v": 1, "scope": scope, "key": key.public, "nonce": nonce})
        hello = await conn.recv()
        if (type(hello) is not dict or hello.get("t") != "hello" or hello.get("v") != 1
                or type(hello.get("key")) is not bytes or type(hello.get("nonce")) is not bytes
                or len(hello["nonce"]) != 32):
            raise HandshakeError("the peer did not send a valid hello")
        if hello.get("scope") != scope:
            raise HandshakeError("the peer is in another lobby or game")
        peer_key, peer_nonce = hello["key"], hello["nonce"]
        await conn.send({"t": "auth", "sig": key.sign(_transcript(scope, peer_nonce, nonce, key.public))})
        auth = await conn.recv()
        if type(auth) is not dict or auth.get("t") != "auth" or type(auth.get("sig")) is not bytes:
            raise HandshakeError("the peer did not answer the challenge")
        if not verify(peer_key, auth["sig"], _transcript(scope, nonce, peer_nonce, peer_key)):
            raise HandshakeError("the peer's signature over the challenge does not verify")
        return peer_key
    assert timer.cancelled_caught
    raise HandshakeError(f"no handshake within {HANDSHAKE_TIMEOUT:.0f} s")


__all__ = ["handshake", "HandshakeError", "FrameError"]
