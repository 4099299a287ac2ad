"""A turn-based table's lobby through postboxes (issue 33): the host and its friends need
never be online together, from the table's creation to the genesis.

The host leaves a signed advert of the table on the broker (retained, as long as a postbox
session lasts) and opens its lobby postbox; a friend's node reads the advert (its key must
have the invite's pin), opens its own lobby postbox (so its session exists before anyone
writes to it) and posts its join to the host's, with a beacon tip for every seat it may get.
When the host's node next runs it seats the joins in the order they came; once the table is
full it opens its game postbox and posts the genesis body to be signed to every joiner; each
joiner, when its node next runs, checks the body as a live joiner does, opens its game
postbox, keeps what it needs to take its seat back (GameStore.prepare) and posts its
signature; once every signature is in, the host stores the game and posts the signed genesis
to every joiner, and play goes on through the game's postboxes (node/net/mail_links.py).
Each node keeps its side in `lobbies/<lobby id>/lobby.json` (0600) across runs, and takes a
letter from the broker (acknowledges it) only once what it changed is saved. The letters:
protocol/mail/lobby_letters.py; what the host and a joiner decide: protocol/mail/lobby_host.py
and protocol/mail/lobby_join.py (here are their postboxes, files and lines); the design: specs/node.md "Turn-based tables: the lobby
through postboxes"."""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Any

import trio

from protocol import genesis as G, wire
from protocol.identity import SigningKey
from protocol.mail.lobby_host import SEATED, MailHost
from protocol.mail.lobby_join import (DROPPED, NOT_SIGNED, REFUSED, SIGNED, UNREADABLE, MailJoiner,
                                      MailRefused, Offer, Post, Step, by_mail, full_problem, read_advert)
from protocol.seat.hosting import BEACON_LENGTH
from protocol.seat.postbox import MAIL_QUIET

from ..net.handshake import inbox_of
from ..net.postbox import Postbox, open_postbox, session_expiry
from ..net.relay import lobby_topic
from ..net.relay_url import parse_relay_url, with_auth
from ..storage import seat_memory
from ..storage.store import GameStore, load_identity, write_private
from .lobby import Lobby, LobbyError, Setup
from .runner import Seat, store_genesis

log = logging.getLogger("caravan.mail_lobby")

LOBBIES = "lobbies"
STATE = "lobby.json"
LOGGED_DROPS = 8
"""Dropped letters named one by one in a run's log; after them, one line a thousand."""


def find(data_dir: Path, prefix: str) -> Path | None:
    """The folder of the one pending or started postbox lobby whose id starts with `prefix`."""
    found = sorted((data_dir / LOBBIES).glob(f"{prefix.lower()}*")) if prefix else []
    return found[0] if len(found) == 1 and (found[0] / STATE).is_file() else None


def signed_in(data_dir: Path, game_id: str) -> Path | None:
    """The folder of the lobby by mail where this seat signed game `game_id`'s genesis (a
    joiner that has not taken the start yet: the lobby brings it, no other seat's node)."""
    for state_file in sorted((data_dir / LOBBIES).glob(f"*/{STATE}")):
        body = _load(state_file.parent).get("body")
        if type(body) is bytes and G.game_id_of(body).hex() == game_id:
            return state_file.parent
    return None


def started(folder: Path) -> str | None:
    """The game id (hex) a lobby became, once its game is stored here; None before."""
    state = _load(folder)
    game_id = state.get("game_id")
    if state.get("started") and type(game_id) is bytes and GameStore(folder.parent.parent, game_id).exists():
        return game_id.hex()
    return None


def _load(folder: Path) -> dict[str, Any]:
    try:
        state = wire.decode((folder / STATE).read_bytes())
    except (OSError, ValueError) as exc:
        raise LobbyError(f"{folder / STATE} cannot be read ({exc})") from None
    if type(state) is not dict or type(state.get("advert")) is not bytes:
        raise LobbyError(f"{folder / STATE} is not a lobby's state")
    return state


def _save(folder: Path, state: dict[str, Any]) -> None:
    write_private(folder / STATE, wire.encode(state))


def _idle(seat: Seat, lobby_id: bytes, text: str, waiting_for: list[int]) -> None:
    seat.status(f"lobby {lobby_id.hex()[:8]}: {text}; continue with  caravan resume {lobby_id.hex()[:16]} "
                "--until-idle", "idle", lobby=lobby_id.hex(), waiting_for=waiting_for)


async def _parcels(box: Postbox, seat: Seat):
    """Each parcel from the broker; ends once none came for MAIL_QUIET s with --until-idle
    (never without)."""
    while True:
        with trio.move_on_after(MAIL_QUIET if seat.until_idle else float("inf")) as quiet:
            parcel = await box.parcels.receive()
        if quiet.cancelled_caught:
            return
        box.took(parcel)
        yield parcel


