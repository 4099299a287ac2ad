"""Turn-based mail in the browser tab (issues 32 and 33): the tab runs protocol/mail as it is
on libsodium.js (clients/tab/py/tab_mail.py drives it), so an envelope or a lobby letter
sealed by a desktop node (PyNaCl) opens in the tab and one sealed in the tab opens on the
desktop, byte for byte the same bodies; a tampered or wrongly signed one is refused in the
tab with the reason and the signer it claims. The tab's key is made in the tab. And the tab
takes a seat at a desktop host's table by mail with the desktop's joiner core
(protocol/mail/lobby_join.py): its join opens at the host, a forged letter is dropped naming the
key it claims, it signs the advertised body and the host's signed genesis starts it."""

from __future__ import annotations

import os

import msgpack
import nacl.bindings as sodium
import pytest

from protocol import genesis as G, wire
from protocol.identity import SigningKey, fingerprint, verify
from protocol.link.handshake import inbox_of, key_pin
from protocol.mail import lobby_letters, mailbox as M
from protocol.mail.mailbox import Mailbox, MailError
from protocol.seat.hosting import BEACON_LENGTH
from tests.games.pick import quick_game, short_game
from tests.node.procs import ROOT
from tests.web.tab_fixtures import bundle, driver, server, tab  # noqa: F401 - fixtures
from tests.web.tab_page import CALL, call, tab_module

pytestmark = pytest.mark.xdist_group("tab")

BODY = {"t": "msg", "m": [b"\x00\xffsigned bytes", 7, "text"], "h": [1, 0, 2]}


def ask(driver, op: str, request: object = None) -> dict:
    """The worker's mail op on `request` (a msgpack map): its answer."""
    return call(driver, op, None if request is None else msgpack.packb(request))["result"]


def raw(driver, op: str, data: bytes) -> dict:
    return call(driver, op, data)["result"]


@pytest.fixture
def table(tab):
    """A 3-seat game whose seat 1 is the tab (a key made in the tab); seats 0 and 2 are
    desktop mailboxes: (driver, game id, seat keys, desktop mailboxes by seat, desktop keys)."""
    driver, _ = tab
    made = ask(driver, "mail_key")
    tab_key = bytes.fromhex(made["key"])
    assert made["fingerprint"] == fingerprint(tab_key)
    keys = {0: SigningKey.generate(), 2: SigningKey.generate()}
    seats = [keys[0].public, tab_key, keys[2].public]
    game = os.urandom(32)
    started = ask(driver, "mail_start", {"game": game, "seats": seats, "seat": 1})
    assert started["seat"] == 1 and len(bytes.fromhex(started["epoch"])) == M.EPOCH
    desk = {s: Mailbox(game, seats, s, keys[s]) for s in keys}
    return driver, game, seats, desk, keys


def test_envelopes_sealed_on_the_desktop_open_in_the_tab_and_back(table):
    driver, game, seats, desk, keys = table
    first = raw(driver, "mail_open", desk[0].seal(1, BODY))["letter"]
    assert first == {"sender": 0, "epoch": desk[0].epoch.hex(), "n": 1, "ack": 0, "body": wire.encode(BODY).hex()}
    second = raw(driver, "mail_open", desk[0].seal(1, ["heads", [3, 0, 0]]))["letter"]
    assert second["n"] == 2 and bytes.fromhex(second["body"]) == wire.encode(["heads", [3, 0, 0]])
    assert raw(driver, "mail_open", desk[2].seal(1, "from seat 2"))["letter"]["sender"] == 2
    again = desk[0].seal(1, "once")
    assert raw(driver, "mail_open", again)["letter"]["n"] == 3
    assert raw(driver, "mail_open", again) == {"letter": None}        # a duplicate is dropped

    for to in (0, 2):
        envelope = bytes.fromhex(ask(driver, "mail_seal", {"to": to, "body": BODY})["envelope"])
        letter = desk[to].open(envelope)
        assert (letter.sender, letter.n, letter.body) == (1, 1, BODY)
        assert letter.ack == (3 if to == 0 else 1)                   # the tab acks what it took from `to`
    # the tab's numbering goes on per recipient; its envelope is sealed to seat 0's key alone
    envelope = bytes.fromhex(ask(driver, "mail_seal", {"to": 0, "body": "two"})["envelope"])
    with pytest.raises(MailError, match="does not open with this seat's key"):
        desk[2].open(envelope)
    assert desk[0].open(envelope).n == 2
    plain = sodium.crypto_box_seal_open(envelope, M.curve_public(seats[0]), M.curve_secret(keys[0]))
    assert wire.decode(plain[:-M.SIGNATURE])[:6] == [M.TAG, game, 1, 0, desk[0].streams[1].popitem()[0], 2]


