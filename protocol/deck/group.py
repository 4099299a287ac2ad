"""The ed25519 prime-order subgroup: validated points, canonical scalars, hashing into both.

Every mental-deck value that arrives from another node passes through `parse_point` or
`parse_scalar` first, so nothing outside the prime-order subgroup and no non-canonical
scalar ever reaches the algebra (crypto-notes §4.11 pitfalls 1-3). Library exceptions
become `InvalidProof`, never crashes. Scalars are Python ints reduced mod L: the
arithmetic is exact, and encoding them as 32-byte little-endian strings is the same
as libsodium's.

The module refuses to import if the bundled libsodium accepts small-order or torsioned
points (CVE-2025-69277), because every proof in this package relies on that check.
"""

from __future__ import annotations

from typing import Any, Iterable, NewType

import nacl.bindings as _nb
import nacl.exceptions as _nexc

from ..hashing import tagged_hash512

L = 2**252 + 27742317777372353535851937790883648493
"""Order of the prime-order subgroup of ed25519."""

Point = NewType("Point", bytes)
"""32-byte canonical encoding of an element of the prime-order subgroup (validated)."""

G = Point(bytes.fromhex("5866666666666666666666666666666666666666666666666666666666666666"))
"""The ed25519 base point."""

IDENTITY = Point(b"\x01" + bytes(31))
"""Encoding of the neutral element; never valid on the wire, only inside computations."""

TAG_STREAM = "caravan/deck-stream/v1"


class DeckError(ValueError):
    """A mental-deck operation cannot be done as asked (bad arguments, wrong sizes)."""


class InvalidProof(DeckError):
    """Received deck data fails a check: bad encoding, bad point, bad scalar or bad proof."""


# Module-level references so that benchmarks can count calls by swapping them.
_scalarmult = _nb.crypto_scalarmult_ed25519_noclamp
_scalarmult_base = _nb.crypto_scalarmult_ed25519_base_noclamp
_add = _nb.crypto_core_ed25519_add
_sub = _nb.crypto_core_ed25519_sub
LIB_ERRORS = (_nexc.CryptoError, RuntimeError, TypeError, ValueError)


_VALID_MAX = 8192
_known_valid: dict[bytes, None] = {}
"""Points known to pass libsodium's full check, oldest first (a bounded memo: a deck is
checked once as output, not again as input). Only valid points are ever stored, by
`_valid` or by `mul` after libsodium's multiplication accepted its input (which makes the
same checks: canonical, not small order, on the curve, in the prime-order subgroup)."""


def _remember(data: bytes) -> None:
    if len(_known_valid) >= _VALID_MAX:
        try:
            del _known_valid[next(iter(_known_valid))]
        except (KeyError, RuntimeError, StopIteration):
            pass            # another thread (a node's worker) evicted at the same moment
    _known_valid[data] = None


def _valid(data: bytes) -> bool:
    """libsodium's full check, memoised for valid points."""
    if data in _known_valid:
        return True
    if not _nb.crypto_core_ed25519_is_valid_point(data):
        return False
    _remember(data)
    return True


def clear_cache() -> None:
    """Forget which points were validated (benchmarks measure the cost of first sight)."""
    _known_valid.clear()


def is_point(data: object) -> bool:
    """True if data is a canonical 32-byte encoding of a non-identity subgroup element."""
    return type(data) is bytes and len(data) == 32 and _valid(data)


def parse_point(data: object, what: str) -> Point:
    """Validate a received point (32 bytes, on the curve, prime order, not small order)."""
    if type(data) is not bytes:
        raise InvalidProof(f"{what}: expected 32 bytes, got {type(data).__name__}")
    if len(data) != 32:
        raise InvalidProof(f"{what}: expected 32 bytes, got {len(data)}")
    if not _valid(data):
        if data == IDENTITY:
            raise InvalidProof(f"{what}: is the identity point")
        raise InvalidProof(
            f"{what}: not a point of the prime-order subgroup "
            "(off the curve, small order, torsion component or non-canonical encoding)"
        )
    return Point(data)


def point_shape(data: object, what: str) -> Point:
    """Check only the type and length of a received point; it must go through `settle`
    before anything depends on it (its validity is usually proven for free by the
    multiplications a proof check makes: see `mul`)."""
    if type(data) is not bytes:
        raise InvalidProof(f"{what}: expected 32 bytes, got {type(data).__name__}")
    if len(data) != 32:
        raise InvalidProof(f"{what}: expected 32 bytes, got {len(data)}")
    return Point(data)


