"""The letters of a turn-based lobby by mail (protocol/mail/lobby_letters.py): only an invite's
holder reads the advert, a joiner trusts only the one signed by the invite's host key, and a letter opens only for its recipient, in its
lobby, signed by the key it names."""

from __future__ import annotations

import os

import pytest

from node.net.handshake import key_pin
from protocol.mail.lobby_letters import hide, open_advert, open_letter, seal, sign_advert
from protocol.mail.mailbox import MailError
from protocol.identity import SigningKey

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