def test_lobby_letters_and_adverts_open_both_ways(tab):
    driver, _ = tab
    tab_key = bytes.fromhex(ask(driver, "mail_key")["key"])
    host, lobby = SigningKey.generate(), os.urandom(16)

    # a desktop host's advert opens in the tab with the invite's pin
    fields = {"lobby": lobby, "host_key": host.public, "game": "any", "seats": 3}
    hidden = lobby_letters.hide(lobby_letters.sign_advert(host, fields), key_pin(host.public))
    opened = ask(driver, "advert_open", {"hidden": hidden, "pin": key_pin(host.public), "lobby": lobby})
    assert opened == {"fields": wire.encode(fields).hex()}
    # the tab's join opens at the host, and the host's answer in the tab
    letter = bytes.fromhex(ask(driver, "letter_seal", {"lobby": lobby, "to": host.public, "body": BODY})["letter"])
    assert lobby_letters.open_letter(host, lobby, letter) == (tab_key, BODY)
    answer = lobby_letters.seal(host, lobby, tab_key, {"t": "seat", "seat": 1})
    assert ask(driver, "letter_open", {"lobby": lobby, "letter": answer}) == {
        "sender": host.public.hex(), "body": wire.encode({"t": "seat", "seat": 1}).hex()}
    # and a tab hosts: its advert opens on the desktop
    mine = {"lobby": lobby, "host_key": tab_key, "seats": 2}
    hidden = bytes.fromhex(ask(driver, "advert_hide", {"fields": mine, "pin": key_pin(tab_key)})["hidden"])
    assert lobby_letters.open_advert(hidden, key_pin(tab_key), lobby)[0] == mine
    with pytest.raises(MailError, match="does not open with the invite's host key"):
        lobby_letters.open_advert(hidden, key_pin(host.public), lobby)


