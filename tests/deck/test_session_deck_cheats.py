"""Every deck cheat of issue 3, sent as a validly signed message at the moment it would
matter: rejected at once with a typed error naming the signer, the replica unchanged, and
the genuine message still accepted afterwards."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from protocol import chain, errors
from protocol.deck import card_point, ops, shuffle as tw
from protocol.deck.elgamal import parse_deck, reencrypt
from protocol.deck.group import (L, SMALL_ORDER_POINTS, G, SecretStream, add, is_point, mul_base,
                                 parse_point, sub)
from protocol.session import Session
from tests.deck.deck_game import (assert_rejected, deck_table, deck_x, messages, replay, resign,
                                  seat_of, seed_of, snapshot)

N = 3


@pytest.fixture(scope="module")
def game():
    t, _ = deck_table(N, seed=N)                   # the game of test_session_deck (shared)
    other, _ = deck_table(N, seed=42)

    def at(i: int) -> Session:
        return replay(t, i)
    return t, other, at


def off_curve() -> bytes:
    for i in range(2, 200):
        cand = bytes([i]) * 32
        if not is_point(cand):
            return cand
    raise AssertionError


def plus_l(scalar: bytes) -> bytes:
    """The same scalar, not reduced: x + L (still 32 bytes)."""
    return (int.from_bytes(scalar, "little") + L).to_bytes(32, "little")


def genuine_still_applies(s: Session, raw: bytes) -> None:
    assert s.receive(raw).status == "applied"


# ----------------------------------------------------------------------------- keys

def test_key_share_cheats(game):
    t, other, at = game
    i, m = messages(t, "deckkey")[N - 1]           # the last key share: the rogue-key position
    seat = seat_of(t, m)
    s = at(i)
    ys = [mm.body["y"] for _, mm in messages(t, "deckkey")]
    # rogue key Y = X − ΣY_others (would give whoever knows X the joint key), no valid PoK possible
    x_evil = 123456789
    rogue = bytes(sub(sub(mul_base(x_evil), ys[0]), ys[1]))
    for pok in (m.body["pok"], [m.body["pok"][0], bytes(32)]):
        assert_rejected(s, resign(t, m, body={"y": rogue, "pok": pok}), errors.BadProof, seat)
    # another seat's key share with its (valid) proof: bound to that seat
    _, m0 = messages(t, "deckkey")[0]
    assert_rejected(s, resign(t, m, body=m0.body), errors.BadProof, seat)
    # the same seat's key share from another game: bound to the game
    _, mo = messages(other, "deckkey")[N - 1]
    assert_rejected(s, resign(t, m, body=mo.body), errors.BadProof, seat)
    # bad points and a non-canonical scalar
    for y in (SMALL_ORDER_POINTS[4], SMALL_ORDER_POINTS[0], off_curve(), b"\x01" * 31):
        assert_rejected(s, resign(t, m, body={"y": y, "pok": m.body["pok"]}), errors.BadProof, seat)
    c, z = m.body["pok"]
    assert_rejected(s, resign(t, m, body={"y": m.body["y"], "pok": [c, plus_l(z)]}), errors.BadProof, seat)
    assert_rejected(s, resign(t, m, body={"y": m.body["y"]}), errors.BadBody, seat)
    genuine_still_applies(s, m.raw)


# -------------------------------------------------------------------------- shuffles

def test_shuffle_output_cheats(game):
    t, other, at = game
    i, m = messages(t, "shuffle")[1]               # seat 1's shuffle of the first deck
    seat = seat_of(t, m)
    s = at(i)
    out, proof = m.body["deck"], m.body["proof"]

    def send(deck, pf=proof, error=errors.BadProof):
        assert_rejected(s, resign(t, m, body={"deck": deck, "proof": pf}), error, seat)

    send([out[1], out[0], *out[2:]])                               # swapped
    send([out[0], out[0], *out[2:]])                               # duplicated
    fake = ops.open_encrypt(s.joint_key, card_point("main", 0))    # substituted by a known card
    send([fake, *out[1:]])
    send(out[:-1])                                                 # dropped
    send(out[:-1], proof[:-4])                                     # dropped, proof trimmed to size
    send([[out[0][0], SMALL_ORDER_POINTS[5]], *out[1:]])           # small-order point
    send([[off_curve(), out[0][1]], *out[1:]])                     # off the curve
    send(out, proof[:-1] + [plus_l(proof[-1])])                    # non-canonical scalar
    send({"not": "a deck"}, error=errors.BadBody)

    # a cheater who duplicates a card and proves with the TW prover: the proof fails
    deck_in = parse_deck(s.shuffle_input())
    y = s.joint_key
    stream = SecretStream("cheat", seed_of(t, seat), b"x")
    perm = [0, 0] + list(range(2, len(deck_in)))
    rr = [stream.scalar("r", k) for k in range(len(deck_in))]
    yp = parse_point(y, "Y")
    dup = [reencrypt(yp, deck_in[perm[k]], rr[k]) for k in range(len(deck_in))]
    ctx = s.deck_context(seat, m.seq, "main")
    pf = tw.prove(yp, deck_in, dup, perm, rr, stream, ctx)
    send([[bytes(a), bytes(b)] for a, b in dup], pf)
    genuine_still_applies(s, m.raw)


def test_shuffle_proof_replays(game):
    t, other, at = game
    i, m = messages(t, "shuffle")[1]
    seat = seat_of(t, m)
    s = at(i)
    deck_in = s.shuffle_input()
    seed = seed_of(t, seat)
    # the whole statement the same, only the context from another game, deck, step or seq
    for ctx in (ops.deck_context(other.genesis.game_id, seat, m.seq, "main", s.step_no),
                ops.deck_context(t.genesis.game_id, seat, m.seq, "other-deck", s.step_no),
                ops.deck_context(t.genesis.game_id, seat, m.seq, "main", s.step_no + 1),
                ops.deck_context(t.genesis.game_id, seat, m.seq + 1, "main", s.step_no),
                ops.deck_context(t.genesis.game_id, (seat + 1) % N, m.seq, "main", s.step_no),
                ops.deck_context(t.genesis.game_id, seat, m.seq, "main", s.step_no, 0)):
        out, proof = ops.shuffle(s.joint_key, deck_in, seed, ctx)
        assert_rejected(s, resign(t, m, body={"deck": out, "proof": proof}), errors.BadProof, seat)
    # (with the right context the seat's secrets give exactly the genuine message)
    assert list(ops.shuffle(s.joint_key, deck_in, seed, s.deck_context(seat, m.seq, "main"))) == \
        [m.body["deck"], m.body["proof"]]
    # the seat's shuffle of another game, and its own shuffle of the other joint shuffle
    _, mo = messages(other, "shuffle")[1]
    assert_rejected(s, resign(t, m, body=mo.body), errors.BadProof, seat)
    _, later = messages(t, "shuffle")[N + 1]
    assert_rejected(s, resign(t, m, body=later.body), errors.BadProof, seat)
    # the previous seat's output and proof, re-signed by this seat
    _, prev = messages(t, "shuffle")[0]
    assert_rejected(s, resign(t, m, body=prev.body), errors.BadProof, seat)
    genuine_still_applies(s, m.raw)


# ---------------------------------------------------------------------------- shares

def first_share(t, pred=lambda m: True):
    for i, m in messages(t, "share"):
        if pred(m):
            return i, m
    raise LookupError


def test_decryption_share_cheats(game):
    t, other, at = game
    i, m = first_share(t, lambda m: seat_of(t, m) == 1)
    seat = seat_of(t, m)
    s = at(i)
    h, d, proof = m.body["shares"][0]
    c = s.cipher[h]

    def send(item, error=errors.BadProof):
        assert_rejected(s, resign(t, m, body={"shares": [item]}), error, seat)

    send([h, bytes(add(d, G)), proof])                                        # wrong share, old proof
    wrong_ctx = s.deck_context(seat, m.seq, "share", h)
    dx, px = ops.decryption_share(deck_x(t, 2), c, seed_of(t, 2), wrong_ctx)  # another seat's key
    send([h, dx, px])
    x = deck_x(t, seat)
    for ctx in (ops.deck_context(other.genesis.game_id, seat, m.seq, "share", s.step_no, h),
                s.deck_context(seat, m.seq, "share", h + 1),                 # another position
                s.deck_context(seat, m.seq + 1, "share", h),
                s.deck_context(seat, m.seq, "claim", h)):
        dd, pp = ops.decryption_share(x, c, seed_of(t, seat), ctx)
        assert dd == d
        send([h, dd, pp])
    send([h, SMALL_ORDER_POINTS[6], proof])                                   # small order
    send([h, off_curve(), proof])                                             # off the curve
    send([h, d, [proof[0], plus_l(proof[1])]])                                # non-canonical scalar
    send([h + 1, d, proof], errors.BadBody)                                   # another handle
    assert_rejected(s, resign(t, m, body={"shares": []}), errors.BadBody, seat)
    genuine_still_applies(s, m.raw)


def test_a_share_from_another_position_is_refused(game):
    """A seat's valid share of one card, offered for another card of the same step."""
    t, _, at = game
    i, m = first_share(t, lambda m: len(m.body["shares"]) >= 2)
    seat = seat_of(t, m)
    s = at(i)
    (h1, d1, p1), (h2, d2, p2) = m.body["shares"][:2]
    rest = m.body["shares"][2:]
    assert_rejected(s, resign(t, m, body={"shares": [[h1, d2, p2], [h2, d2, p2], *rest]}), errors.BadProof, seat)
    assert_rejected(s, resign(t, m, body={"shares": [[h1, d1, p2], [h2, d2, p2], *rest]}), errors.BadProof, seat)
    genuine_still_applies(s, m.raw)


