"""Typed rejections: every refused message says why, who signed it and the evidence."""

from __future__ import annotations

from typing import Any

from .identity import fingerprint


class Rejected(Exception):
    """A message was refused; the replica's state is unchanged.

    `seat` and `author` name the signer when the signature checked out (or the claimed
    author when it did not, which `code` then says); `evidence` holds the facts a third
    party needs (message ids, expected values)."""

    code = "rejected"

    def __init__(self, reason: str, *, seat: int | None = None, author: bytes | None = None,
                 evidence: dict[str, Any] | None = None):
        super().__init__(reason)
        self.reason = reason
        self.seat = seat
        self.author = author
        self.evidence = evidence or {}

    @property
    def signer(self) -> str:
        if self.author is None:
            return "unknown signer"
        who = f"seat {self.seat}" if self.seat is not None else "a key not seated in this game"
        return f"{who} ({fingerprint(self.author)})"

    def __str__(self) -> str:
        return f"{self.code}: {self.reason} [{self.signer}]"


class Malformed(Rejected):
    code = "malformed"


class UnknownAuthor(Rejected):
    code = "unknown-author"


class BadSignature(Rejected):
    code = "bad-signature"


class WrongGame(Rejected):
    code = "wrong-game"


class BadChain(Rejected):
    """Wrong seq, wrong prev, or refs to messages that do not exist."""
    code = "bad-chain"


class Equivocation(Rejected):
    """Two validly signed messages with the same (game, author, seq); evidence["proof"]."""
    code = "equivocation"


class Unexpected(Rejected):
    """A valid message the game was not waiting for (out of turn, wrong kind, too early)."""
    code = "unexpected"


class BadBody(Rejected):
    code = "bad-body"


class IllegalMove(Rejected):
    code = "illegal-move"


class BadOpening(Rejected):
    code = "bad-opening"


class BadBeacon(Rejected):
    code = "bad-beacon"


class BadFinal(Rejected):
    code = "bad-final"


class BadGenesis(Rejected):
    code = "bad-genesis"


class BadProof(Rejected):
    """A mental-deck value fails its check: a point off the prime-order subgroup, a
    non-canonical scalar, or a proof (key, shuffle, share, re-masking) that does not verify."""
    code = "bad-proof"


class Duplicate(Rejected):
    """A transcript holds the same message twice (a fault of the file, not of its signer)."""
    code = "duplicate"


class Gap(Rejected):
    """A transcript lacks a message that the next one depends on (a skipped seq, or a ref to a
    message not yet in the file): the file is incomplete; its next signer is not blamed."""
    code = "gap"


class BadOrder(Rejected):
    """The contributions of a parallel step are not in seat order (specs/protocol.md §9): a
    reordered file, refused so that a transcript's bytes identify its game."""
    code = "bad-order"
