"""The joiner's side of a lobby without a link (protocol/seat/joiner.py), in CPython: an honest
host seats it and it signs; each bad offer (another game, another key at its seat, an extra
seat, a host key that is not the pin, a full lobby, a host that says nothing) is refused with
its reason, and after a refusal nothing is signed."""

from __future__ import annotations

import pytest

from protocol import genesis as G
from protocol.identity import SigningKey, verify
from protocol.link.handshake import key_pin
from protocol.player import beacon_chain
from protocol.seat.joiner import (ANSWER_TIMEOUT, READY, JoinRefused, Joiner, host_key_problem, sealed_advert)
from tests.games.pick import quick_game, short_game

HOST = SigningKey.from_seed(b"\x20" * 32)
ME = SigningKey.from_seed(b"\x21" * 32)
OTHER = SigningKey.from_seed(b"\x22" * 32)
LOBBY = "42" * 16
NONCE, LENGTH = b"\x07" * 16, 64
GAME = quick_game(3)
PLAYERS, OPTIONS = 3, short_game(GAME)[1]


def advert(**over) -> dict:
    return {"t": "lobby", "lobby": LOBBY, "game": GAME, "title": GAME, "players": PLAYERS, "seated": 1,
            "options": OPTIONS, "time_limit": 0, **over}


def body(tip: bytes, seats=None, game=GAME) -> bytes:
    seats = seats or [HOST.public, ME.public, OTHER.public]
    return G.make_body(game, OPTIONS, seats, [b"\x01" * 32, tip, b"\x02" * 32][:len(seats)] + [b"\x03" * 32] *
                       (len(seats) - 3), NONCE, LENGTH, 0)


def joiner() -> Joiner:
    info = sealed_advert(advert(), HOST.public, key_pin(HOST.public), LOBBY, GAME, "the lobby")
    return Joiner(ME, b"s" * 32, info, HOST.public)


def seated(j: Joiner) -> bytes:
    """Through the seats and the seat assignment: the tip this joiner sent."""
    assert j.start(0.0, 0, "Zoë\x00") == [{"t": "join", "port": 0, "name": "Zoë"}]
    seats = [{"seat": 0, "name": "Ann", "taken": True, "you": False},
             {"seat": 1, "name": "Zoë", "taken": True, "you": True},
             {"seat": 2, "name": "", "taken": False, "you": False}]
    assert j.feed({"t": "seats", "seats": seats}, 1.0) == [] and j.seats == seats
    [tip] = j.feed({"t": "seated", "seat": 1, "nonce": NONCE, "players": PLAYERS, "beacon_length": LENGTH}, 2.0)
    assert tip == {"t": "tip", "tip": beacon_chain(b"s" * 32, NONCE, 1, LENGTH)[0]}
    assert j.deadline == 2.0 + ANSWER_TIMEOUT
    return tip["tip"]


def test_an_honest_host_seats_the_joiner_and_it_signs_the_advertised_game():
    j = joiner()
    offered = body(seated(j))
    assert j.feed({"t": "sign", "body": offered}, 3.0) == [] and j.state == READY
    assert j.game_id == G.game_id_of(offered)
    sig = j.signature(4.0)
    assert verify(ME.public, sig["sig"], b"caravan/genesis-sig/v1" + j.game_id)
    sigs = [G.sign(HOST, offered), sig["sig"], G.sign(OTHER, offered)]
    fields = G.wire.decode(offered)
    raw = G.Genesis(GAME, OPTIONS, fields["seats"], fields["beacon"], LENGTH, NONCE, offered, sigs, 0).to_wire()
    j.feed({"t": "start", "genesis": raw, "peers": [None, None, None], "names": ["Ann", "Zoë", "Bo\n"]}, 5.0)
    assert j.joined is not None and j.joined.seat == 1 and j.joined.genesis_raw == raw
    assert j.joined.names == ["Ann", "Zoë", "Bo"] and j.joined.game_id == G.game_id_of(offered)