def test_remask_cheats(game):
    t, _, at = game
    i, m = messages(t, "remask")[0]
    seat = seat_of(t, m)
    s = at(i)
    h, c2, proof = m.body["cards"][0]
    c = s.cipher[h]

    def send(item):
        assert_rejected(s, resign(t, m, body={"cards": [item]}), errors.BadProof, seat)

    send([h, c, proof])                                            # not re-randomised at all
    other = next(hh for hh in s.cipher if hh != h and s.cipher[hh] != c)
    c3, p3 = ops.rerandomize(s.joint_key, s.cipher[other], seed_of(t, seat), s.deck_context(seat, m.seq, "remask", h))
    send([h, c3, p3])                                              # swapped for another card
    send([h, [c2[0], SMALL_ORDER_POINTS[7]], proof])
    send([h, c2, [proof[0], plus_l(proof[1])]])
    genuine_still_applies(s, m.raw)


# ------------------------------------------------------------------------- returns

def test_face_down_return_cheats(game):
    t, _, at = game
    i, m = messages(t, "return")[0]
    seat = seat_of(t, m)
    s = at(i)
    step = s.need.step
    hand = [s.cipher[h] for h in step.handles]
    ctx = s.deck_context(seat, m.seq, step.deck, step.position)
    seed = seed_of(t, seat)

    def send(body, error=errors.BadProof):
        assert_rejected(s, resign(t, m, body=body), error, seat)

    # a card the player does not hold (the top of the deck) instead of one of its own
    not_held = s.cipher[s.state.deck[0]]
    out, proof = ops.shuffle(s.joint_key, [not_held, hand[1]], seed, ctx, perm=[0, 1])
    send({"hand": out, "proof": proof})
    # keeping a copy of the returned card (a 1-of-k proof would not catch this): TW does
    yp = parse_point(s.joint_key, "Y")
    cin = parse_deck(hand)
    stream = SecretStream("cheat", seed, b"dup")
    rr = [stream.scalar("r", k) for k in range(2)]
    dup = [reencrypt(yp, cin[0], rr[0]), reencrypt(yp, cin[0], rr[1])]
    pf = tw.prove(yp, cin, dup, [0, 0], rr, stream, ctx)
    send({"hand": [[bytes(a), bytes(b)] for a, b in dup], "proof": pf})
    # the returned card alone with a valid 1-of-k proof is not the message format
    c1, p1 = ops.return_face_down(s.joint_key, hand, 0, seed, ctx)
    send({"hand": [c1], "proof": p1})
    send({"card": c1, "proof": p1}, errors.BadBody)
    # the honest output with the proof of another position (top <-> bottom) or step
    for bad_ctx in (s.deck_context(seat, m.seq, step.deck, "bottom" if step.position == "top" else "top"),
                    ops.deck_context(t.genesis.game_id, seat, m.seq, step.deck, s.step_no + 1, step.position)):
        out, proof = ops.shuffle(s.joint_key, hand, seed, bad_ctx, perm=[1, 0])
        send({"hand": out, "proof": proof})
    genuine_still_applies(s, m.raw)