class _Drops:
    """The letters of one run that did not open: each logged, naming why, up to LOGGED_DROPS."""

    def __init__(self, lobby_id: bytes):
        self.lobby_id, self.count = lobby_id, 0

    def __call__(self, why: str) -> None:
        self.count += 1
        if self.count <= LOGGED_DROPS or self.count % 1000 == 0:     # a flood's thousands cost no more lines
            log.warning("lobby %s: a letter dropped (%d so far in this run): %s", self.lobby_id.hex()[:8], self.count,
                        why)


# ---------------------------------------------------------------------------- the host

async def host(the_lobby: Lobby, seat: Seat) -> Setup | None:
    """A new turn-based table through the broker: leave its advert, then `_host_run`."""
    key, nonce = the_lobby.key, os.urandom(16)
    fields = {"lobby": the_lobby.lobby_id, "game": the_lobby.game, "title": the_lobby.title,
              "players": the_lobby.players, "options": the_lobby.options, "time_limit": the_lobby.time_limit,
              "pace": the_lobby.pace, "nonce": nonce, "beacon_length": BEACON_LENGTH, "host_key": key.public,
              "name": the_lobby.name}
    the_host = MailHost.fresh(key, fields, os.urandom(32))
    the_host.state["relay"] = seat.relay.with_credentials()
    folder = seat.data_dir / LOBBIES / the_lobby.lobby_id.hex()
    folder.mkdir(parents=True, exist_ok=True)
    os.chmod(folder, 0o700)
    _save(folder, the_host.state)
    seat_memory.remember(folder, seat)
    invite = the_lobby.invite(seat.relay)
    seat.status(f"hosting {the_lobby.title} for {the_lobby.players} players "
                f"({G.pace_text(the_lobby.pace, the_lobby.time_limit)}): lobby {the_lobby.lobby_id.hex()[:8]} "
                f"through the broker {seat.relay}; friends join when they like, never all at once", "lobby",
                lobby=the_lobby.lobby_id.hex(), port=None, relay=str(seat.relay), host_key=the_lobby.pin.hex())
    seat.status(f"others join with:  caravan join {invite}", "invite", invite=invite)
    return await _host_run(folder, the_host, seat)


async def _host_run(folder: Path, the_host: MailHost, seat: Seat) -> Setup | None:
    """One run of the host's node in its lobby (protocol/mail/lobby_host.py decides): seat the
    joins that waited, post the genesis to sign once full, gather the signatures, and start the
    game once all are in (its Setup; None when it stopped idle first)."""
    lobby_id, limit = the_host.lobby_id, the_host.fields["time_limit"]
    async with open_postbox(seat.relay, lobby_id, the_host.key.public, limit) as box:
        if "body" not in the_host.state:
            box.retain(lobby_topic(lobby_id), the_host.announcement(), session_expiry(limit))
        while True:
            setup = await _host_progress(folder, the_host, seat, box)
            if setup is not None:
                await _flush(box, seat)
                the_host.state["started"] = True              # every joiner's start is on the broker
                _save(folder, the_host.state)
                return setup
            drops = _Drops(lobby_id)
            async for parcel in _parcels(box, seat):
                step = the_host.feed(parcel.envelope)
                for post in step.posts:
                    _post(box, post)
                _save(folder, the_host.state)
                box.ack(parcel)
                _tell(step, seat, drops)
                if the_host.changed():
                    break
            else:
                await _flush(box, seat)
                text, waiting = the_host.waiting()
                _idle(seat, lobby_id, text, waiting)
                return None


async def _host_progress(folder: Path, the_host: MailHost, seat: Seat, box: Postbox) -> Setup | None:
    """What the host does once the table is full (post the body to sign) and once every
    signature is in (store the game, post the signed genesis): the Setup then."""
    if not the_host.full():
        return None
    limit = the_host.fields["time_limit"]
    body = the_host.to_sign()
    if body is not None:
        async with open_postbox(seat.relay, G.game_id_of(body), the_host.key.public, limit):
            pass                                          # this seat's game postbox exists before anyone plays
        text = the_host.keep(body)
        _save(folder, the_host.state)
        box.retain(lobby_topic(the_host.lobby_id), the_host.announcement(), session_expiry(limit))
        seat.status(text, "lobby_seats")
    for post in the_host.asks():                          # again at each run until all signed: lost is resent
        _post(box, post)
    signed = the_host.genesis()
    if signed is None:
        return None
    setup = Setup(signed.genesis_raw, signed.game_id, 0, the_host.state["secret"], {}, signed.names, False,
                  spectators_chat=False)
    if not GameStore(seat.data_dir, signed.game_id).exists():
        store_genesis(seat, setup)
    posts = the_host.start(signed)
    _save(folder, the_host.state)
    for post in posts:                                    # posted at every run of the lobby: a lost one comes again
        _post(box, post)
    seat.status("every seat signed the genesis; play starts", "genesis", game_id=signed.game_id.hex())
    return setup


async def _flush(box: Postbox, seat: Seat) -> None:
    if not await box.flush(30):
        seat.status(f"the broker {seat.relay} did not confirm {box.unacknowledged()} letter(s) within 30 s; "
                    "they are posted again at the next run", "warning")


