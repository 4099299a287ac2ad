"""Sigma proofs made non-interactive with Fiat–Shamir: Schnorr, Chaum–Pedersen, CDS OR.

All proofs use the compact form: the proof carries the challenge(s) and responses,
and the verifier recomputes the prover's commitments T from them and checks that
hashing the statement with those T gives the same challenge. Every challenge hashes a
domain tag, the caller's context and the whole statement (crypto-notes §4.6).

Wire forms (lists of 32-byte scalars):
  Schnorr / DLEQ: [c, s]          with T = s·base + c·public
  1-of-k OR:      [c_1..c_k, s_1..s_k]   with Σc_i = challenge
"""

from __future__ import annotations

from typing import Any, Sequence

from .group import L, InvalidProof, Point, SecretStream, add, hash_to_scalar, mul, parse_scalar, scalar_bytes


def _parse_scalars(proof: object, count: int, what: str) -> list[int]:
    if type(proof) not in (list, tuple) or len(proof) != count:  # type: ignore[arg-type]
        raise InvalidProof(f"{what}: expected a list of {count} scalars")
    return [parse_scalar(s, f"{what}[{i}]") for i, s in enumerate(proof)]  # type: ignore[arg-type]


def dleq_prove(
    tag: str, context: bytes, statement: Sequence[Any],
    g1: Point, p1: Point, g2: Point, p2: Point, w: int, nonce: int,
) -> list[bytes]:
    """Prove log_{g1} p1 = log_{g2} p2 (= w). `statement` must determine g1, p1, g2, p2."""
    t1, t2 = mul(nonce, g1), mul(nonce, g2)
    c = hash_to_scalar(tag, context, list(statement), t1, t2)
    return [scalar_bytes(c), scalar_bytes(nonce - c * w)]


def dleq_verify(
    tag: str, context: bytes, statement: Sequence[Any],
    g1: Point, p1: Point, g2: Point, p2: Point, proof: object, what: str,
) -> None:
    """Raise InvalidProof unless proof shows log_{g1} p1 = log_{g2} p2."""
    c, s = _parse_scalars(proof, 2, what)
    t1 = add(mul(s, g1), mul(c, p1))
    t2 = add(mul(s, g2), mul(c, p2))
    if hash_to_scalar(tag, context, list(statement), t1, t2) != c:
        raise InvalidProof(f"{what}: proof does not verify for this statement and context")


def schnorr_prove(tag: str, context: Sequence[Any], g: Point, p: Point, w: int, nonce: int) -> list[bytes]:
    """Prove knowledge of w with p = w·g."""
    t = mul(nonce, g)
    c = hash_to_scalar(tag, list(context), p, t)
    return [scalar_bytes(c), scalar_bytes(nonce - c * w)]


def schnorr_verify(tag: str, context: Sequence[Any], g: Point, p: Point, proof: object, what: str) -> None:
    c, s = _parse_scalars(proof, 2, what)
    t = add(mul(s, g), mul(c, p))
    if hash_to_scalar(tag, list(context), p, t) != c:
        raise InvalidProof(f"{what}: proof of knowledge does not verify")


def or_dleq_prove(
    tag: str, context: bytes, statement: Sequence[Any],
    g1: Point, g2: Point, pairs: Sequence[tuple[Point, Point]],
    index: int, w: int, stream: SecretStream,
) -> list[bytes]:
    """CDS OR proof: for some i (the secret `index`), log_{g1} P1_i = log_{g2} P2_i (= w).

    The other k−1 branches are simulated with challenges and responses from `stream`;
    the real branch's challenge is whatever makes the challenges sum to the hash.
    """
    k = len(pairs)
    cs, ss, ts = [0] * k, [0] * k, []
    for i, (p1, p2) in enumerate(pairs):
        if i == index:
            nonce = stream.scalar("or-nonce")
            ts += [mul(nonce, g1), mul(nonce, g2)]
        else:
            cs[i], ss[i] = stream.scalar("or-challenge", i), stream.scalar("or-response", i)
            ts += [add(mul(ss[i], g1), mul(cs[i], p1)), add(mul(ss[i], g2), mul(cs[i], p2))]
    c = hash_to_scalar(tag, context, list(statement), ts)
    cs[index] = (c - sum(cs)) % L
    ss[index] = (nonce - cs[index] * w) % L
    return [scalar_bytes(x) for x in cs + ss]


def or_dleq_verify(
    tag: str, context: bytes, statement: Sequence[Any],
    g1: Point, g2: Point, pairs: Sequence[tuple[Point, Point]], proof: object, what: str,
) -> None:
    """Raise InvalidProof unless one of the k pairs shares the discrete log, per proof."""
    k = len(pairs)
    scalars = _parse_scalars(proof, 2 * k, what)
    cs, ss = scalars[:k], scalars[k:]
    ts = []
    for (p1, p2), c, s in zip(pairs, cs, ss):
        ts += [add(mul(s, g1), mul(c, p1)), add(mul(s, g2), mul(c, p2))]
    if hash_to_scalar(tag, context, list(statement), ts) != sum(cs) % L:
        raise InvalidProof(f"{what}: OR proof does not verify for this statement and context")