# -------------------------------------------------------------------------- claims

def test_false_claims(game):
    t, _, at = game
    i, m = next((i, m) for i, m in messages(t, "act") if m.body["a"][0] == "claim")
    seat = seat_of(t, m)
    s = at(i)
    _, h, card = m.body["a"]
    ctx = s.deck_context(seat, m.seq, "claim", h)
    x, seed = deck_x(t, seat), seed_of(t, seat)
    d, proof = ops.claim(x, s.cipher[h], seed, ctx)
    wrong = (card + 1) % s.state.cards

    def send(action, opening):
        assert_rejected(s, resign(t, m, body={"a": action, "o": [opening]}), errors.BadOpening, seat)

    send(["claim", h, wrong], [h, d, proof])                          # another card than it holds
    send(["claim", h, card], [h, bytes(add(d, G)), proof])            # a forged share
    send(["claim", h, card], [h, d, [proof[0], plus_l(proof[1])]])
    d2, p2 = ops.claim(x, s.cipher[h], seed, s.deck_context(seat, m.seq, "share", h))
    send(["claim", h, card], [h, d2, p2])                             # a proof for another context
    send(["claim", h, card], [h, b"\x00" * 32])                       # a commitment-style opening
    # a card held by another seat
    other_seat = (seat + 1) % N
    theirs = s.state.hands[other_seat][0]
    dd, pp = ops.claim(x, s.cipher[theirs], seed, s.deck_context(seat, m.seq, "claim", theirs))
    send(["claim", theirs, t.players[other_seat].knowledge[theirs]], [theirs, dd, pp])
    genuine_still_applies(s, m.raw)