# ---------------------------------------------------------------------------- a joiner

async def join(announcement: dict[str, Any], pin: bytes, lobby_id: bytes, seat: Seat) -> Setup | None:
    """Join the table whose announcement (`by_mail`) the broker held: post the join and wait
    (or, with --until-idle, stop) for the host; its Setup once the game starts."""
    try:
        fields, signed = read_advert(by_mail(announcement), pin, lobby_id)
    except MailRefused as exc:
        raise LobbyError(str(exc)) from None
    folder = seat.data_dir / LOBBIES / lobby_id.hex()
    key = load_identity(seat.data_dir)
    if (folder / STATE).is_file():
        return await _join_run(folder, _load(folder), seat, key)
    full = full_problem(fields, announcement.get("seated"))
    if full:
        raise LobbyError(full)
    folder.mkdir(parents=True, exist_ok=True)
    os.chmod(folder, 0o700)
    joiner = MailJoiner.fresh(key, signed, os.urandom(32))
    joiner.state["relay"] = seat.relay.with_credentials()
    _save(folder, joiner.state)
    seat_memory.remember(folder, seat)
    async with open_postbox(seat.relay, lobby_id, key.public, fields["time_limit"]) as box:   # ours exists first
        _post(box, joiner.join(seat.name or ""))
        seat.status(f"joined lobby {lobby_id.hex()[:8]} for {fields['title']} "
                    f"({G.pace_text(fields['pace'], fields['time_limit'])}) through the broker: the host seats you "
                    "when its node next runs", "lobby", lobby=lobby_id.hex())
        return await _join_letters(folder, joiner, seat, box)


async def _join_run(folder: Path, state: dict[str, Any], seat: Seat, key: SigningKey) -> Setup | None:
    joiner = MailJoiner(key, state)
    async with open_postbox(seat.relay, joiner.lobby_id, key.public, joiner.fields["time_limit"]) as box:
        return await _join_letters(folder, joiner, seat, box)


def _post(box: Postbox, post: Post) -> None:
    box.send(inbox_of(post.to), post.letter)


async def _join_letters(folder: Path, joiner: MailJoiner, seat: Seat, box: Postbox) -> Setup | None:
    """Feed the host's letters to the joiner (protocol/mail/lobby_join.py): a refusal ends it
    (naming why), a body to sign is signed once this seat can take it back, the signed genesis
    starts the game."""
    drops = _Drops(joiner.lobby_id)
    async for parcel in _parcels(box, seat):
        step = joiner.feed(parcel.envelope)
        if step.offer is not None:                        # TO_SIGN: this seat is reachable before it signs
            await _prepare(joiner, step.offer, seat)
            step = joiner.sign()
        if step.save:
            _save(folder, joiner.state)
        for post in step.posts:
            _post(box, post)
        _tell(step, seat, drops)
        box.ack(parcel)
        if step.what == REFUSED:
            raise LobbyError(step.text)
        if step.started is not None:
            s = step.started
            return Setup(s.genesis_raw, s.game_id, s.seat, s.secret, {}, s.names, False, spectators_chat=False)
    await _flush(box, seat)
    _idle(seat, joiner.lobby_id, f"waiting for {joiner.waiting()}", [0])
    return None


async def _prepare(joiner: MailJoiner, offer: Offer, seat: Seat) -> None:
    """Before this seat's signature leaves: its game postbox exists (before anyone plays) and
    it keeps what it needs to take its seat back (GameStore.prepare)."""
    async with open_postbox(seat.relay, offer.game_id, joiner.key.public, joiner.fields["time_limit"]):
        pass
    store = GameStore.prepare(seat.data_dir, offer.body, offer.game_id,
                              {"secret": offer.secret, "committed": wire.encode([]), "seat": offer.seat},
                              {"peers": {}, "port": 0, "relay": seat.relay.with_credentials()})
    seat_memory.remember(store.dir, seat)


def _tell(step: Step, seat: Seat, drops: _Drops) -> None:
    """The line a letter's step is worth: a log line, or a status for the person."""
    if step.what == UNREADABLE:
        drops(step.text)
    elif step.what == DROPPED:
        log.warning("lobby: %s", step.text)
    elif step.what == NOT_SIGNED:
        seat.status(step.text, "warning")
    elif step.what in (SIGNED, SEATED):
        seat.status(step.text, "lobby_seats")


# ---------------------------------------------------------------------------- resuming

async def resume(folder: Path, seat: Seat) -> Setup | None:
    """`caravan resume LOBBY_ID`: one more run of this node in its lobby (host or joiner)."""
    state = _load(folder)
    if seat.relay is None:
        seat.relay = with_auth(parse_relay_url(state["relay"]), seat.relay_auth)
    key = load_identity(seat.data_dir)
    seat.role = state["role"]
    seat.status(f"resuming lobby {folder.name[:16]} through the broker {seat.relay}", "resume")
    if state["role"] == "host":
        return await _host_run(folder, MailHost(key, state), seat)
    return await _join_run(folder, state, seat, key)
