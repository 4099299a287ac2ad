"""Shared helpers for the mental-deck tests: a simulated table of n players.

Every message a player would post is verified once here (all honest replicas run the
same verification), and every posted value is recorded so tests can search the public
transcript for leaks.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from protocol.deck import card_table, ops
from protocol.deck.cards import CardTable

DECK = "season"


@dataclass
class Player:
    seat: int
    seed: bytes
    x: bytes
    y: bytes
    pok: list[bytes]


@dataclass
class Table:
    """n players sharing one game: keys, joint key, contexts and a public transcript."""

    n: int
    size: int
    game_id: bytes = b"caravan-test-game".ljust(32, b"\0")
    players: list[Player] = field(default_factory=list)
    transcript: list[Any] = field(default_factory=list)
    seq: int = 0

    def __post_init__(self) -> None:
        self.table: CardTable = card_table(DECK, self.size)
        for seat in range(self.n):
            seed = bytes([seat + 1]) * 32
            x, y, pok = ops.key_share(seed, self.game_id, seat)
            ops.verify_key_share(y, pok, self.game_id, seat)
            self.players.append(Player(seat, seed, x, y, pok))
            self.transcript += [y, pok]
        self.y = ops.joint_key([p.y for p in self.players])
        self.transcript.append(self.y)

    def ctx(self, author: int, deck: str = DECK, version: int = 0, position: int | None = None) -> bytes:
        self.seq += 1
        return ops.deck_context(self.game_id, author, self.seq, deck, version, position)

    def initial(self) -> list[list[bytes]]:
        return ops.initial_deck(self.y, self.table)

    def joint_shuffle(self, deck: list[list[bytes]], version: int = 0) -> list[list[bytes]]:
        """Every player shuffles in seat order; each proof is verified before the next."""
        for p in self.players:
            ctx = self.ctx(p.seat, version=version)
            out, proof = ops.shuffle(self.y, deck, p.seed, ctx)
            ops.verify_shuffle(self.y, deck, out, proof, ctx)
            self.transcript += [out, proof]
            deck = out
        return deck

    def share(self, seat: int, c: list[bytes], position: int) -> bytes:
        """Seat posts its verified decryption share of c."""
        p = self.players[seat]
        ctx = self.ctx(seat, position=position)
        d, proof = ops.decryption_share(p.x, c, p.seed, ctx)
        ops.verify_share(p.y, c, d, proof, ctx)
        self.transcript += [d, proof]
        return d

    def public_reveal(self, c: list[bytes], position: int) -> int:
        shares = [self.share(s, c, position) for s in range(self.n)]
        return self.table.decode(ops.open_card(c, shares))

    def others_shares(self, c: list[bytes], drawer: int, position: int) -> list[bytes]:
        return [self.share(s, c, position) for s in range(self.n) if s != drawer]

    def private_draw(self, c: list[bytes], drawer: int, position: int) -> tuple[int, list[bytes]]:
        shares = self.others_shares(c, drawer, position)
        point = ops.open_private(self.players[drawer].x, c, shares)
        return self.table.decode(point), shares

    def flat_transcript(self) -> set[bytes]:
        """Every 32-byte string posted so far."""
        out: set[bytes] = set()

        def walk(v: Any) -> None:
            if isinstance(v, bytes):
                out.add(v)
            elif isinstance(v, (list, tuple)):
                for w in v:
                    walk(w)

        walk(self.transcript)
        return out