# --------------------------------------------------------------------- end of game

def test_published_deck_keys_are_checked(game):
    t, _, at = game
    i, m = messages(t, "final")[0]
    seat = seat_of(t, m)
    s = at(i)
    body = m.body
    for bad in (deck_x(t, (seat + 1) % N), plus_l(body["deck_key"]), bytes(32), b"\x01"):
        assert_rejected(s, resign(t, m, body={**body, "deck_key": bad}), errors.BadFinal, seat)
    assert_rejected(s, resign(t, m, body={**body, "deck_keys": body["deck_key"]}), errors.BadBody, seat)
    genuine_still_applies(s, m.raw)


def test_the_strict_session_rechecks_proofs_a_replica_skipped_as_its_own(game):
    t, _, at = game
    i, m = messages(t, "shuffle")[1]
    out = m.body["deck"]
    forged = resign(t, m, body={"deck": [out[1], out[0], *out[2:]], "proof": m.body["proof"]})
    strict = replay(t, i, strict=True)
    strict.own = chain.parse(forged).id
    assert_rejected(strict, forged, errors.BadProof, seat_of(t, m))


def test_messages_out_of_turn_or_of_the_wrong_kind(game):
    t, _, at = game
    i, m = messages(t, "shuffle")[1]
    s = replay(t, i, strict=True)
    # seat 2 may not shuffle before seat 1 (strict: not expected now)
    j, m2 = messages(t, "shuffle")[2]
    seq, prev = s.head(2)
    early = chain.seal(t.keys[2], t.genesis.game_id, seq + 1, prev, s.refs_for(2), "shuffle", m2.body).raw
    assert_rejected(s, early, errors.Unexpected, 2)
    # a share where a shuffle is expected
    assert_rejected(s, resign(t, m, kind="share", body={"shares": []}), errors.Unexpected, seat_of(t, m))


# ------------------------------------------------------------------------- fuzzing

@pytest.fixture(scope="module")
def fuzz_targets(game):
    t, _, _ = game
    out = {}
    for kind in ("deckkey", "shuffle", "share", "remask", "return", "act", "final"):
        found = [(i, m) for i, m in messages(t, kind) if kind != "act" or m.body["a"][0] == "claim"]
        i, m = found[-1]
        out[kind] = (replay(t, i), m)
    return t, out


def _mutate(value, data):
    """Replace one leaf (or a list) somewhere in the body by something else."""
    if isinstance(value, dict):
        k = data.draw(st.sampled_from(sorted(value)))
        return {**value, k: _mutate(value[k], data)}
    if isinstance(value, list) and value and data.draw(st.booleans()):
        i = data.draw(st.integers(0, len(value) - 1))
        return value[:i] + [_mutate(value[i], data)] + value[i + 1:]
    return data.draw(st.one_of(
        st.binary(min_size=32, max_size=32), st.binary(max_size=40), st.integers(-3, 2**64 - 1),
        st.sampled_from([SMALL_ORDER_POINTS[3], off_curve(), plus_l(b"\x05" * 31 + b"\x00"), b"", None]),
        st.lists(st.binary(min_size=32, max_size=32), max_size=3),
        st.just(value[:-1] if isinstance(value, list) else value)))


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.data())
def test_fuzzed_deck_bodies_are_refused_cleanly(fuzz_targets, data):
    t, targets = fuzz_targets
    kind = data.draw(st.sampled_from(sorted(targets)))
    s, m = targets[kind]
    body = _mutate(m.body, data)
    if body == m.body:
        return
    before = snapshot(s)
    with pytest.raises(errors.Rejected) as info:
        s.receive(resign(t, m, body=body))
    assert snapshot(s) == before
    assert info.value.seat == seat_of(t, m) and str(info.value)
