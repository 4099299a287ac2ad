"""One hash-to-curve point per physical card, and the reverse table used to decode.

M_i = from_uniform(SHA-512(encode(["caravan/deck-card/v1", deck_name, i]))[:32]).
Points are per physical card (not per card type) and nobody knows a discrete-log
relation between them (crypto-notes §4.2, §4.11 pitfall 4).
"""

from __future__ import annotations

from functools import lru_cache

from .group import DeckError, InvalidProof, Point, hash_to_point

TAG_CARD = "caravan/deck-card/v1"


def card_point(deck_name: str, index: int) -> Point:
    """M_index for the named deck."""
    return hash_to_point(TAG_CARD, deck_name, index)


class CardTable:
    """The card points of a deck of `size` physical cards and their inverse map."""

    __slots__ = ("deck_name", "points", "_index")

    def __init__(self, deck_name: str, size: int) -> None:
        if type(deck_name) is not str or type(size) is not int or size < 1:
            raise DeckError("a card table needs a deck name (str) and a positive size")
        self.deck_name = deck_name
        self.points: tuple[Point, ...] = tuple(card_point(deck_name, i) for i in range(size))
        self._index = {p: i for i, p in enumerate(self.points)}
        if len(self._index) != size:
            raise DeckError(f"card points of deck {deck_name!r} collide")

    def __len__(self) -> int:
        return len(self.points)

    def point(self, index: int) -> Point:
        return self.points[index]

    def decode(self, point: object) -> int:
        """Card index of a decrypted point; anything else means a wrong share or deck."""
        i = self._index.get(point) if type(point) is bytes else None  # type: ignore[arg-type]
        if i is None:
            raise InvalidProof(f"decrypted point is not a card of deck {self.deck_name!r}")
        return i


@lru_cache(maxsize=64)
def card_table(deck_name: str, size: int) -> CardTable:
    """Cached CardTable (building one costs a hash-to-curve per card)."""
    return CardTable(deck_name, size)
