"""The joiner's side of a lobby by mail without any I/O (protocol/mail/lobby_join.py), against
letters this test makes with protocol/mail/lobby_letters.py as a host would: an honest host
seats it and the game starts; an advert without the invite's pin, a forged letter, a body
that is not the advertised table, a refusal, a different start are each dropped or refused
with their reason (naming the key), nothing is signed after them; every letter may come
twice, and the joiner may stop and come back from its saved state after any of them."""

from __future__ import annotations

import nacl.bindings as sodium
import pytest

from protocol import genesis as G, wire
from protocol.identity import SigningKey, fingerprint, verify
from protocol.link.handshake import key_pin
from protocol.mail.lobby_join import (DROPPED, NOT_SIGNED, NOTHING, REFUSED, SIGNED, STARTED, TO_SIGN, UNREADABLE,
                                      MailJoiner, MailRefused, full_problem, read_advert)
from protocol.mail.lobby_letters import TAG, hide, open_letter, seal, sign_advert
from protocol.mail.mailbox import curve_public
from protocol.player import beacon_chain
from protocol.seat.hosting import BEACON_LENGTH
from tests.games.pick import quick_game, short_game

HOST = SigningKey.from_seed(b"\x30" * 32)
ME = SigningKey.from_seed(b"\x31" * 32)
OTHER = SigningKey.from_seed(b"\x32" * 32)
LOBBY, NONCE, SECRET = b"\x42" * 16, b"\x07" * 16, b"s" * 32
GAME = quick_game(3)
OPTIONS = short_game(GAME)[1]
LIMIT = 3600
AT = 2
"""The seat the host gives this joiner (the other friend came first)."""


def advert_fields(**over) -> dict:
    return {"lobby": LOBBY, "game": GAME, "title": GAME, "players": 3, "options": OPTIONS, "time_limit": LIMIT,
            "pace": G.TURN_BASED, "nonce": NONCE, "beacon_length": BEACON_LENGTH, "host_key": HOST.public,
            "name": "Ann", **over}


def hidden(key: SigningKey = HOST, **over) -> bytes:
    return hide(sign_advert(key, advert_fields(**over)), key_pin(HOST.public))


def saved(j: MailJoiner) -> MailJoiner:
    """The joiner as its next run takes it back: from its state as stored (canonical msgpack)."""
    return MailJoiner(ME, wire.decode(wire.encode(j.state)))


def fresh() -> MailJoiner:
    _, signed = read_advert(hidden(), key_pin(HOST.public), LOBBY)
    return MailJoiner.fresh(ME, signed, SECRET)


def tip(seat: int) -> bytes:
    return beacon_chain(SECRET, NONCE, seat, BEACON_LENGTH)[0]


def body(game: str = GAME, seats: list[bytes] | None = None, options: dict | None = None,
         time_limit: int = LIMIT, pace: str = G.TURN_BASED, mine: bytes | None = None) -> bytes:
    seats = seats or [HOST.public, OTHER.public, ME.public]
    tips = [b"\x01" * 32, b"\x02" * 32, mine or tip(AT)] + [b"\x03" * 32] * (len(seats) - 3)
    return G.make_body(game, OPTIONS if options is None else options, seats, tips, NONCE, BEACON_LENGTH,
                       time_limit, pace)


def from_host(frame, key: SigningKey = HOST, lobby: bytes = LOBBY) -> bytes:
    return seal(key, lobby, ME.public, frame)


def to_sign(offered: bytes, seat: int = AT) -> bytes:
    return from_host({"t": "sign", "body": offered, "seat": seat})


def signed_genesis(offered: bytes, other: SigningKey = OTHER) -> bytes:
    fields = wire.decode(offered)
    sigs = [G.sign(k, offered) for k in (HOST, other, ME)]
    return G.Genesis(GAME, OPTIONS, fields["seats"], fields["beacon"], BEACON_LENGTH, NONCE, offered, sigs, LIMIT,
                     G.TURN_BASED).to_wire()


def start(raw: bytes) -> bytes:
    return from_host({"t": "start", "genesis": raw, "names": ["Ann", "Bo\n", "Zoë"]})


def signed(j: MailJoiner, offered: bytes) -> MailJoiner:
    """Through the body to sign and the signature; the joiner as saved then."""
    assert j.feed(to_sign(offered)).what == TO_SIGN
    assert j.sign().what == SIGNED
    return saved(j)


def the_signature(step) -> bytes:
    [post] = step.posts
    assert post.to == HOST.public
    sender, frame = open_letter(HOST, LOBBY, post.letter)
    assert sender == ME.public and frame["t"] == "signature"
    return frame["sig"]


