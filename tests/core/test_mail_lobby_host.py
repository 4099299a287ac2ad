"""The host's side of a lobby by mail without any I/O (protocol/mail/lobby_host.py), against
joiners of protocol/mail/lobby_join.py, letters passed by hand: two friends join, the host
seats them in the order they came, asks each to sign and starts the game, across restarts of
every side from its saved state, with every letter delivered twice; a join once full is
refused (at most MAX_REFUSALS a run), a forged signature dropped naming the seat."""

from __future__ import annotations

import json

from protocol import genesis as G, wire
from protocol.identity import SigningKey, fingerprint
from protocol.link.handshake import key_pin
from protocol.mail.lobby_host import MAX_REFUSALS, SEATED, MailHost
from protocol.mail.lobby_join import (DROPPED, NOTHING, REFUSED, SIGNED, STARTED, TO_SIGN, UNREADABLE, MailJoiner,
                                      read_advert)
from protocol.mail.lobby_letters import seal
from protocol.seat.hosting import BEACON_LENGTH
from tests.games.pick import quick_game, short_game

HOST = SigningKey.from_seed(b"\x40" * 32)
BO, ZOE, LATE = (SigningKey.from_seed(bytes([b]) * 32) for b in (0x41, 0x42, 0x43))
LOBBY, NONCE = b"\x44" * 16, b"\x08" * 16
GAME = quick_game(3)
FIELDS = {"lobby": LOBBY, "game": GAME, "title": GAME, "players": 3, "options": short_game(GAME)[1],
          "time_limit": 3600, "pace": G.TURN_BASED, "nonce": NONCE, "beacon_length": BEACON_LENGTH,
          "host_key": HOST.public, "name": "Ann"}


def again(host: MailHost) -> MailHost:
    """The host's next run, from its state as stored."""
    return MailHost(HOST, wire.decode(wire.encode(host.state)))


def joiner(key: SigningKey, host: MailHost) -> MailJoiner:
    """A friend that read the host's announcement with the invite's pin."""
    hidden = bytes.fromhex(json.loads(host.announcement())["mail"])
    _, signed = read_advert(hidden, key_pin(HOST.public), LOBBY)
    return MailJoiner.fresh(key, signed, bytes([key.public[0]]) * 32)


def test_two_friends_join_sign_and_start_with_every_letter_twice_across_restarts():
    host = MailHost.fresh(HOST, FIELDS, b"h" * 32)
    assert host.waiting() == ("1/3 seated; waiting for 2 more to join", [1, 2])
    assert set(host.state) == {"role", "advert", "secret", "joiners"} and host.state["role"] == "host"
    assert json.loads(host.announcement())["seated"] == 1
    friends = {BO.public: joiner(BO, host), ZOE.public: joiner(ZOE, host)}
    for key, name in ((BO, "Bo"), (ZOE, "Zoë")):
        letter = friends[key.public].join(name).letter
        step = host.feed(letter)
        assert step.what == SEATED and f"{name} (key {fingerprint(key.public)}) joined through the broker" in step.text
        assert host.feed(letter).what == NOTHING                      # the broker replays it: seated already
        host = again(host)
    assert host.full()
    assert host.changed() and json.loads(host.announcement())["seated"] == 3
    body = host.to_sign()
    assert body is not None and host.keep(body) == "the table is full; the genesis waits on the broker for seat 1, " \
                                                   "2 to sign it"
    assert host.to_sign() is None and not host.changed()
    host = again(host)
    asks = host.asks()
    assert [a.to for a in asks] == [BO.public, ZOE.public]
    assert host.waiting() == ("the table is full; waiting for seat 1, 2 to sign the genesis", [1, 2])

    for ask in asks:
        friend = friends[ask.to]
        assert friend.feed(ask.letter).what == TO_SIGN
        [signature] = friend.sign().posts
        step = host.feed(signature.letter)
        assert step.what == SIGNED and step.text.endswith("signed the genesis")
        assert host.feed(signature.letter).what == SIGNED              # twice: the same signature again
        host = again(host)
    assert host.changed() and host.asks() == []
    signed = host.genesis()
    assert signed is not None and signed.names == ["Ann", "Bo", "Zoë"]
    assert G.parse(signed.genesis_raw).seats == [HOST.public, BO.public, ZOE.public]
    for start in host.start(signed):
        friend = friends[start.to]
        for _ in range(2):
            step = friend.feed(start.letter)
            assert step.what == STARTED and step.started.game_id == signed.game_id
    assert host.state["game_id"] == signed.game_id
    assert set(host.state) == {"role", "advert", "secret", "joiners", "body", "sigs", "game_id"}


def full_table() -> MailHost:
    host = MailHost.fresh(HOST, FIELDS, b"h" * 32)
    for key in (BO, ZOE):
        host.feed(joiner(key, host).join("").letter)
    host.keep(host.to_sign())
    return again(host)


def test_a_join_once_full_is_refused_at_most_max_refusals_times_a_run():
    host = full_table()
    late = joiner(LATE, host)
    letter = late.join("Late").letter
    for _ in range(MAX_REFUSALS):
        step = host.feed(letter)
        assert step.what == REFUSED and step.text == "the lobby is full"
        [post] = step.posts
        told = late.feed(post.letter)
        assert told.what == REFUSED and told.text == "the host refused: the lobby is full"
    step = host.feed(letter)
    assert step.what == REFUSED and step.posts == []
    assert again(host).feed(letter).posts                            # a new run may refuse again
    assert len(host.state["joiners"]) == 2


def test_a_join_without_its_tips_is_refused_and_seats_nobody():
    host = MailHost.fresh(HOST, FIELDS, b"h" * 32)
    step = host.feed(seal(BO, LOBBY, HOST.public, {"t": "join", "name": "Bo", "tips": [b"\x01" * 32]}))
    assert step.what == REFUSED and step.text == "a join must carry one beacon tip for each of seats 1-2"
    assert host.state["joiners"] == []


def test_forged_and_unexpected_letters_are_dropped_naming_the_key():
    host = full_table()
    sig = G.sign(LATE, host.state["body"])                           # not Bo's signature
    step = host.feed(seal(BO, LOBBY, HOST.public, {"t": "signature", "sig": sig}))
    assert step.what == DROPPED and step.text == "a signature from seat 1 that does not verify, dropped"
    assert host.state["sigs"][1] is None
    step = host.feed(seal(LATE, LOBBY, HOST.public, {"t": "signature", "sig": sig}))
    assert step.what == DROPPED and step.signer == LATE.public
    assert step.text == f"a 'signature' letter from {fingerprint(LATE.public)} dropped (not expected now)"
    step = host.feed(seal(BO, LOBBY, ZOE.public, {"t": "join"}))
    assert step.what == UNREADABLE and step.text == "a letter that does not open with this node's key"
    assert host.feed(seal(BO, LOBBY, HOST.public, "hi")).text == \
        f"a letter from {fingerprint(BO.public)} that is no lobby frame"
