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
protocol/mail/lobby_letters.py; what a joiner decides: protocol/mail/lobby_join.py (here are
its postboxes, files and lines); the design: specs/node.md "Turn-based tables: the lobby
through postboxes"."""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path
from typing import Any

import trio

from protocol import genesis as G, wire
from protocol.identity import SigningKey, fingerprint, verify
from protocol.mail.lobby_join import (DROPPED, NOT_SIGNED, REFUSED, SIGNED, UNREADABLE, MailJoiner,
                                      MailRefused, Offer, Post, Step, full_problem, read_advert)
from protocol.mail.lobby_letters import hide, open_frame, seal, sign_advert
from protocol.mail.mailbox import MailError
from protocol.player import beacon_chain
from protocol.seat.hosting import BEACON_LENGTH, named
from protocol.seat.joiner import clean_name

from ..net.handshake import inbox_of
from ..net.handshake import key_pin
from ..net.postbox import Postbox, open_postbox, session_expiry
from ..net.relay import lobby_topic
from ..net.relay_url import parse_relay_url, with_auth
from ..storage import seat_memory
from ..storage.store import GameStore, load_identity, write_private
from .game import MAIL_QUIET
from .lobby import Lobby, LobbyError, Setup
from .runner import Seat, store_genesis

log = logging.getLogger("caravan.mail_lobby")

LOBBIES = "lobbies"
STATE = "lobby.json"
MAX_REFUSALS = 32
"""Refusals one run of the host's node posts: a flood of joins costs it at most this many letters."""
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


def _advert(state: dict[str, Any]) -> dict[str, Any]:
    return wire.decode(state["advert"])[1]


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


async def _letters(box: Postbox, key: SigningKey, lobby_id: bytes, seat: Seat):
    """(sender, body, parcel) of each lobby frame from the broker (`_parcels`). A letter that
    fails is dropped, naming why."""
    drops = _Drops(lobby_id)
    async for parcel in _parcels(box, seat):
        try:
            sender, body = open_frame(key, lobby_id, parcel.envelope)
        except MailError as exc:
            drops(str(exc))
            box.ack(parcel)
            continue
        yield sender, body, parcel


# ---------------------------------------------------------------------------- the host

async def host(the_lobby: Lobby, seat: Seat) -> Setup | None:
    """A new turn-based table through the broker: leave its advert, then `_host_run`."""
    key, nonce = the_lobby.key, os.urandom(16)
    fields = {"lobby": the_lobby.lobby_id, "game": the_lobby.game, "title": the_lobby.title,
              "players": the_lobby.players, "options": the_lobby.options, "time_limit": the_lobby.time_limit,
              "pace": the_lobby.pace, "nonce": nonce, "beacon_length": BEACON_LENGTH, "host_key": key.public,
              "name": the_lobby.name}
    state = {"role": "host", "advert": sign_advert(key, fields), "secret": os.urandom(32), "joiners": [],
             "relay": seat.relay.with_credentials()}
    folder = seat.data_dir / LOBBIES / the_lobby.lobby_id.hex()
    folder.mkdir(parents=True, exist_ok=True)
    os.chmod(folder, 0o700)
    _save(folder, state)
    seat_memory.remember(folder, seat)
    invite = the_lobby.invite(seat.relay)
    seat.status(f"hosting {the_lobby.title} for {the_lobby.players} players "
                f"({G.pace_text(the_lobby.pace, the_lobby.time_limit)}): lobby {the_lobby.lobby_id.hex()[:8]} "
                f"through the broker {seat.relay}; friends join when they like, never all at once", "lobby",
                lobby=the_lobby.lobby_id.hex(), port=None, relay=str(seat.relay), host_key=the_lobby.pin.hex())
    seat.status(f"others join with:  caravan join {invite}", "invite", invite=invite)
    return await _host_run(folder, state, seat, key)


