"""Turn-based mail in the tab (issues 32 and 33): protocol/mail run as it is on libsodium.js,
driven by the worker's ops, so a tab seals and opens the very envelopes and lobby letters a
desktop node does. A driver without a postbox, for the tab's tests; the tab's own lobby by
mail, through its postbox and store, is tab_mail_lobby (its ops "mail_join", "mail_lobbies",
"mail_lobby_run").

A friend's side of a lobby by mail is protocol/mail/lobby_join.py's `MailJoiner` (the desktop's
too): "mail_join_start" starts one with the tab's key, "mail_join_feed" gives it a letter's sealed
bytes, "mail_join_sign" signs the body it found `to sign`; each answers the letters to post (to
which inbox), whether its state changed (`save`: the state holds the beacon secret, so it stays
in the worker, never in an answer) and what happened.

Requests are msgpack maps (bytes stay bytes); answers are JSON-able: bytes as hex, a body as
the hex of its canonical encoding (protocol.wire), so a test compares it byte for byte. An
envelope or letter that must not reach the game is no error but an answer: {"refused": why,
"signer": the seat it claims or None, "signer_key": that key's fingerprint or None}."""

from __future__ import annotations

import os
from typing import Any, Callable

from protocol import wire
from protocol.identity import SigningKey, fingerprint
from protocol.link.handshake import inbox_of
from protocol.mail.lobby_join import MailJoiner, MailRefused, Step, read_advert
from protocol.mail.lobby_letters import hide, open_advert, open_letter, seal, sign_advert
from protocol.mail.mailbox import Mailbox, MailError

from tab_requests import RequestError, request


class _Driver:
    """The tab's key (made here, never leaving the tab) and its mailbox in one game."""

    def __init__(self) -> None:
        self.key: SigningKey | None = None
        self.box: Mailbox | None = None
        self.joiner: MailJoiner | None = None


_tab = _Driver()


def _key() -> SigningKey:
    if _tab.key is None:
        raise RequestError("no key in this tab: call mail_key first")
    return _tab.key


def _joiner() -> MailJoiner:
    if _tab.joiner is None:
        raise RequestError("no lobby by mail in this tab: call mail_join_start first")
    return _tab.joiner


def _box() -> Mailbox:
    if _tab.box is None:
        raise RequestError("no mailbox in this tab: call mail_start first")
    return _tab.box


def _refused(exc: MailError, claimed: bytes | None) -> dict[str, Any]:
    return {"refused": str(exc), "signer": exc.signer,
            "signer_key": fingerprint(claimed) if claimed is not None else None}


def key(_: bytes | None) -> dict[str, Any]:
    """A fresh key made in the tab (libsodium's randomness): its public key."""
    _tab.key, _tab.box, _tab.joiner = SigningKey.generate(), None, None
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


def join_by_mail(data: bytes | None) -> dict[str, Any]:
    """{"hidden", "pin", "lobby", "name"}: a join of the lobby by mail whose announcement held
    `hidden` (its beacon secret made here): the join letter to post, or why not."""
    asked = request(data, "mail_join_start", "hidden", "pin", "lobby", "name")
    try:
        _, signed = read_advert(asked["hidden"], asked["pin"], asked["lobby"])
    except MailRefused as exc:
        return {"refused": str(exc)}
    joiner = _tab.joiner = MailJoiner.fresh(_key(), signed, os.urandom(32))
    return {"posts": _posts([joiner.join(str(asked["name"]))]), "waiting": joiner.waiting()}


def _posts(posts: list) -> list[dict[str, str]]:
    return [{"to": p.to.hex(), "inbox": inbox_of(p.to), "letter": p.letter.hex()} for p in posts]


def _step(step: Step) -> dict[str, Any]:
    """A joiner's step as JSON (without the beacon secret)."""
    out: dict[str, Any] = {"what": step.what, "text": step.text, "posts": _posts(step.posts), "save": step.save,
                           "signer_key": fingerprint(step.signer) if step.signer is not None else None,
                           "waiting": _joiner().waiting()}
    if step.offer is not None:
        out["offer"] = {"game_id": step.offer.game_id.hex(), "seat": step.offer.seat}
    if step.started is not None:
        out["started"] = {"game_id": step.started.game_id.hex(), "seat": step.started.seat,
                          "names": step.started.names, "genesis": step.started.genesis_raw.hex()}
    return out


def join_feed(data: bytes | None) -> dict[str, Any]:
    """A letter's sealed bytes from the tab's lobby postbox: what the joiner did with it."""
    return _step(_joiner().feed(data or b""))


def join_sign(_: bytes | None) -> dict[str, Any]:
    """The signature of the body the last letter offered (once the seat is reachable)."""
    try:
        return _step(_joiner().sign())
    except ValueError as exc:
        raise RequestError(f"mail_join_sign: {exc}") from None


OPS: dict[str, Callable[[bytes | None], dict[str, Any]]] = {
    "mail_key": key, "mail_start": start, "mail_seal": seal_envelope, "mail_open": open_envelope,
    "letter_seal": seal_letter, "letter_open": open_lobby_letter,
    "advert_hide": hide_advert, "advert_open": open_hidden_advert,
    "mail_join_start": join_by_mail, "mail_join_feed": join_feed, "mail_join_sign": join_sign}


def handle(op: str, data: bytes | None) -> dict[str, Any]:
    """Run the mail op `op`; a request it cannot use is {"error": why}."""
    try:
        return OPS[op](data)
    except RequestError as exc:
        return {"error": str(exc)}
