"""PyNaCl's exception classes, with its hierarchy, so `protocol/` catches the same names."""

from __future__ import annotations

import builtins


class CryptoError(Exception):
    """Base of every error the library raises."""


class BadSignatureError(CryptoError):
    """A signature that does not verify."""


class RuntimeError(builtins.RuntimeError, CryptoError):
    """libsodium refused an operation (say, a point outside the prime-order subgroup)."""


class TypeError(builtins.TypeError, CryptoError):
    """An argument of the wrong type or length."""


class ValueError(builtins.ValueError, CryptoError):
    """An argument of the right type with a bad value."""
