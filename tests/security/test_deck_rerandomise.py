"""Issue 16, item 2 and "Also": a face-down return (or a re-masking, or a shuffle) that keeps
a card's old ciphertext is refused. With B unchanged, the decryption shares already
published for the old ciphertext would apply to the new handle, so once another seat drew
the card privately anyone could open it from the transcript. Driven through a whole game
of the deck fixture and `verify`, as an attacker holding a seat's real key would."""

from __future__ import annotations

import pytest

from protocol import errors, transcript
from protocol.deck import shuffle as tw
from protocol.deck.elgamal import parse_deck, reencrypt
from protocol.deck.group import SecretStream, parse_point
from protocol.verify import verify_bytes
from tests.deck.deck_game import assert_rejected, deck_table, messages, replay, resign, seat_of, seed_of

N = 3


@pytest.fixture(scope="module")
def t():
    return deck_table(N, seed=N)[0]


def cheat_verdict(t, i: int, cheat: bytes) -> dict:
    """`verify` on the honest transcript up to message i, then the cheat."""
    log = t.sessions[0].log
    r = verify_bytes(transcript.dump(t.genesis.to_wire(), log[:i] + [cheat]))
    assert not r.valid, "the cheat was accepted"
    return r.error


def lazy_return(t, i, m) -> bytes:
    """The seat's return with a valid TW proof whose re-encryption of the returned card is
    r = 0: the returned card keeps its old ciphertext (the kept card is re-encrypted)."""
    s = replay(t, i)
    step = s.need.step
    seat = seat_of(t, m)
    hand = parse_deck([s.cipher[h] for h in step.handles])
    yp = parse_point(s.joint_key, "Y")
    ctx = s.deck_context(seat, m.seq, step.deck, step.position)
    stream = SecretStream("lazy", seed_of(t, seat), ctx)
    perm = [0] + list(range(1, len(hand)))
    rr = [0] + [stream.scalar("r", k) for k in range(1, len(hand))]
    out = [reencrypt(yp, hand[perm[k]], rr[k]) for k in range(len(hand))]
    proof = tw.prove(yp, hand, out, perm, rr, stream, ctx)
    assert out[0] == hand[0]
    return resign(t, m, body={"hand": [[bytes(a), bytes(b)] for a, b in out], "proof": proof})


def test_whole_deck_game_with_returns_and_remasks_verifies(t):
    kinds = {m.kind for _, m in messages(t)}
    assert {"return", "remask"} <= kinds
    assert verify_bytes(t.transcript()).ok


def test_face_down_return_keeping_the_old_ciphertext_is_refused(t):
    for i, m in messages(t, "return")[:2]:
        cheat = lazy_return(t, i, m)
        assert_rejected(replay(t, i), cheat, errors.BadProof, seat_of(t, m))
        err = cheat_verdict(t, i, cheat)
        assert err["code"] == "bad-proof" and err["position"] == i + 1 and err["seat"] == seat_of(t, m), err


def test_remask_keeping_the_old_ciphertext_is_refused(t):
    """A re-masking whose new ciphertext is the old one (r = 0: the DLEQ statement is trivially
    true) in a whole game: refused, naming the re-masking seat."""
    from protocol.deck.proofs import dleq_prove
    from protocol.deck.group import G, IDENTITY
    i, m = messages(t, "remask")[0]
    s = replay(t, i)
    seat = seat_of(t, m)
    cards = []
    for h, _, _ in m.body["cards"]:
        c = s.cipher[h]
        ctx = s.deck_context(seat, m.seq, "remask", h)
        yp = parse_point(s.joint_key, "Y")
        # the genuine proof system with r = 0 over the zero differences
        proof = dleq_prove("caravan/deck-rerandomize/v1", ctx, [yp, c, c], yp, IDENTITY, G, IDENTITY, 0, 7)
        cards.append([h, c, proof])
    cheat = resign(t, m, body={"cards": cards})
    assert_rejected(s, cheat, errors.BadProof, seat)
    err = cheat_verdict(t, i, cheat)
    assert err["code"] == "bad-proof" and err["seat"] == seat, err


def test_a_shuffle_may_not_pass_a_card_through_unchanged(t):
    """The last shuffler of a joint shuffle leaving one card's ciphertext as it was."""
    i, m = messages(t, "shuffle")[N - 1]
    s = replay(t, i)
    seat = seat_of(t, m)
    deck_in = parse_deck(s.shuffle_input())
    yp = parse_point(s.joint_key, "Y")
    ctx = s.deck_context(seat, m.seq, s.need.step.deck)
    stream = SecretStream("lazy", seed_of(t, seat), ctx)
    perm = list(range(len(deck_in)))
    rr = [0] + [stream.scalar("r", k) for k in range(1, len(deck_in))]
    out = [reencrypt(yp, deck_in[k], rr[k]) for k in range(len(deck_in))]
    proof = tw.prove(yp, deck_in, out, perm, rr, stream, ctx)
    cheat = resign(t, m, body={"deck": [[bytes(a), bytes(b)] for a, b in out], "proof": proof})
    assert_rejected(s, cheat, errors.BadProof, seat)
    err = cheat_verdict(t, i, cheat)
    assert err["code"] == "bad-proof" and err["seat"] == seat, err
