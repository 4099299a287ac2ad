"""The host's side of a lobby without a link (protocol/seat/hosting.py), in CPython, against
in-memory joiners built on protocol/seat/joiner.py: an honest lobby ends with a genesis every
seat signed that each joiner accepts; a bad tip or signature is refused naming the key; a
full lobby, a key seated twice and a stranger to a Play again are refused with the line the
joiner is told; a joiner leaving frees its seat; the host's bad choices are refused at once."""

from __future__ import annotations

import pytest

from protocol import games, genesis as G
from protocol.identity import SigningKey, fingerprint
from protocol.seat.hosting import FULL, NOT_A_FRIEND, SEATED_TWICE, Guest, HostRefused, Hosting
from protocol.seat.joiner import JOINED, READY, Joiner, sealed_advert
from tests.games.pick import quick_game, short_game

HOST = SigningKey.from_seed(b"\x30" * 32)
ANN = SigningKey.from_seed(b"\x31" * 32)
BOB = SigningKey.from_seed(b"\x32" * 32)
EVE = SigningKey.from_seed(b"\x33" * 32)
LOBBY = b"\x42" * 16
GAME = quick_game(3)
OPTIONS = short_game(GAME)[1]


def hosting(**over) -> Hosting:
    return Hosting(HOST, GAME, 3, OPTIONS, LOBBY, name="Host\x07", **over)


def joiner(h: Hosting, key: SigningKey) -> Joiner:
    """A joiner that checked the host's sealed advert, as node/app/lobby.py `join` does."""
    info = sealed_advert(h.advert(), HOST.public, h.pin, LOBBY.hex(), GAME, "the lobby")
    return Joiner(key, bytes([key.public[0]]) * 32, info, HOST.public)


def seat(h: Hosting, j: Joiner, name: str) -> Guest:
    [join] = j.start(0.0, 0, name)
    return h.admit(j.key.public, join, relayed=True)


def honest_lobby() -> tuple[Hosting, dict[Guest, Joiner]]:
    h = hosting()
    ann, bob = joiner(h, ANN), joiner(h, BOB)
    guests = {seat(h, ann, "Ann"): ann}
    assert not h.full
    guests[seat(h, bob, "Bob\n")] = bob
    assert h.full
    for g, j in guests.items():                      # each waiting joiner takes the seats it is shown
        assert j.feed(h.seats_frame(g), 1.0) == []
    return h, guests


def tips(h: Hosting, guests: dict[Guest, Joiner]) -> None:
    for g, frame in h.begin(b"h" * 32, b"\x07" * 16):
        [tip] = guests[g].feed(frame, 2.0)
        h.take_tip(g, tip["tip"])


def test_an_honest_lobby_ends_with_a_genesis_every_seat_signed():
    h, guests = honest_lobby()
    assert h.seats_text() == "3/3 seated: seat 0 Host (host), seat 1 Ann, seat 2 Bob"
    tips(h, guests)
    for g, frame in h.sign_frames():
        j = guests[g]
        assert j.feed(frame, 3.0) == [] and j.state == READY, j.refusal
        h.take_signature(g, j.signature(4.0)["sig"])
    raw = h.genesis()
    genesis = G.parse(raw)
    assert genesis.seats == [HOST.public, ANN.public, BOB.public] and genesis.game == GAME
    assert len(genesis.signatures) == 3 and genesis.game_id == h.game_id
    start = h.start_frame(raw)
    assert start["names"] == ["Host", "Ann", "Bob"]
    for g, j in guests.items():
        j.feed(start, 5.0)
        assert j.state == JOINED and j.joined.game_id == h.game_id and j.joined.seat == h.seat_of(g)


def test_a_bad_signature_is_refused_naming_the_key():
    h, guests = honest_lobby()
    tips(h, guests)
    (ann, _), (bob, _) = h.sign_frames()
    h.take_signature(ann, G.sign(ANN, h.body))
    with pytest.raises(HostRefused, match=f"^{fingerprint(BOB.public)} did not sign the genesis$"):
        h.take_signature(bob, G.sign(EVE, h.body))     # someone else's signature at Bob's seat
    with pytest.raises(HostRefused, match=fingerprint(BOB.public)):
        h.take_signature(bob, b"junk")
    with pytest.raises(HostRefused, match="not every seat signed"):
        h.genesis()


def test_a_bad_tip_is_refused_naming_the_key():
    h, guests = honest_lobby()
    [(ann, _), _] = h.begin(b"h" * 32, b"\x07" * 16)
    with pytest.raises(HostRefused, match=f"^{fingerprint(ANN.public)} sent no valid beacon tip$"):
        h.take_tip(ann, b"short")
    with pytest.raises(HostRefused, match="not every seat sent its beacon tip"):
        h.sign_frames()


def test_a_full_lobby_refuses_and_a_key_is_seated_once():
    h, _ = honest_lobby()
    with pytest.raises(HostRefused) as refused:
        h.admit(EVE.public, {"t": "join", "port": 0, "name": "Eve"}, relayed=True)
    assert (str(refused.value), refused.value.why) == ("lobby full", FULL)
    h = hosting()
    seat(h, joiner(h, ANN), "Ann")
    for key in (ANN, HOST):
        with pytest.raises(HostRefused) as refused:
            h.admit(key.public, {"t": "join", "port": 0}, relayed=True)
        assert refused.value.why == SEATED_TWICE
    with pytest.raises(HostRefused, match="without a valid port") as refused:
        h.admit(EVE.public, {"t": "join", "port": 0}, relayed=False)   # over TCP a joiner names its port
    assert refused.value.why is None
    assert [g.key for g in h.guests] == [ANN.public]


def test_a_joiner_leaving_frees_its_seat():
    h = hosting()
    ann = seat(h, joiner(h, ANN), "Ann")
    seat(h, joiner(h, BOB), "Bob")
    assert h.full
    h.leave(ann)
    assert not h.full and h.seats_text() == "2/3 seated: seat 0 Host (host), seat 1 Bob; empty: seat 2"
    eve = seat(h, joiner(h, EVE), "Eve")
    assert h.full and h.seats_for(eve)[2] == {"seat": 2, "name": "Eve", "taken": True, "you": True}


def test_only_the_last_games_players_join_or_decline_a_play_again():
    h = hosting(friends=frozenset({ANN.public}))
    with pytest.raises(HostRefused) as refused:
        h.admit(EVE.public, {"t": "join", "port": 0}, relayed=True)
    assert refused.value.why == NOT_A_FRIEND and fingerprint(EVE.public) in str(refused.value)
    h.decline(ANN.public)
    with pytest.raises(HostRefused):
        h.decline(ANN.public)                         # once


def test_the_hosts_own_bad_choices_are_refused_at_once():
    with pytest.raises(games.UnknownGame):
        Hosting(HOST, "no-such-game", 2, {}, LOBBY)
    with pytest.raises(HostRefused, match="players"):
        Hosting(HOST, GAME, 99, OPTIONS, LOBBY)
    with pytest.raises(HostRefused, match="pace"):
        Hosting(HOST, GAME, 3, OPTIONS, LOBBY, pace="glacial")
    with pytest.raises(Exception, match=".") as bad:
        Hosting(HOST, GAME, 3, {"no such option": 1}, LOBBY)
    assert "\n" not in str(bad.value)
