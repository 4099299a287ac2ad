"""Terelius–Wikström proof of a re-encryption shuffle (crypto-notes Appendix A).

Statement: deck_out[i] = deck_in[π(i)] + r̃_i·(Y, G) for a permutation π and some
r̃ — i.e. the output holds the same plaintexts in a hidden order. Notation follows
Haenni, Locher, Koenig, Dubuis, "Pseudo-code algorithms for verifiable re-encryption
mix-nets" (FC 2017 workshops), in additive notation and 0-based positions.

Generators h, h_0..h_{N−1} are hash-derived (nobody knows their logs, crypto-notes
§4.11 pitfall 6). Fiat–Shamir hashes the context, Y, both decks and every commitment.

Proof wire form, 4N+5 32-byte strings:
  [c_0..c_{N−1}, ĉ_0..ĉ_{N−1}, chal, s1, s2, s3, s4, ŝ_0..ŝ_{N−1}, s'_0..s'_{N−1}]
(points c_j: permutation commitment, one per input position; ĉ_i: commitment chain;
then the challenge and the scalars).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Sequence

from ..hashing import tagged_hash512
from .elgamal import Ciphertext, wire_deck
from .group import (
    G, L, DeckError, InvalidProof, Point, SecretStream, add, add_all, hash_to_point,
    hash_to_scalar, lincomb, mul, parse_scalar, point_shape, scalar_bytes, settle, sub,
)

TAG_GENERATOR = "caravan/deck-tw-generator/v1"
TAG_U_DIGEST = "caravan/deck-tw-statement/v1"
TAG_U = "caravan/deck-tw-u/v1"
TAG_CHALLENGE = "caravan/deck-tw-challenge/v1"


@lru_cache(maxsize=None)
def generator(i: int) -> Point:
    """Index 0 is h (the chain base); index i+1 is h_i, the generator of output position i."""
    return hash_to_point(TAG_GENERATOR, i)


def generators(n: int) -> tuple[Point, list[Point]]:
    return generator(0), [generator(i + 1) for i in range(n)]


@lru_cache(maxsize=None)
def _sum_generators(n: int) -> Point:
    return add_all(generators(n)[1])


def _challenges(context: bytes, y: Point, wire_in: list, wire_out: list, commits: Sequence[Point]) -> list[int]:
    """u_j, one per input position, from one digest of the statement and permutation commitment."""
    digest = tagged_hash512(TAG_U_DIGEST, context, y, wire_in, wire_out, list(commits))
    return [hash_to_scalar(TAG_U, digest, j) for j in range(len(commits))]


def _challenge(context: bytes, y: Point, wire_in: list, wire_out: list, commits: Sequence[Point],
               chain: Sequence[Point], t: Sequence[Point], t_hat: Sequence[Point]) -> int:
    return hash_to_scalar(TAG_CHALLENGE, context, y, wire_in, wire_out, list(commits), list(chain), list(t), list(t_hat))


def prove(
    y: Point, deck_in: Sequence[Ciphertext], deck_out: Sequence[Ciphertext],
    perm: Sequence[int], rerand: Sequence[int], stream: SecretStream, context: bytes,
) -> list[bytes]:
    """Prove deck_out[i] = deck_in[perm[i]] + rerand[i]·(Y, G). Does not check its witness:
    a wrong witness just yields a proof that fails verification (tests rely on this)."""
    n = len(deck_in)
    if n == 0 or len(deck_out) != n or len(perm) != n or len(rerand) != n:
        raise DeckError("shuffle proof needs non-empty decks and witnesses of equal length")
    h, hs = generators(n)
    win, wout = wire_deck(deck_in), wire_deck(deck_out)

    # Permutation commitment: c_{π(i)} = r_{π(i)}·G + h_i.
    r = [stream.scalar("tw-r", j) for j in range(n)]
    commits: list[Point] = [G] * n
    for i, j in enumerate(perm):
        commits[j] = add(mul(r[j], G), hs[i])
    u = _challenges(context, y, win, wout, commits)
    ut = [u[perm[i]] for i in range(n)]

    # Commitment chain: ĉ_{−1} = h, ĉ_i = r̂_i·G + ũ_i·ĉ_{i−1}.
    rh = [stream.scalar("tw-rhat", i) for i in range(n)]
    chain: list[Point] = []
    prev = h
    for i in range(n):
        prev = add(mul(rh[i], G), mul(ut[i], prev))
        chain.append(prev)

    v = [1] * n  # v_i = Π_{k>i} ũ_k
    for i in range(n - 2, -1, -1):
        v[i] = ut[i + 1] * v[i + 1] % L
    r_bar = sum(r) % L
    r_hat = sum(a * b for a, b in zip(rh, v)) % L
    r_tilde = sum(a * b for a, b in zip(r, u)) % L
    r_prime = sum(a * b for a, b in zip(rerand, ut)) % L

    w1, w2, w3, w4 = (stream.scalar("tw-omega", k) for k in range(4))
    wh = [stream.scalar("tw-omega-hat", i) for i in range(n)]
    wp = [stream.scalar("tw-omega-prime", i) for i in range(n)]
    t1 = mul(w1, G)
    t2 = mul(w2, G)
    t3 = add(mul(w3, G), lincomb(wp, hs))
    t41 = sub(lincomb(wp, [c[0] for c in deck_out]), mul(w4, y))
    t42 = sub(lincomb(wp, [c[1] for c in deck_out]), mul(w4, G))
    prevs = [h] + chain[:-1]
    t_hat = [add(mul(wh[i], G), mul(wp[i], prevs[i])) for i in range(n)]

    c = _challenge(context, y, win, wout, commits, chain, [t1, t2, t3, t41, t42], t_hat)
    s = [w1 - c * r_bar, w2 - c * r_hat, w3 - c * r_tilde, w4 - c * r_prime]
    s_hat = [wh[i] - c * rh[i] for i in range(n)]
    s_prime = [wp[i] - c * ut[i] for i in range(n)]
    return [bytes(p) for p in commits + chain] + [scalar_bytes(x) for x in [c, *s, *s_hat, *s_prime]]


def verify(
    y: Point, deck_in: Sequence[Ciphertext], deck_out: Sequence[object],
    proof: object, context: bytes, what_out: str = "deck_out",
) -> None:
    """Raise InvalidProof unless proof shows deck_out is a re-encrypted permutation of deck_in.

    deck_out is taken as received (a list of [A, B]): its points and the proof's are only
    shape-checked up front, because the check multiplies every one of them by a scalar and
    libsodium's multiplication validates its input as fully as `parse_point` (half the cost
    of a multiplication, once per point). `settle` then validates any point no
    multiplication touched (a zero scalar), and on any failure it runs first, so a bad point
    is reported exactly as an up-front check would have."""
    received: list[tuple[object, str]] = []
    try:
        cout = _shape_deck(deck_out, what_out, received)
        _verify(y, deck_in, cout, proof, context, received)
    except InvalidProof:
        settle(received)
        raise
    settle(received)


def _shape_deck(deck: object, what: str, received: list[tuple[object, str]]) -> list[Ciphertext]:
    if type(deck) not in (list, tuple):
        raise InvalidProof(f"{what}: expected a list of ciphertexts")
    out = []
    for i, c in enumerate(deck):  # type: ignore[attr-defined]
        name = f"{what}[{i}]"
        if type(c) not in (list, tuple) or len(c) != 2:
            raise InvalidProof(f"{name}: expected a list [A, B] of two points")
        a, b = point_shape(c[0], f"{name}.A"), point_shape(c[1], f"{name}.B")
        received += [(a, f"{name}.A"), (b, f"{name}.B")]
        out.append((a, b))
    return out


def _verify(y: Point, deck_in: Sequence[Ciphertext], deck_out: Sequence[Ciphertext], proof: object,
            context: bytes, received: list[tuple[object, str]]) -> None:
    n = len(deck_in)
    if n == 0 or len(deck_out) != n:
        raise InvalidProof(f"shuffle: output has {len(deck_out)} cards, input has {n}")
    if type(proof) not in (list, tuple) or len(proof) != 4 * n + 5:  # type: ignore[arg-type]
        raise InvalidProof(f"shuffle proof: expected a list of {4 * n + 5} 32-byte strings")
    points = []
    for k in range(2 * n):
        name = f"shuffle proof commitment {k}" if k < n else f"shuffle proof chain {k - n}"
        points.append(point_shape(proof[k], name))  # type: ignore[index]
        received.append((points[-1], name))
    commits, chain = points[:n], points[n:]
    sc = [parse_scalar(proof[k], f"shuffle proof scalar {k - 2 * n}") for k in range(2 * n, 4 * n + 5)]  # type: ignore[index]
    c, s1, s2, s3, s4 = sc[:5]
    s_hat, s_prime = sc[5:5 + n], sc[5 + n:]

    h, hs = generators(n)
    win, wout = wire_deck(deck_in), wire_deck(deck_out)
    u = _challenges(context, y, win, wout, commits)
    cu = [c * uj % L for uj in u]
    prod_u = 1
    for uj in u:
        prod_u = prod_u * uj % L

    # multiplications first: they validate the received points before any addition uses them
    cu_commits = [mul(a, p) for a, p in zip(cu, commits)]
    c_chain = [mul(c, p) for p in chain]
    sp_out_a = [mul(a, e[0]) for a, e in zip(s_prime, deck_out)]
    sp_out_b = [mul(a, e[1]) for a, e in zip(s_prime, deck_out)]
    prevs = [h] + chain[:-1]
    sp_prevs = [mul(a, p) for a, p in zip(s_prime, prevs)]
    settle(received)   # anything a zero scalar skipped; an addition must never see a bad point

    c_bar = sub(add_all(commits), _sum_generators(n))
    t1 = add(mul(c, c_bar), mul(s1, G))
    # c·(ĉ_{N−1} − (Πu)·h) + s2·G
    t2 = add(sub(c_chain[-1], mul(c * prod_u, h)), mul(s2, G))
    # c·Σu_j c_j + s3·G + Σs'_i h_i
    t3 = add(add(add_all(cu_commits), mul(s3, G)), lincomb(s_prime, hs))
    # c·Σu_j a_j + Σs'_i a'_i − s4·Y   and the same on B with G
    t41 = sub(add(lincomb(cu, [e[0] for e in deck_in]), add_all(sp_out_a)), mul(s4, y))
    t42 = sub(add(lincomb(cu, [e[1] for e in deck_in]), add_all(sp_out_b)), mul(s4, G))
    t_hat = [add(add(c_chain[i], mul(s_hat[i], G)), sp_prevs[i]) for i in range(n)]

    if _challenge(context, y, win, wout, commits, chain, [t1, t2, t3, t41, t42], t_hat) != c:
        raise InvalidProof("shuffle proof does not verify: the output is not a proven "
                           "re-encryption and permutation of the input under this context")