def test_an_honest_host_seats_the_joiner_which_signs_and_starts_across_restarts():
    fields, _ = read_advert(hidden(), key_pin(HOST.public), LOBBY)
    assert fields == advert_fields() and full_problem(fields, 2) is None
    j = fresh()
    assert set(j.state) == {"role", "advert", "secret"} and j.state["role"] == "join"
    assert j.waiting() == "the host to seat you"
    post = j.join("Zoë\x00")
    sender, frame = open_letter(HOST, LOBBY, post.letter)
    assert post.to == HOST.public and sender == ME.public
    assert frame == {"t": "join", "name": "Zoë", "tips": [tip(1), tip(2)]}

    offered = body()
    letter = to_sign(offered)
    for _ in range(2):                                   # a restart before signing: the same letter again
        j = saved(j)
        step = j.feed(letter)
        assert step.what == TO_SIGN and not step.posts and not step.save and "body" not in j.state
        assert step.offer.body == offered and step.offer.seat == AT and step.offer.secret == SECRET
        assert step.offer.game_id == G.game_id_of(offered) and step.signer == HOST.public
    step = j.sign()
    assert step.what == SIGNED and step.save and j.state["body"] == offered and j.state["seat"] == AT
    assert step.text.startswith(f"signed the genesis of game {G.game_id_of(offered).hex()[:16]} (seat {AT});")
    sig = the_signature(step)
    assert verify(ME.public, sig, b"caravan/genesis-sig/v1" + G.game_id_of(offered))
    with pytest.raises(ValueError, match="no genesis body waits"):
        j.sign()

    j = saved(j)
    assert j.waiting() == "the host to start the game"
    again = j.feed(letter)                               # the host asks again (it did not get it): the same one
    assert again.what == SIGNED and not again.save and the_signature(again) == sig

    raw = signed_genesis(offered)
    for _ in range(2):                                   # the start again after a restart: started again
        j = saved(j)
        step = j.feed(start(raw))
        assert step.what == STARTED and step.save and not step.posts
        got = step.started
        assert (got.genesis_raw, got.game_id, got.seat, got.secret) == (raw, G.game_id_of(offered), AT, SECRET)
        assert got.names == ["Ann", "Bo", "Zoë"]
    assert set(j.state) == {"role", "advert", "secret", "body", "seat", "game_id", "started"}
    assert j.state["game_id"] == G.game_id_of(offered) and j.state["started"] is True


def test_a_state_the_earlier_code_wrote_is_taken_back_with_the_shells_keys_kept():
    _, signed_advert = read_advert(hidden(), key_pin(HOST.public), LOBBY)
    old = {"role": "join", "advert": signed_advert, "secret": SECRET, "relay": "mqtt://broker:1883"}
    j = MailJoiner(ME, wire.decode(wire.encode(old)))
    assert j.lobby_id == LOBBY and j.host_key == HOST.public
    j = signed(j, body())
    assert j.state["relay"] == "mqtt://broker:1883" and wire.encode(j.state) == wire.encode(
        {**old, "body": body(), "seat": AT})


def test_an_advert_without_the_invites_pin_or_of_an_unknown_table_is_refused_before_anything_is_sent():
    stranger = SigningKey.from_seed(b"\x33" * 32)
    with pytest.raises(MailRefused, match="does not open with the invite's host key"):
        read_advert(hidden(), key_pin(OTHER.public), LOBBY)
    with pytest.raises(MailRefused, match=f"signed by key {key_pin(stranger.public).hex()}, not "
                                          f"{key_pin(HOST.public).hex()}"):
        read_advert(hidden(stranger, host_key=stranger.public), key_pin(HOST.public), LOBBY)
    with pytest.raises(MailRefused, match="does not carry its host's signature"):
        read_advert(hidden(stranger), key_pin(HOST.public), LOBBY)
    with pytest.raises(MailRefused, match="another lobby"):
        read_advert(hidden(), key_pin(HOST.public), b"\x43" * 16)
    with pytest.raises(MailRefused, match="does not open"):
        read_advert(None, key_pin(HOST.public), LOBBY)
    for over in ({"game": "no-such-game"}, {"players": 17}, {"beacon_length": 64}):
        with pytest.raises(MailRefused, match=f"lobby {LOBBY.hex()[:8]} is for .* a game or table this Caravan "
                                              "does not have"):
            read_advert(hidden(**over), key_pin(HOST.public), LOBBY)
    assert full_problem(advert_fields(), 3) == f"lobby {LOBBY.hex()[:8]} is full: its 3 seats are taken"


def forged(frame, claimed: SigningKey, by: SigningKey) -> bytes:
    """A letter that names `claimed` as its sender but is signed by `by`."""
    inner = wire.encode([TAG, LOBBY, claimed.public, ME.public, frame])
    return sodium.crypto_box_seal(inner + by.sign(inner), curve_public(ME.public))