def settle(points: Iterable[tuple[object, str]]) -> None:
    """Validate, in order, every (point, name) not yet known valid; raises `parse_point`'s
    error for the first bad one."""
    for data, what in points:
        if data not in _known_valid:
            parse_point(data, what)


def parse_scalar(data: object, what: str, *, nonzero: bool = False) -> int:
    """Decode a received scalar; anything >= L is refused so proofs are not malleable."""
    if type(data) is not bytes:
        raise InvalidProof(f"{what}: expected a 32-byte scalar, got {type(data).__name__}")
    if len(data) != 32:
        raise InvalidProof(f"{what}: expected a 32-byte scalar, got {len(data)} bytes")
    s = int.from_bytes(data, "little")
    if s >= L:
        raise InvalidProof(f"{what}: scalar is not canonical (>= L)")
    if nonzero and s == 0:
        raise InvalidProof(f"{what}: scalar is zero")
    return s


def scalar_bytes(s: int) -> bytes:
    """Canonical 32-byte little-endian encoding of s mod L."""
    return (s % L).to_bytes(32, "little")


def mul(s: int, p: Point) -> Point:
    """s·P; uses the 5x faster fixed-base routine for P = G; 0·P and s·O give O.

    libsodium refuses any P that is not a valid subgroup point, so a P it accepted is
    remembered as valid (parsing it again later costs nothing)."""
    s %= L
    if s == 0 or p == IDENTITY:
        return IDENTITY
    try:
        if p == G:
            return Point(_scalarmult_base(s.to_bytes(32, "little")))
        q = Point(_scalarmult(s.to_bytes(32, "little"), p))
    except LIB_ERRORS:
        raise InvalidProof("scalar multiplication refused a point outside the prime-order subgroup") from None
    if p not in _known_valid:
        _remember(p)
    return q


def mul_base(s: int) -> Point:
    """s·G."""
    return mul(s, G)


def add(p: Point, q: Point) -> Point:
    """P + Q (inputs must already be validated: libsodium's add does not check the subgroup)."""
    try:
        return Point(_add(p, q))
    except LIB_ERRORS:
        raise InvalidProof("point addition failed on an invalid encoding") from None


def sub(p: Point, q: Point) -> Point:
    """P − Q (inputs must already be validated)."""
    try:
        return Point(_sub(p, q))
    except LIB_ERRORS:
        raise InvalidProof("point subtraction failed on an invalid encoding") from None


def add_all(points: Iterable[Point]) -> Point:
    """Sum of points; the empty sum is the identity."""
    acc: Point | None = None
    for p in points:
        acc = p if acc is None else add(acc, p)
    return IDENTITY if acc is None else acc


def lincomb(scalars: Iterable[int], points: Iterable[Point]) -> Point:
    """Σ s_i·P_i (PyNaCl has no multi-scalar multiplication, so one mul per term)."""
    return add_all(mul(s, p) for s, p in zip(scalars, points, strict=True))


def hash_to_scalar(tag: str, *fields: Any) -> int:
    """SHA-512 of the tagged, length-prefixed fields, reduced mod L (Fiat–Shamir challenges)."""
    return int.from_bytes(_nb.crypto_core_ed25519_scalar_reduce(tagged_hash512(tag, *fields)), "little")


def hash_to_point(tag: str, *fields: Any) -> Point:
    """from_uniform(first 32 bytes of the tagged SHA-512): a point nobody knows a logarithm of."""
    p = _nb.crypto_core_ed25519_from_uniform(tagged_hash512(tag, *fields)[:32])
    if not is_point(p):  # probability ~2^-250; refuse rather than continue with a weak point
        raise DeckError(f"hash-to-curve for {tag} gave an invalid point")
    return Point(p)