@pytest.mark.parametrize("offer,why", [
    (lambda tip: body(tip, game="not-" + GAME), "game is not the lobby's"),
    (lambda tip: body(tip, seats=[HOST.public, OTHER.public, ME.public]), "my key and beacon tip are not at my seat"),
    (lambda tip: body(tip, seats=[HOST.public, ME.public, OTHER.public, HOST.public]), "it seats 4 players"),
    (lambda tip: body(b"\x09" * 32), "my key and beacon tip are not at my seat"),
    (lambda tip: body(tip, seats=[OTHER.public, ME.public, HOST.public]), "seat 0 is not the host's key"),
    (lambda tip: b"\xc1junk", "the genesis body does not decode"),
])
def test_a_bad_offer_is_refused_with_its_reason_and_nothing_is_signed(offer, why):
    j = joiner()
    with pytest.raises(JoinRefused, match="not the advertised game with my seat: " + why if "decode" not in why
                       else why):
        j.feed({"t": "sign", "body": offer(seated(j))}, 3.0)
    assert j.state == "refused" and why in j.refusal
    with pytest.raises(JoinRefused, match="nothing to sign"):
        j.signature(4.0)
    with pytest.raises(JoinRefused, match="no frame is taken now"):
        j.feed({"t": "sign", "body": body(b"\x00" * 32)}, 5.0)


def test_a_host_whose_key_is_not_the_pin_is_refused_before_anything_is_sent():
    assert host_key_problem(HOST.public, key_pin(HOST.public)) is None
    with pytest.raises(JoinRefused, match="the lobby's host is key .* not .*, the one you were given"):
        sealed_advert(advert(), OTHER.public, key_pin(HOST.public), LOBBY, GAME, "the lobby")


@pytest.mark.parametrize("frame,why", [
    (advert(game="no such game"), "a game this Caravan does not have"),
    (advert(lobby="43" * 16), "no lobby advert after the handshake"),
    ({"t": "hello"}, "no lobby advert after the handshake"),
])
def test_an_advert_for_another_lobby_or_game_is_refused(frame, why):
    with pytest.raises(JoinRefused, match=why):
        sealed_advert(frame, HOST.public, key_pin(HOST.public), LOBBY, GAME, "the lobby")


def test_a_lobby_of_another_game_than_the_invite_expected_is_refused():
    with pytest.raises(JoinRefused, match="the lobby is for"):
        sealed_advert(advert(), HOST.public, key_pin(HOST.public), LOBBY, "not-" + GAME, "the lobby")


@pytest.mark.parametrize("frame,why", [
    ({"t": "refused", "why": "the lobby is full"}, "the host refused: the lobby is full"),
    (None, "the host closed the lobby before the game started"),
    ({"t": "seated", "seat": "1", "nonce": NONCE, "beacon_length": LENGTH}, "malformed seat assignment"),
    ({"t": "sign", "body": b""}, "the host sent no seat"),
])
def test_a_refusal_or_a_wrong_frame_while_waiting_ends_the_join(frame, why):
    j = joiner()
    j.start(0.0)
    with pytest.raises(JoinRefused, match=why):
        j.feed(frame, 1.0)
    with pytest.raises(JoinRefused):
        j.signature(2.0)


def test_a_host_that_does_not_answer_in_time_ends_the_join():
    j = joiner()
    seated(j)
    assert j.expired(2.0 + ANSWER_TIMEOUT - 1) is None
    assert j.expired(2.0 + ANSWER_TIMEOUT) == "the host did not answer in time" and j.state == "refused"
    with pytest.raises(JoinRefused):
        j.signature(100.0)


def test_a_start_with_another_genesis_than_the_one_signed_is_refused():
    j = joiner()
    j.feed({"t": "sign", "body": body(seated(j))}, 3.0)
    j.signature(4.0)
    with pytest.raises(JoinRefused, match="'genesis'") as refused:
        j.feed({"t": "start"}, 5.0)
    assert refused.value.wrapped
