"""Whole-game flows with 2 to 6 players: every operation of crypto-notes §4.4, every proof checked."""

from __future__ import annotations

import pytest

from tests.deck.deck_table import Table
from protocol.deck import InvalidProof, ops
from protocol.deck.group import add, parse_point

SIZE = 12


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_full_game(n: int) -> None:
    t = Table(n, SIZE)
    deck = t.joint_shuffle(t.initial())
    # Shuffled: the same card points cannot be read off (no A equals any M + Y, no B is G).
    opened = {bytes(add(m, parse_point(t.y, "Y"))) for m in t.table.points}
    assert not any(c[0] in opened or c[1] == bytes(parse_point(t.y, "Y")) for c in deck)
    hidden_so_far = t.flat_transcript()
    assert not hidden_so_far & set(t.table.points), "a card point appeared before any reveal"

    known: dict[int, int] = {}  # deck position -> card, learned legitimately below
    drawer = n - 1

    # Public reveal of position 0.
    known[0] = t.public_reveal(deck[0], 0)

    # Private draw of position 1 by the last seat.
    card1, shares1 = t.private_draw(deck[1], drawer, 1)
    known[1] = card1
    # The transcript plus every other player's secret key is not enough:
    others_x = [p.x for p in t.players if p.seat != drawer]
    partial = ops.open_with_keys(deck[1], others_x)
    with pytest.raises(InvalidProof):
        t.table.decode(partial)
    with pytest.raises(InvalidProof):
        t.table.decode(ops.open_card(deck[1], shares1))
    # ... and the drawer's own x completes it.
    assert t.table.decode(ops.open_private(t.players[drawer].x, deck[1], shares1)) == card1

    # Private peek of position 2 by seat 0, then mandatory re-randomisation by seat 1.
    peeked, peek_shares = t.private_draw(deck[2], 0, 2)
    ctx = t.ctx(1 % n, position=2)
    fresh, proof = ops.rerandomize(t.y, deck[2], t.players[1 % n].seed, ctx)
    ops.verify_rerandomize(t.y, deck[2], fresh, proof, ctx)
    t.transcript += [fresh, proof]
    # The published peek shares are useless on the fresh ciphertext, even with the peeker's x.
    with pytest.raises(InvalidProof):
        t.table.decode(ops.open_private(t.players[0].x, fresh, peek_shares))
    deck[2] = fresh
    # Later the card goes to another player (seat 1): fresh shares, same card.
    other = 1 % n
    got, _ = t.private_draw(deck[2], other, 2)
    assert got == peeked
    known[2] = got

    # Burn position 3: moved out unseen, nothing published.
    burned = deck[3]

    # Draw two private cards to seat 0's hand (positions 4, 5), then return one face down.
    hand = [deck[4], deck[5]]
    hand_cards = [t.private_draw(c, 0, 4 + i)[0] for i, c in enumerate(hand)]
    ctx = t.ctx(0, position=len(deck))
    returned, proof = ops.return_face_down(t.y, hand, 1, t.players[0].seed, ctx)
    ops.verify_return_face_down(t.y, hand, returned, proof, ctx)
    t.transcript += [returned, proof]
    assert returned not in hand and returned[1] not in [c[1] for c in hand]

    # Seat 0 claims the card it kept: everyone can decode it.
    kept = hand[0]
    others = [t.share(s, kept, 4) for s in range(n) if s != 0]
    ctx = t.ctx(0, position=4)
    d, proof = ops.claim(t.players[0].x, kept, t.players[0].seed, ctx)
    point = ops.verify_claim(t.players[0].y, kept, d, proof, others, ctx)
    assert t.table.decode(point) == hand_cards[0]

    # No card point was posted before its reveal; afterwards only the revealed ones exist
    # as computed values, never as posted data.
    assert not t.flat_transcript() & set(t.table.points)

    # Gather and reshuffle: face-up cards go back openly, the returned card stays face down.
    discard = [ops.open_encrypt(t.y, t.table.point(known[0])), ops.open_encrypt(t.y, t.table.point(known[1])), returned]
    new_deck = t.joint_shuffle(discard, version=1)
    revealed = sorted(t.public_reveal(c, i) for i, c in enumerate(new_deck))
    assert revealed == sorted([known[0], known[1], hand_cards[1]])

    # End of game: every key is published and checked; the burned card can be audited.
    for p in t.players:
        ops.verify_published_key(p.y, p.x)
    burned_card = t.table.decode(ops.open_with_keys(burned, [p.x for p in t.players]))
    all_seen = set(known.values()) | set(hand_cards)
    assert burned_card not in all_seen
    # Every ciphertext of the dealt deck (burned and re-randomised ones included) still
    # decodes to a distinct card: nothing was lost or duplicated along the way.
    audit = [t.table.decode(ops.open_with_keys(c, [p.x for p in t.players])) for c in deck]
    assert sorted(audit) == list(range(SIZE))
    assert audit[3] == burned_card and audit[:3] == [known[0], known[1], known[2]]


def test_joint_shuffle_is_a_permutation_22_cards(table4: Table) -> None:
    """4 players, the real deck size: the final deck holds each card exactly once."""
    t = table4
    deck = t.joint_shuffle(t.initial())
    keys = [p.x for p in t.players]
    cards = [t.table.decode(ops.open_with_keys(c, keys)) for c in deck]
    assert sorted(cards) == list(range(22))
    assert cards != list(range(22))
    assert not t.flat_transcript() & set(t.table.points)