class SecretStream:
    """Deterministic secret randomness, in the spirit of RFC 6979.

    The key hashes a caller-held secret seed with the full statement, so redoing a step
    after a crash gives byte-identical output, and two different statements never share
    a nonce. Values are drawn by (label, index), so adding a draw never shifts the others.
    """

    __slots__ = ("_key",)

    def __init__(self, tag: str, seed: bytes, *statement: Any) -> None:
        if type(seed) is not bytes or len(seed) < 32:
            raise DeckError("the secret seed must be at least 32 bytes")
        self._key = tagged_hash512(tag, seed, *statement)

    def scalar(self, label: str, index: int = 0) -> int:
        """A uniform non-zero scalar (zero, probability 2^-252, is skipped by re-hashing)."""
        counter = 0
        while True:
            s = hash_to_scalar(TAG_STREAM, self._key, label, index, counter)
            if s:
                return s
            counter += 1

    def below(self, label: str, index: int, bound: int) -> int:
        """An integer in [0, bound) (512-bit hash mod bound: bias below 2^-500)."""
        return int.from_bytes(tagged_hash512(TAG_STREAM, self._key, label, index, 0), "little") % bound

    def permutation(self, n: int) -> list[int]:
        """Fisher–Yates: perm[i] is the input position that lands at output position i."""
        perm = list(range(n))
        for i in range(n - 1, 0, -1):
            j = self.below("permutation", i, i + 1)
            perm[i], perm[j] = perm[j], perm[i]
        return perm


# --- start-up self-test -------------------------------------------------------------

SMALL_ORDER_POINTS: tuple[bytes, ...] = tuple(
    bytes.fromhex(h)
    for h in (
        "0100000000000000000000000000000000000000000000000000000000000000",  # identity
        "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",  # order 2
        "0000000000000000000000000000000000000000000000000000000000000000",  # order 4
        "0000000000000000000000000000000000000000000000000000000000000080",  # order 4
        "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05",  # order 8
        "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc85",  # order 8
        "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a",  # order 8
        "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa",  # order 8
    )
)
"""The eight points of the torsion subgroup E[8]."""


def self_test() -> None:
    """Refuse to run on a libsodium that accepts small-order or torsioned points.

    Checks: the 8 torsion points are small order (8·T = O, computed with the
    unchecked add) and are rejected; G + T for each T ≠ O (a point with a torsion
    component, the CVE-2025-69277 shape "T2 + n·B") is rejected by is_valid_point and
    by scalar multiplication; G and 2·G are accepted.
    """
    def fail(why: str) -> None:
        raise DeckError(
            f"libsodium self-test failed: {why}; the mental deck is unsafe with this "
            "library (install PyNaCl>=1.6.2, which bundles a fixed libsodium)"
        )

    if not _nb.crypto_core_ed25519_is_valid_point(G):
        fail("the base point is rejected")
    one = (1).to_bytes(32, "little")
    for t in SMALL_ORDER_POINTS:
        eight_t = t
        for _ in range(3):
            eight_t = _nb.crypto_core_ed25519_add(eight_t, eight_t)
        if eight_t != IDENTITY:
            fail(f"torsion constant {t.hex()} is not of order dividing 8")
        if _nb.crypto_core_ed25519_is_valid_point(t):
            fail(f"small-order point {t.hex()} is accepted")
        if t == IDENTITY:
            continue
        torsioned = _nb.crypto_core_ed25519_add(G, t)
        if _nb.crypto_core_ed25519_is_valid_point(torsioned):
            fail(f"G + {t.hex()} (torsion component) is accepted")
        for p in (t, torsioned):
            try:
                _nb.crypto_scalarmult_ed25519_noclamp(one, p)
            except LIB_ERRORS:
                continue
            fail(f"scalar multiplication accepts {p.hex()}")
    if not _nb.crypto_core_ed25519_is_valid_point(_nb.crypto_core_ed25519_add(G, G)):
        fail("2·G is rejected")
    # `mul` treats an input that libsodium multiplied as validated: it must refuse
    # off-curve and non-canonical encodings too (y = 2 has no x; p + 3 encodes y = 3)
    for bad in ((2).to_bytes(32, "little"), (2**255 - 19 + 3).to_bytes(32, "little")):
        if _nb.crypto_core_ed25519_is_valid_point(bad):
            fail(f"the invalid encoding {bad.hex()} is accepted")
        try:
            _nb.crypto_scalarmult_ed25519_noclamp(one, bad)
        except LIB_ERRORS:
            continue
        fail(f"scalar multiplication accepts the invalid encoding {bad.hex()}")


self_test()
