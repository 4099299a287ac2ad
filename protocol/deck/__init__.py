"""Mental-poker decks: n-of-n threshold ElGamal on the ed25519 prime-order subgroup.

Barnett–Smart VTMF with a Terelius–Wikström shuffle proof, Chaum–Pedersen decryption
shares and a CDS 1-of-k proof for face-down returns. `ops` is the API the session uses;
the spec is specs/deck.md. Importing this package runs a libsodium self-test that
refuses small-order and torsioned points (CVE-2025-69277).
"""

from .cards import CardTable, card_point, card_table
from .group import DeckError, InvalidProof
from . import ops

__all__ = ["CardTable", "card_point", "card_table", "DeckError", "InvalidProof", "ops"]