def _announcement(fields: dict[str, Any], state: dict[str, Any]) -> bytes:
    """The retained announcement: what `caravan join` reads first (its `mail` field, the signed
    advert sealed with the invite's pin, tells it to join by mail)."""
    return json.dumps({"lobby": fields["lobby"].hex(), "game": fields["game"], "title": fields["title"],
                       "players": fields["players"], "seated": 1 + len(state["joiners"]), "port": None,
                       "spectators": False, "pace": fields["pace"],
                       "mail": hide(state["advert"], key_pin(fields["host_key"])).hex()}).encode()


async def _host_run(folder: Path, state: dict[str, Any], seat: Seat, key: SigningKey) -> Setup | None:
    """One run of the host's node in its lobby: seat the joins that waited, post the genesis
    to sign once full, gather the signatures, and start the game once all are in (its Setup;
    None when it stopped idle first)."""
    fields = _advert(state)
    lobby_id, players, limit = fields["lobby"], fields["players"], fields["time_limit"]
    refusals = 0
    async with open_postbox(seat.relay, lobby_id, key.public, limit) as box:
        if "body" not in state:
            box.retain(lobby_topic(lobby_id), _announcement(fields, state), session_expiry(limit))
        while True:
            setup = await _host_progress(folder, state, seat, key, box)
            if setup is not None:
                await _flush(box, seat)
                state["started"] = True                   # every joiner's start is on the broker
                _save(folder, state)
                return setup
            async for sender, body, parcel in _letters(box, key, lobby_id, seat):
                why = _host_take(state, fields, sender, body, seat)
                if why is not None and refusals < MAX_REFUSALS:
                    refusals += 1
                    box.send(inbox_of(sender), seal(key, lobby_id, sender, {"t": "refused", "why": why}))
                _save(folder, state)
                box.ack(parcel)
                if _changed(state):
                    break
            else:
                await _flush(box, seat)
                waiting = [s for s in range(1, players) if s > len(state["joiners"]) or not _signed(state, s)]
                _idle(seat, lobby_id, _host_waits(state, players), waiting)
                return None


def _changed(state: dict[str, Any]) -> bool:
    """The table just filled up, or the last signature came: the host has something to do."""
    full = len(state["joiners"]) == _advert(state)["players"] - 1
    return (full and "body" not in state) or ("body" in state and all(state["sigs"][1:]))


def _signed(state: dict[str, Any], seat_no: int) -> bool:
    return "sigs" in state and state["sigs"][seat_no] is not None


def _host_waits(state: dict[str, Any], players: int) -> str:
    if "body" not in state:
        return f"{1 + len(state['joiners'])}/{players} seated; waiting for {players - 1 - len(state['joiners'])} " \
               "more to join"
    missing = [str(s) for s in range(1, players) if not _signed(state, s)]
    return f"the table is full; waiting for seat {', '.join(missing)} to sign the genesis"


def _host_take(state: dict[str, Any], fields: dict[str, Any], sender: bytes, body: dict, seat: Seat) -> str | None:
    """Apply one letter to the host's state; the refusal to post back, if any."""
    keys = [j[0] for j in state["joiners"]]
    if body["t"] == "join":
        if sender in keys or sender == fields["host_key"]:
            return None                                   # again (the broker may replay it): seated already
        if "body" in state:
            return "the lobby is full"
        tips = body.get("tips")
        if type(tips) is not list or len(tips) != fields["players"] - 1 or \
                not all(type(t) is bytes and len(t) == 32 for t in tips):
            return f"a join must carry one beacon tip for each of seats 1-{fields['players'] - 1}"
        state["joiners"].append([sender, clean_name(body.get("name")), tips])
        seat.status(f"{named(clean_name(body.get('name')), sender)} joined through the broker "
                    f"({1 + len(state['joiners'])}/{fields['players']} seated)", "lobby_seats")
    elif body["t"] == "signature" and "body" in state and sender in keys:
        at = 1 + keys.index(sender)
        sig = body.get("sig")
        if verify(sender, sig, b"caravan/genesis-sig/v1" + G.game_id_of(state["body"])):
            state["sigs"][at] = sig
            seat.status(f"seat {at} signed the genesis", "lobby_seats")
        else:
            log.warning("lobby: a signature from seat %d that does not verify, dropped", at)
    else:
        log.warning("lobby: a %r letter from %s dropped (not expected now)", body["t"], fingerprint(sender))
    return None