@pytest.mark.parametrize("letter,what,why,signer", [
    (lambda: forged({"t": "sign", "body": body(), "seat": AT}, HOST, OTHER), UNREADABLE,
     f"a letter that claims key {fingerprint(HOST.public)} but is not signed by it", HOST),
    (lambda: from_host({"t": "sign", "body": body(), "seat": AT}, key=OTHER), DROPPED,
     f"a letter from {fingerprint(OTHER.public)}, not the host, dropped", OTHER),
    (lambda: from_host({"t": "sign", "body": body(), "seat": AT}, lobby=b"\x43" * 16), UNREADABLE,
     "a letter for another lobby or key", None),
    (lambda: seal(HOST, LOBBY, OTHER.public, {"t": "sign"}), UNREADABLE, "does not open with this node's key", None),
    (lambda: from_host(["sign"]), UNREADABLE, f"a letter from {fingerprint(HOST.public)} that is no lobby frame", HOST),
    (lambda: b"\x00" * 80, UNREADABLE, "does not open", None),
    (lambda: to_sign(body(), seat=3), DROPPED, "a malformed genesis to sign, dropped", HOST),
    (lambda: from_host({"t": "sign", "body": "text", "seat": AT}), DROPPED, "a malformed genesis to sign", HOST),
    (lambda: start(signed_genesis(body())), NOTHING, "", HOST),
    (lambda: from_host({"t": "seats"}), NOTHING, "", HOST),
])
def test_a_letter_that_is_not_the_hosts_or_not_expected_now_is_dropped_naming_why(letter, what, why, signer):
    j = fresh()
    before = wire.encode(j.state)
    step = j.feed(letter())
    assert step.what == what and why in step.text and not step.posts and not step.save and step.offer is None
    assert step.signer == (signer.public if signer else None)
    assert wire.encode(j.state) == before
    assert signed(j, body()).state["body"] == body()          # the host's real offer is still signed


@pytest.mark.parametrize("offer,why", [
    (lambda: body(game="not-" + GAME), "game is not the lobby's"),
    (lambda: body(options={"no": "such option"}), "options is not the lobby's"),
    (lambda: body(time_limit=LIMIT * 2), "time_limit is not the lobby's"),
    (lambda: body(pace=G.LIVE), "pace is not the lobby's"),
    (lambda: body(seats=[HOST.public, OTHER.public, ME.public, OTHER.public]), "it seats 4 players"),
    (lambda: body(seats=[HOST.public, ME.public, OTHER.public]), "my key and beacon tip are not at my seat"),
    (lambda: body(mine=tip(1)), "my key and beacon tip are not at my seat"),
    (lambda: body(seats=[OTHER.public, HOST.public, ME.public]), "seat 0 is not the host's key"),
    (lambda: b"\xc1junk", "the body must have exactly the fields"),
])
def test_a_body_that_is_not_the_advertised_table_is_not_signed_and_says_why(offer, why):
    j = fresh()
    for _ in range(2):                                   # again, and again after a restart
        step = j.feed(to_sign(offer()))
        assert step.what == NOT_SIGNED and not step.posts and not step.save and "body" not in j.state
        assert step.text.startswith(f"the genesis offered for signing is not the advertised game with my seat: {why}")
        assert step.text.endswith("; not signed") and "\n" not in step.text
        with pytest.raises(ValueError):
            j.sign()
        j = saved(j)


def test_after_signing_no_second_body_is_signed_and_no_other_genesis_starts():
    j = signed(fresh(), body())
    third = SigningKey.from_seed(b"\x34" * 32)
    second = body(seats=[HOST.public, third.public, ME.public])
    step = j.feed(to_sign(second))
    assert step.what == DROPPED and not step.posts and "signs only the first" in step.text
    step = j.feed(start(signed_genesis(second, third)))
    assert step.what == DROPPED and step.text == "the host started a different genesis than the one signed, dropped"
    step = j.feed(start(b"\xc1junk"))
    assert step.what == DROPPED and step.text.startswith("the host's genesis does not parse (")
    assert step.started is None and "started" not in saved(j).state
    assert j.feed(start(signed_genesis(body()))).what == STARTED


def test_the_hosts_refusal_ends_the_join_in_one_line_and_changes_nothing():
    j = fresh()
    step = j.feed(from_host({"t": "refused", "why": "the lobby is full " + "x" * 300}))
    assert step.what == REFUSED and not step.save and not step.posts and step.signer == HOST.public
    assert step.text == "the host refused: the lobby is full " + "x" * (200 - len("the lobby is full "))
    assert wire.encode(j.state) == wire.encode(fresh().state)