def test_a_tampered_or_wrongly_signed_envelope_is_refused_in_the_tab_naming_the_claimed_signer(table):
    driver, game, seats, desk, keys = table
    tab_curve = M.curve_public(seats[1])

    damaged = bytearray(desk[0].seal(1, BODY))
    damaged[len(damaged) // 2] ^= 1
    refused = raw(driver, "mail_open", bytes(damaged))
    assert refused == {"refused": "an envelope that does not open with this seat's key (sealed to another key, "
                                  "or damaged)", "signer": None, "signer_key": None}

    def sealed(inner: bytes, signer: SigningKey) -> bytes:
        return sodium.crypto_box_seal(inner + signer.sign(inner), tab_curve)

    inner = wire.encode([M.TAG, game, 0, 1, os.urandom(8), 1, [], BODY])
    forged = sealed(inner, SigningKey.generate())                              # claims seat 0, a stranger signed
    refused = raw(driver, "mail_open", forged)
    claim = f"claims seat 0 ({fingerprint(seats[0])}) but is not signed by its key"
    assert claim in refused["refused"] and refused["signer"] == 0 and refused["signer_key"] == fingerprint(seats[0])

    signed = inner + keys[0].sign(inner)                                       # seat 0 signed; its body then changed
    changed = signed.replace(b"signed bytes", b"signed BYTES")
    refused = raw(driver, "mail_open", sodium.crypto_box_seal(changed, tab_curve))
    assert claim in refused["refused"] and refused["signer_key"] == fingerprint(seats[0])

    by_seat2 = sealed(wire.encode([M.TAG, game, 0, 1, os.urandom(8), 1, [], BODY]), keys[2])  # seat 2 poses as 0
    assert raw(driver, "mail_open", by_seat2)["signer"] == 0

    other_game = sealed(wire.encode([M.TAG, os.urandom(32), 0, 1, os.urandom(8), 1, [], BODY]), keys[0])
    assert raw(driver, "mail_open", other_game)["refused"].startswith("an envelope for another game")
    to_seat2 = sealed(wire.encode([M.TAG, game, 0, 2, os.urandom(8), 1, [], BODY]), keys[0])
    refused = raw(driver, "mail_open", to_seat2)
    assert refused["refused"] == "an envelope from seat 0 to seat 2, not to this seat" and refused["signer"] == 0
    # what the tab refused changed nothing: seat 0's next genuine envelope (its first, damaged
    # on the way, is a gap) opens
    letter = raw(driver, "mail_open", desk[0].seal(1, BODY))["letter"]
    assert (letter["sender"], letter["n"], letter["body"]) == (0, 2, wire.encode(BODY).hex())


def test_a_wrongly_signed_lobby_letter_is_refused_in_the_tab_naming_the_key_it_claims(tab):
    driver, _ = tab
    tab_key = bytes.fromhex(ask(driver, "mail_key")["key"])
    host, lobby = SigningKey.generate(), os.urandom(16)
    inner = wire.encode([lobby_letters.TAG, lobby, host.public, tab_key, {"t": "seat", "seat": 1}])
    forged = sodium.crypto_box_seal(inner + SigningKey.generate().sign(inner), M.curve_public(tab_key))
    refused = ask(driver, "letter_open", {"lobby": lobby, "letter": forged})
    assert refused == {"refused": f"a letter that claims key {fingerprint(host.public)} but is not signed by it",
                       "signer": None, "signer_key": fingerprint(host.public)}
    damaged = bytearray(lobby_letters.seal(host, lobby, tab_key, "hi"))
    damaged[-1] ^= 1
    assert ask(driver, "letter_open", {"lobby": lobby, "letter": bytes(damaged)})["refused"] == (
        "a letter that does not open with this node's key")
    stranger = SigningKey.generate()
    hidden = lobby_letters.hide(lobby_letters.sign_advert(stranger, {"lobby": lobby, "host_key": stranger.public}),
                                key_pin(host.public))                  # the invite's pin, another host's advert
    refused = ask(driver, "advert_open", {"hidden": hidden, "pin": key_pin(host.public), "lobby": lobby})
    assert "not " + key_pin(host.public).hex() in refused["refused"]


def test_a_tab_takes_a_seat_at_a_desktop_hosts_table_by_mail(tab):
    driver, _ = tab
    tab_key = bytes.fromhex(ask(driver, "mail_key")["key"])
    host, other = SigningKey.generate(), SigningKey.generate()
    lobby, nonce, game = os.urandom(16), os.urandom(16), quick_game(3)
    options = short_game(game)[1]
    fields = {"lobby": lobby, "game": game, "title": game, "players": 3, "options": options, "time_limit": 3600,
              "pace": G.TURN_BASED, "nonce": nonce, "beacon_length": BEACON_LENGTH, "host_key": host.public,
              "name": "Ann"}
    hidden = lobby_letters.hide(lobby_letters.sign_advert(host, fields), key_pin(host.public))
    asked = {"hidden": hidden, "pin": key_pin(other.public), "lobby": lobby, "name": "Zoë"}
    assert "does not open with the invite's host key" in ask(driver, "mail_join_start", asked)["refused"]

    joined = ask(driver, "mail_join_start", {**asked, "pin": key_pin(host.public)})
    [post] = joined["posts"]
    assert post["inbox"] == inbox_of(host.public) and joined["waiting"] == "the host to seat you"
    sender, join = lobby_letters.open_letter(host, lobby, bytes.fromhex(post["letter"]))
    assert sender == tab_key and join["t"] == "join" and join["name"] == "Zoë" and len(join["tips"]) == 2

    body = G.make_body(game, options, [host.public, tab_key, other.public], [b"\x01" * 32, join["tips"][0],
                       b"\x02" * 32], nonce, BEACON_LENGTH, 3600, G.TURN_BASED)
    sign = {"t": "sign", "body": body, "seat": 1}
    inner = wire.encode([lobby_letters.TAG, lobby, host.public, tab_key, sign])
    forged = sodium.crypto_box_seal(inner + other.sign(inner), M.curve_public(tab_key))
    dropped = raw(driver, "mail_join_feed", forged)
    assert dropped["what"] == "unreadable" and dropped["signer_key"] == fingerprint(host.public)
    assert "not signed by it" in dropped["text"] and not dropped["posts"] and not dropped["save"]

    offered = raw(driver, "mail_join_feed", lobby_letters.seal(host, lobby, tab_key, sign))
    game_id = G.game_id_of(body)
    assert offered["what"] == "to sign" and offered["offer"] == {"game_id": game_id.hex(), "seat": 1}
    assert not offered["posts"]
    signed = ask(driver, "mail_join_sign")
    assert signed["what"] == "signed" and signed["save"] and signed["waiting"] == "the host to start the game"
    [post] = signed["posts"]
    sender, signature = lobby_letters.open_letter(host, lobby, bytes.fromhex(post["letter"]))
    assert sender == tab_key and verify(tab_key, signature["sig"], b"caravan/genesis-sig/v1" + game_id)

    sigs = [G.sign(host, body), signature["sig"], G.sign(other, body)]
    genesis = G.Genesis(game, options, [host.public, tab_key, other.public], wire.decode(body)["beacon"],
                        BEACON_LENGTH, nonce, body, sigs, 3600, G.TURN_BASED).to_wire()
    start = lobby_letters.seal(host, lobby, tab_key, {"t": "start", "genesis": genesis, "names": ["Ann", "Zoë", ""]})
    started = raw(driver, "mail_join_feed", start)
    assert started["what"] == "started" and started["save"]
    assert started["started"] == {"game_id": game_id.hex(), "seat": 1, "names": ["Ann", "Zoë", ""],
                                  "genesis": genesis.hex()}


def test_bad_requests_are_one_clear_line(tab):
    driver, _ = tab
    answer = driver.execute_async_script(CALL, "mail_seal", "anVuaw==")           # b"junk": not msgpack
    assert not answer["ok"] and "mail_seal needs a msgpack map with to, body" in answer["error"], answer
    answer = driver.execute_async_script(CALL, "mail_start", None)
    assert not answer["ok"] and "missing: game, seats, seat" in answer["error"] and "Traceback" not in answer["error"]


def test_the_mail_checks_pass_in_the_tab_with_pynacls_answers(tab):
    """The shim's sealed boxes, secretboxes and key conversions (tab_checks' mail block) give
    in the tab what PyNaCl gives here."""
    driver, _ = tab
    names = {name for name, _ in tab_module("tab_checks").MAIL_CHECKS}
    in_tab = [c for c in call(driver, "selftest")["result"]["checks"] if c["name"] in names]
    desktop = [c for c in tab_module("tab_checks").run(ROOT / "specs" / "vectors" / "deck") if c["name"] in names]
    assert len(in_tab) == len(names) == 3 and all(c["ok"] for c in in_tab)
    assert in_tab == desktop


def test_the_mail_checks_fail_on_a_lax_library(monkeypatch):
    """They check something: a seal_open that opens a changed box, a secretbox_open that
    ignores its MAC, or a key conversion that takes a small-order key each fail one (CPython)."""
    import nacl.bindings

    def failed() -> set[str]:
        checks = tab_module("tab_checks")
        return {name for name, check in checks.MAIL_CHECKS if not _passes(check)}

    real_open = nacl.bindings.crypto_box_seal_open
    monkeypatch.setattr(nacl.bindings, "crypto_box_seal_open",
                        lambda c, pk, sk: real_open(tab_module("tab_checks").SEALED_BY_PYNACL, pk, sk)
                        if len(c) == len(tab_module("tab_checks").SEALED_BY_PYNACL) else real_open(c, pk, sk))
    assert failed() == {"sealed boxes"}
    monkeypatch.undo()
    real_secret = nacl.bindings.crypto_secretbox_open
    monkeypatch.setattr(nacl.bindings, "crypto_secretbox_open",
                        lambda c, n, k: real_secret(c, n, bytes(range(32))))
    assert failed() == {"secret boxes"}
    monkeypatch.undo()
    real_curve = nacl.bindings.crypto_sign_ed25519_pk_to_curve25519
    monkeypatch.setattr(nacl.bindings, "crypto_sign_ed25519_pk_to_curve25519",
                        lambda pk: bytes(32) if pk[1:] == bytes(31) else real_curve(pk))   # takes the identity
    assert failed() == {"curve keys"}


def _passes(check) -> bool:
    try:
        check()
    except AssertionError:
        return False
    return True
