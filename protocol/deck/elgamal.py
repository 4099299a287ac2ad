"""Threshold ElGamal ciphertexts C = (A, B) = (M + r·Y, r·G) and their wire form.

A ciphertext travels as a 2-element list [A, B] of 32-byte points, a deck as a list of
those. Parsing validates every point, so downstream code only sees subgroup elements.
"""

from __future__ import annotations

from typing import Sequence

from .group import G, InvalidProof, Point, add, mul, mul_base, parse_point

Ciphertext = tuple[Point, Point]
"""(A, B) = (M + r·Y, r·G)."""

WireCiphertext = list[bytes]
"""[A, B] as 32-byte strings."""


def parse_ciphertext(obj: object, what: str = "ciphertext") -> Ciphertext:
    """Validate a received [A, B]."""
    if type(obj) not in (list, tuple) or len(obj) != 2:  # type: ignore[arg-type]
        raise InvalidProof(f"{what}: expected a list [A, B] of two points")
    a, b = obj  # type: ignore[misc]
    return parse_point(a, f"{what}.A"), parse_point(b, f"{what}.B")


def parse_deck(obj: object, what: str = "deck") -> list[Ciphertext]:
    """Validate a received list of ciphertexts."""
    if type(obj) not in (list, tuple):
        raise InvalidProof(f"{what}: expected a list of ciphertexts")
    return [parse_ciphertext(c, f"{what}[{i}]") for i, c in enumerate(obj)]  # type: ignore[arg-type]


def wire(c: Ciphertext) -> WireCiphertext:
    """The msgpack-able form [A, B]."""
    return [bytes(c[0]), bytes(c[1])]


def wire_deck(deck: Sequence[Ciphertext]) -> list[WireCiphertext]:
    return [wire(c) for c in deck]


def open_encrypt(y: Point, m: Point) -> Ciphertext:
    """The public "open" encryption with r = 1: (M + Y, G). r = 0 would give B = identity."""
    return add(m, y), G


def reencrypt(y: Point, c: Ciphertext, r: int) -> Ciphertext:
    """(A + r·Y, B + r·G): same plaintext, fresh randomness."""
    return add(c[0], mul(r, y)), add(c[1], mul_base(r))
