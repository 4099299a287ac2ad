"""Joint randomness nobody can bias except by aborting (and an abort is attributed).

Each player commits in the genesis to the tip x_0 of a hash chain x_{i-1} = H(x_i).
Draw k (1, 2, ...) needs every player's preimage x_k, checked by H(x_k) = x_{k-1};
the draw's value is a hash of all of them. Values are fixed at genesis, so nobody can
grind them, and x_k reveals nothing about x_{k+1}. The value is stretched into uniform
integers and permutations by rejection sampling, so no modulo bias creeps in.
"""

from __future__ import annotations

from hashlib import sha256
from typing import Any

from .hashing import tagged_hash, tagged_hash512
from .wire import encode_known

DEFAULT_LENGTH = 8192


_CHAIN_TAG = "caravan/beacon-chain/v1"
_chain_heads: dict[tuple[bytes, int], bytes] = {}
"""(nonce, seat) -> the encoding of [tag, nonce, seat, ...] up to the link's preimage (a
bounded memo: each beacon message and each link a player makes hashes one)."""


def chain_step(nonce: bytes, seat: int, x: bytes) -> bytes:
    """One link: H(x) for the chain of `seat` in the lobby `nonce`; the bytes hashed are
    those of tagged_hash(tag, nonce, seat, x), the fixed part written once."""
    if type(x) is not bytes or len(x) != 32 or type(nonce) is not bytes or type(seat) is not int:
        return tagged_hash(_CHAIN_TAG, nonce, seat, x)
    head = _chain_heads.get((nonce, seat))
    if head is None:
        if len(_chain_heads) >= 1024:
            _chain_heads.clear()
        head = _chain_heads[(nonce, seat)] = encode_known([_CHAIN_TAG, nonce, seat, b""])[:-2]
    return sha256(head + b"\xc4\x20" + x).digest()


def make_chain(seed: bytes, nonce: bytes, seat: int, length: int = DEFAULT_LENGTH) -> list[bytes]:
    """[x_0 (the tip), x_1, ..., x_length]; x_length is derived from the secret seed."""
    x = tagged_hash("caravan/beacon-seed/v1", seed, nonce, seat)
    chain = [x]
    for _ in range(length):
        x = chain_step(nonce, seat, x)
        chain.append(x)
    chain.reverse()
    return chain


def value(game_id: bytes, k: int, preimages: list[bytes]) -> bytes:
    """The beacon value of draw k from every seat's preimage, in seat order."""
    return tagged_hash("caravan/beacon/v1", game_id, k, preimages)


class Stream:
    """Uniform choices derived from one beacon value (deterministic, unbiased)."""

    def __init__(self, seed: bytes):
        self._seed = seed
        self._block = 0
        self._buf = b""

    def _bytes(self, n: int) -> bytes:
        while len(self._buf) < n:
            self._buf += tagged_hash512("caravan/beacon-stream/v1", self._seed, self._block)
            self._block += 1
        out, self._buf = self._buf[:n], self._buf[n:]
        return out

    def below(self, n: int) -> int:
        """Uniform integer in 0..n-1 by rejection sampling over 64-bit words."""
        if not 1 <= n <= 1 << 32:
            raise ValueError(f"cannot draw uniformly below {n}")
        limit = (1 << 64) - (1 << 64) % n
        while True:
            r = int.from_bytes(self._bytes(8), "big")
            if r < limit:
                return r % n

    def permutation(self, n: int) -> tuple[int, ...]:
        """Uniform permutation of range(n) (Fisher–Yates)."""
        p = list(range(n))
        for i in range(n - 1, 0, -1):
            j = self.below(i + 1)
            p[i], p[j] = p[j], p[i]
        return tuple(p)


def draw(seed: bytes, draws: Any) -> tuple[Any, ...]:
    """Resolve an engine's Random draws [("int", n) | ("perm", n), ...] from one value."""
    s = Stream(seed)
    out: list[Any] = []
    for kind, n in draws:
        if kind == "int":
            out.append(s.below(n))
        elif kind == "perm":
            out.append(s.permutation(n))
        else:
            raise ValueError(f"unknown draw kind {kind!r}")
    return tuple(out)

