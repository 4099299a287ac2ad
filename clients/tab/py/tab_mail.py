"""Turn-based mail in the tab (issues 32 and 33): protocol/mail run as it is on libsodium.js,
driven by the worker's ops, so a tab seals and opens the very envelopes and lobby letters a
desktop node does. A first driver, for the tab's tests; the tab node's own postbox (mqtt.js
to the broker's websockets listener) is to come.

Requests are msgpack maps (bytes stay bytes); answers are JSON-able: bytes as hex, a body as
the hex of its canonical encoding (protocol.wire), so a test compares it byte for byte. An
envelope or letter that must not reach the game is no error but an answer: {"refused": why,
"signer": the seat it claims or None, "signer_key": that key's fingerprint or None}."""

from __future__ import annotations

from typing import Any, Callable

from protocol import wire
from protocol.identity import SigningKey, fingerprint
from protocol.mail.lobby_letters import hide, open_advert, open_letter, seal, sign_advert
from protocol.mail.mailbox import Mailbox, MailError

from tab_requests import RequestError, request


class _Driver:
    """The tab's key (made here, never leaving the tab) and its mailbox in one game."""

    def __init__(self) -> None:
        self.key: SigningKey | None = None
        self.box: Mailbox | None = None


_tab = _Driver()


def _key() -> SigningKey:
    if _tab.key is None:
        raise RequestError("no key in this tab: call mail_key first")
    return _tab.key


def _box() -> Mailbox:
    if _tab.box is None:
        raise RequestError("no mailbox in this tab: call mail_start first")
    return _tab.box


def _refused(exc: MailError, claimed: bytes | None) -> dict[str, Any]:
    return {"refused": str(exc), "signer": exc.signer,
            "signer_key": fingerprint(claimed) if claimed is not None else None}


def key(_: bytes | None) -> dict[str, Any]:
    """A fresh key made in the tab (libsodium's randomness): its public key."""
    _tab.key, _tab.box = SigningKey.generate(), None
    return {"key": _tab.key.public.hex(), "fingerprint": fingerprint(_tab.key.public)}


def start(data: bytes | None) -> dict[str, Any]:
    """The tab's mailbox in a game: {"game": id, "seats": [keys], "seat": the tab's}."""
    asked = request(data, "mail_start", "game", "seats", "seat")
    try:
        _tab.box = Mailbox(asked["game"], asked["seats"], asked["seat"], _key())
    except (ValueError, TypeError, IndexError) as exc:
        raise RequestError(f"mail_start: {exc}") from None
    return {"epoch": _tab.box.epoch.hex(), "seat": _tab.box.seat}


def seal_envelope(data: bytes | None) -> dict[str, Any]:
    """{"to": seat, "body": any}: the envelope carrying `body` to that seat."""
    asked = request(data, "mail_seal", "to", "body")
    try:
        return {"envelope": _box().seal(asked["to"], asked["body"]).hex()}
    except ValueError as exc:
        raise RequestError(f"mail_seal: {exc}") from None


def open_envelope(data: bytes | None) -> dict[str, Any]:
    """An envelope's bytes: its letter, None for a duplicate, or why it is refused."""
    box = _box()
    try:
        letter = box.open(data or b"")
    except MailError as exc:
        return _refused(exc, box.seats[exc.signer] if exc.signer is not None else None)
    if letter is None:
        return {"letter": None}
    return {"letter": {"sender": letter.sender, "epoch": letter.epoch.hex(), "n": letter.n, "ack": letter.ack,
                       "body": wire.encode(letter.body).hex()}}


def seal_letter(data: bytes | None) -> dict[str, Any]:
    """{"lobby": id, "to": key, "body": any}: a lobby letter from the tab's key."""
    asked = request(data, "letter_seal", "lobby", "to", "body")
    return {"letter": seal(_key(), asked["lobby"], asked["to"], asked["body"]).hex()}


def open_lobby_letter(data: bytes | None) -> dict[str, Any]:
    """{"lobby": id, "letter": bytes}: its sender's key and body, or why it is refused."""
    asked = request(data, "letter_open", "lobby", "letter")
    try:
        sender, body = open_letter(_key(), asked["lobby"], asked["letter"])
    except MailError as exc:
        return _refused(exc, exc.claimed)
    return {"sender": sender.hex(), "body": wire.encode(body).hex()}


def hide_advert(data: bytes | None) -> dict[str, Any]:
    """{"fields": the advert's, "pin": the invite's}: the advert signed by the tab's key and hidden."""
    asked = request(data, "advert_hide", "fields", "pin")
    return {"hidden": hide(sign_advert(_key(), asked["fields"]), asked["pin"]).hex()}


def open_hidden_advert(data: bytes | None) -> dict[str, Any]:
    """{"hidden": bytes, "pin": the invite's, "lobby": id}: the advert's fields, or why not."""
    asked = request(data, "advert_open", "hidden", "pin", "lobby")
    try:
        fields, _ = open_advert(asked["hidden"], asked["pin"], asked["lobby"])
    except MailError as exc:
        return _refused(exc, exc.claimed)
    return {"fields": wire.encode(fields).hex()}


OPS: dict[str, Callable[[bytes | None], dict[str, Any]]] = {
    "mail_key": key, "mail_start": start, "mail_seal": seal_envelope, "mail_open": open_envelope,
    "letter_seal": seal_letter, "letter_open": open_lobby_letter,
    "advert_hide": hide_advert, "advert_open": open_hidden_advert}


def handle(op: str, data: bytes | None) -> dict[str, Any]:
    """Run the mail op `op`; a request it cannot use is {"error": why}."""
    try:
        return OPS[op](data)
    except RequestError as exc:
        return {"error": str(exc)}