async def _host_progress(folder: Path, state: dict[str, Any], seat: Seat, key: SigningKey,
                         box: Postbox) -> Setup | None:
    """What the host does once the table is full (post the body to sign) and once every
    signature is in (store the game, post the signed genesis): the Setup then."""
    fields = _advert(state)
    lobby_id, joiners = fields["lobby"], state["joiners"]
    if len(joiners) < fields["players"] - 1:
        return None
    keys = [key.public] + [j[0] for j in joiners]
    if "body" not in state:
        tips = [beacon_chain(state["secret"], fields["nonce"], 0, BEACON_LENGTH)[0]]
        tips += [j[2][s] for s, j in enumerate(joiners)]
        body = G.make_body(fields["game"], fields["options"], keys, tips, fields["nonce"], BEACON_LENGTH,
                           fields["time_limit"], fields["pace"])
        async with open_postbox(seat.relay, G.game_id_of(body), key.public, fields["time_limit"]):
            pass                                          # this seat's game postbox exists before anyone plays
        state["body"], state["sigs"] = body, [G.sign(key, body)] + [None] * len(joiners)
        _save(folder, state)
        box.retain(lobby_topic(lobby_id), _announcement(fields, state), session_expiry(fields["time_limit"]))
        seat.status(f"the table is full; the genesis waits on the broker for seat "
                    f"{', '.join(str(s) for s in range(1, len(keys)))} to sign it", "lobby_seats")
    for s, j in enumerate(joiners, start=1):              # again at each run until all signed: lost is resent
        if state["sigs"][s] is None:
            box.send(inbox_of(j[0]), seal(key, lobby_id, j[0], {"t": "sign", "body": state["body"], "seat": s}))
    if not all(state["sigs"]):
        return None
    game_id = G.game_id_of(state["body"])
    tips = wire.decode(state["body"])["beacon"]
    raw = G.Genesis(fields["game"], fields["options"], keys, tips, BEACON_LENGTH, fields["nonce"], state["body"],
                    state["sigs"], fields["time_limit"], fields["pace"]).to_wire()
    G.parse(raw)
    names = [fields["name"]] + [j[1] for j in joiners]
    setup = Setup(raw, game_id, 0, state["secret"], {}, names, False, spectators_chat=False)
    if not GameStore(seat.data_dir, game_id).exists():
        store_genesis(seat, setup)
    state["game_id"] = game_id
    _save(folder, state)
    for j in joiners:                                     # posted at every run of the lobby: a lost one comes again
        box.send(inbox_of(j[0]), seal(key, lobby_id, j[0], {"t": "start", "genesis": raw, "names": names}))
    seat.status("every seat signed the genesis; play starts", "genesis", game_id=game_id.hex())
    return setup


async def _flush(box: Postbox, seat: Seat) -> None:
    if not await box.flush(30):
        seat.status(f"the broker {seat.relay} did not confirm {box.unacknowledged()} letter(s) within 30 s; "
                    "they are posted again at the next run", "warning")


# ---------------------------------------------------------------------------- a joiner

def by_mail(announcement: dict[str, Any] | None) -> bytes | None:
    """The sealed advert in a lobby's announcement when it is joined by mail (None: a live lobby)."""
    mail = (announcement or {}).get("mail")
    try:
        return bytes.fromhex(mail) if type(mail) is str else None
    except ValueError:
        return None


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
    elif step.what == SIGNED:
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
        return await _host_run(folder, state, seat, key)
    return await _join_run(folder, state, seat, key)
