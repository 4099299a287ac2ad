"""The letters of a turn-based lobby by mail (protocol/mail/lobby_letters.py): only an invite's
holder reads the advert, a joiner trusts only the one signed by the invite's host key, and a letter opens only for its recipient, in its
lobby, signed by the key it names."""

from __future__ import annotations

import os

import nacl.bindings as sodium
import pytest

from protocol import wire
from protocol.identity import SigningKey, fingerprint
from protocol.link.handshake import key_pin
from protocol.mail.lobby_letters import TAG, hide, open_advert, open_letter, seal, sign_advert
from protocol.mail.mailbox import MailError, curve_public

LOBBY = os.urandom(16)


def test_an_advert_opens_only_with_its_host_pin_and_lobby():
    host, other = SigningKey.generate(), SigningKey.generate()
    pin = key_pin(host.public)
    fields = {"lobby": LOBBY, "host_key": host.public, "players": 3}
    signed = sign_advert(host, fields)
    assert open_advert(hide(signed, pin), pin, LOBBY) == (fields, signed)
    with pytest.raises(MailError, match="does not open with the invite's host key"):
        open_advert(hide(signed, pin), key_pin(other.public), LOBBY)     # without the invite: unreadable
    with pytest.raises(MailError, match="not .* the one in the invite"):
        open_advert(hide(sign_advert(other, {**fields, "host_key": other.public}), pin), pin, LOBBY)
    with pytest.raises(MailError, match="another lobby"):
        open_advert(hide(signed, pin), pin, os.urandom(16))
    forged = sign_advert(other, fields)                  # the host's key, someone else's signature
    with pytest.raises(MailError, match="signature"):
        open_advert(hide(forged, pin), pin, LOBBY)
    with pytest.raises(MailError, match="does not decode"):
        open_advert(hide(b"\xc1junk", pin), pin, LOBBY)


def test_a_letter_opens_only_for_its_recipient_in_its_lobby():
    host, friend, stranger = SigningKey.generate(), SigningKey.generate(), SigningKey.generate()
    letter = seal(friend, LOBBY, host.public, {"t": "join", "name": "Bea"})
    assert open_letter(host, LOBBY, letter) == (friend.public, {"t": "join", "name": "Bea"})
    with pytest.raises(MailError, match="does not open"):
        open_letter(stranger, LOBBY, letter)
    with pytest.raises(MailError, match="another lobby"):
        open_letter(host, os.urandom(16), letter)
    damaged = letter[:-1] + bytes([letter[-1] ^ 1])
    with pytest.raises(MailError):
        open_letter(host, LOBBY, damaged)


def test_a_letter_signed_by_another_key_than_it_names_is_refused_naming_that_key():
    host, friend, forger = SigningKey.generate(), SigningKey.generate(), SigningKey.generate()
    inner = wire.encode([TAG, LOBBY, friend.public, host.public, {"t": "join", "name": "Bea"}])
    forged = sodium.crypto_box_seal(inner + forger.sign(inner), curve_public(host.public))
    with pytest.raises(MailError, match=f"claims key {fingerprint(friend.public)} but is not signed by it") as refused:
        open_letter(host, LOBBY, forged)
    assert refused.value.claimed == friend.public


def test_an_advert_hidden_with_a_given_nonce_is_the_same_bytes():
    """sans-I/O: the advert's nonce may be the caller's (a tab's driver, a test), and then the
    hidden advert is a function of its inputs."""
    host = SigningKey.from_seed(bytes(32))
    signed, pin = sign_advert(host, {"lobby": LOBBY, "host_key": host.public}), key_pin(host.public)
    nonce = bytes(range(24))
    assert hide(signed, pin, nonce) == hide(signed, pin, nonce) != hide(signed, pin)
    assert hide(signed, pin, nonce)[:24] == nonce and open_advert(hide(signed, pin, nonce), pin, LOBBY)[1] == signed
