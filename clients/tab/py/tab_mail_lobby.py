"""A friend in the tab takes a seat at a turn-based table whose lobby goes by mail (issue 33):
the tab's shell of protocol/mail/lobby_join.py's `MailJoiner`, as node/app/mail_lobby.py is
the desktop's, so a phone joins when its owner likes and never needs the host online.

`lobby_join` reads the lobby's retained announcement (`announcement`); when it says the table
goes by mail, `join` checks the advert against the invite's pin, keeps the joiner's state in
the tab's store (lobbies/<lobby id>/lobby.json, the desktop's file and format, synced to
IndexedDB before any letter leaves), opens the tab's lobby postbox (tab_postbox: its session
exists before the host writes to it) and posts the join. Each later run (`mail_lobby_run`: the
page calls it while it is open) takes the letters that waited, acknowledging each once what it
changed is kept: a genesis body to sign is signed once the tab's game postbox exists (the
state keeps the body, the seat and the secret: what takes the seat back); the signed genesis
keeps the game in tab_games, where the table page plays it. "mail_lobbies" lists the pending
lobbies in words. A refusal is one line (a ValueError: the worker's op error)."""

from __future__ import annotations

import asyncio
import json
import os
import time
from pathlib import Path
from typing import Any

from protocol import genesis as G, wire
from protocol.link.handshake import inbox_of
from protocol.link.relay_url import WS_PATH, Invite, lobby_topic, parse_invite
from protocol.mail.lobby_join import (NOT_SIGNED, REFUSED, MailJoiner, MailRefused, Post, Step, by_mail,
                                      full_problem, read_advert)

import tab_games
import tab_net
import tab_store
from tab_broker import TabBroker
from tab_postbox import TabPostbox, open_postbox
from tab_requests import request

LOBBIES = "lobbies"
STATE = "lobby.json"
LOOKUP = 1.5
"""Seconds to wait, after the broker granted the subscription, for a lobby's retained announcement."""
QUIET = 2.0
"""A run ends once no letter came for this long (what waited comes at once)."""
RUN_WITHIN = 60.0
"""The longest one run takes letters (a flood does not hold the page)."""
FLUSH = 30.0


class MailLobbyRefused(ValueError):
    """A join or run that cannot go on: one line naming the cause."""


_running: set[str] = set()
"""The lobbies a run is under way in (one at a time each: two would share one postbox session)."""


def invite_of(text: Any) -> Invite:
    """The invite `text` names, when a tab can reach its broker; one line why not otherwise."""
    try:
        invite = parse_invite(str(text))
    except ValueError as exc:
        raise MailLobbyRefused(str(exc)) from None
    tab_net.reachable(invite.url, "the invite's broker", "ask the host for an invite through the broker's "
                                                          "websockets listener")
    return invite


async def announcement(url: str, lobby_id: bytes) -> dict[str, Any] | None:
    """The lobby's announcement the broker retains (its JSON), or None when it holds none. Read
    on a short connection of its own: the tab's shared one (tab_net) may carry a live game."""
    broker, topic = TabBroker(), lobby_topic(lobby_id)
    found = asyncio.get_running_loop().create_future()
    broker.routes[topic] = lambda data: found.done() or found.set_result(data)
    await broker.connect(url, f"caravan-tab-look-{os.urandom(8).hex()}")
    try:
        await broker.subscribe(topic, 1)
        payload = await asyncio.wait_for(found, LOOKUP)
    except asyncio.TimeoutError:
        return None
    finally:
        await broker.close()
    try:
        shown = json.loads(payload)
    except ValueError:
        return None
    return shown if type(shown) is dict else None


# ---------------------------------------------------------------- the lobby's file

def _root() -> Path:
    return tab_store.data_dir() / LOBBIES


def _load(folder: Path) -> dict[str, Any]:
    path = folder / STATE
    try:
        state = wire.decode(path.read_bytes())
    except (OSError, ValueError) as exc:
        raise MailLobbyRefused(f"{path} cannot be read ({exc})") from None
    if type(state) is not dict or type(state.get("advert")) is not bytes or state.get("role") != "join":
        raise MailLobbyRefused(f"{path} is not a joined lobby's state")
    return state


async def _save(folder: Path, state: dict[str, Any]) -> None:
    """The state written whole and synced to IndexedDB: it survives a reload once this returns."""
    folder.mkdir(parents=True, exist_ok=True)
    tmp = folder / (STATE + ".tmp")
    tmp.write_bytes(wire.encode(state))
    os.replace(tmp, folder / STATE)
    await tab_store.synced()


def _folder(lobby_id: str) -> Path:
    if len(lobby_id) != 32 or any(c not in "0123456789abcdef" for c in lobby_id):
        raise MailLobbyRefused(f"{lobby_id[:40]!r} is not a lobby id (32 hex digits)")
    folder = _root() / lobby_id
    if not (folder / STATE).is_file():
        raise MailLobbyRefused(f"no lobby {lobby_id[:8]} by mail in this browser")
    return folder


# ---------------------------------------------------------------- what a lobby says

def summary(joiner: MailJoiner) -> dict[str, Any]:
    """A lobby in words for the page (nothing secret)."""
    f, state = joiner.fields, joiner.state
    host = str(f.get("name") or "")
    return {"lobby_id": joiner.lobby_id.hex(), "game": f["game"], "title": f["title"], "host": host,
            "players": f["players"], "seated": state.get("seated"), "seat": state.get("seat"),
            "pace": G.pace_text(f["pace"], f["time_limit"]), "per_move": G.duration_text(f["time_limit"]),
            "waiting": _waiting(joiner), "refused": state.get("refused"), "note": state.get("note"),
            "started": state["game_id"].hex() if state.get("started") else None}


def _waiting(joiner: MailJoiner) -> str:
    """What the lobby waits for, as a friend reads it."""
    state = joiner.state
    if state.get("refused"):
        return "nothing: the host refused this seat"
    if state.get("started"):
        return "nothing: the game started"
    if "body" in state:
        return "the other players to sign, then the host's node to run again and start the game"
    return "the host's node to run again: it seats you, then everyone signs the start"


# ---------------------------------------------------------------- joining, running

async def join(invite: Invite, found: dict[str, Any], name: str) -> dict[str, Any]:
    """Take a seat at the table whose announcement `found` says it goes by mail (see the module
    doc): the lobby's summary once the join is posted (or, joined already, one more run)."""
    lobby_id, url = bytes.fromhex(invite.lobby), f"{invite.url}{WS_PATH}"
    try:
        fields, signed = read_advert(by_mail(found), invite.host_pin, lobby_id)
    except MailRefused as exc:
        raise MailLobbyRefused(str(exc)) from None
    folder = _root() / lobby_id.hex()
    if (folder / STATE).is_file():
        return await run(lobby_id.hex())
    full = full_problem(fields, found.get("seated"))
    if full:
        raise MailLobbyRefused(full)
    joiner = MailJoiner.fresh(tab_store.identity(), signed, os.urandom(32))
    joiner.state.update(relay=url, seated=_seated(found), name=name)
    await _save(folder, joiner.state)                 # before the join leaves: the beacon secret is kept
    _running.add(lobby_id.hex())
    try:
        async with open_postbox(url, lobby_id, joiner.key.public, fields["time_limit"]) as box:   # ours first
            return await _letters(folder, joiner, box, url)
    finally:
        _running.discard(lobby_id.hex())


async def run(lobby_id: str) -> dict[str, Any]:
    """One run of the tab in its lobby: take what waited, act, and say where it stands."""
    folder = _folder(lobby_id)
    joiner = MailJoiner(tab_store.identity(), _load(folder))
    if lobby_id in _running or joiner.state.get("started") or joiner.state.get("refused"):
        return summary(joiner)
    url = joiner.state["relay"]
    _running.add(lobby_id)
    try:
        found = await announcement(url, joiner.lobby_id)
        if found is not None and "body" not in joiner.state:
            joiner.state["seated"] = _seated(found)
        async with open_postbox(url, joiner.lobby_id, joiner.key.public, joiner.fields["time_limit"]) as box:
            return await _letters(folder, joiner, box, url)
    finally:
        _running.discard(lobby_id)


def _seated(found: dict[str, Any]) -> int | None:
    """The seats the announcement says are taken (the broker's word, shown only), when a count."""
    seated = found.get("seated")
    return seated if type(seated) is int else None


def _post(box: TabPostbox, post: Post) -> None:
    box.send(inbox_of(post.to), post.letter)


async def _letters(folder: Path, joiner: MailJoiner, box: TabPostbox, url: str) -> dict[str, Any]:
    """Feed the letters that waited to the joiner, each acknowledged once what it changed is
    kept; then wait for the broker to take what the tab posted. The join is posted at each run
    until the broker took it (a run that could not post it must not lose it; the host takes a
    key's join once). The lobby's summary."""
    unposted = not joiner.state.get("posted") and "body" not in joiner.state
    if unposted:
        _post(box, joiner.join(str(joiner.state.get("name", ""))))
    deadline = time.monotonic() + RUN_WITHIN
    while time.monotonic() < deadline:
        parcel = await box.next_parcel(QUIET)
        if parcel is None:
            break
        step = joiner.feed(parcel.envelope)
        if step.offer is not None:                    # to sign: this seat is reachable first
            await _reachable(joiner, step, url)
            step = joiner.sign()
        await _keep(folder, joiner, step, url)
        for post in step.posts:
            _post(box, post)
        box.ack(parcel)
        if step.what == REFUSED or step.started is not None:
            break
    if not await box.flush(FLUSH):
        return {**summary(joiner), "unconfirmed": f"the broker did not confirm {box.unacknowledged()} letter(s) "
                                                  f"within {FLUSH:.0f} s; they are posted again at the next run"}
    if unposted:
        joiner.state["posted"] = True
        await _save(folder, joiner.state)
    return summary(joiner)


async def _reachable(joiner: MailJoiner, step: Step, url: str) -> None:
    """The tab's game postbox exists before its signature leaves (the others write to it at once)."""
    offer = step.offer
    assert offer is not None
    async with open_postbox(url, offer.game_id, joiner.key.public, joiner.fields["time_limit"]):
        pass


async def _keep(folder: Path, joiner: MailJoiner, step: Step, url: str) -> None:
    """What a letter changed, kept (and synced) before it is acknowledged: the started game in
    tab_games, a refusal or a body not signed in the lobby's words."""
    if step.what in (REFUSED, NOT_SIGNED):
        joiner.state["refused" if step.what == REFUSED else "note"] = step.text
    elif step.started is not None:
        s = step.started
        if not tab_games.stored(s.game_id):
            tab_games.create(s.genesis_raw, s.seat, s.secret, s.names, url)
    elif not step.save:
        return
    await _save(folder, joiner.state)


# ---------------------------------------------------------------- the ops

async def mail_join(data: bytes | None) -> dict[str, Any]:
    """{invite, name?}: take a seat at the turn-based table of `invite` (its lobby by mail;
    "lobby_join" takes any invite, and comes here with this one)."""
    args = request(data, "mail_join", "invite")
    invite = invite_of(args["invite"])
    found = await announcement(f"{invite.url}{WS_PATH}", bytes.fromhex(invite.lobby))
    if by_mail(found) is None:
        raise MailLobbyRefused(f"the broker holds no turn-based table for lobby {invite.lobby[:8]} (a live lobby "
                               "is joined with lobby_join)")
    return await join(invite, found, str(args.get("name", "")))


async def mail_lobbies(_: bytes | None) -> dict[str, Any]:
    """The lobbies by mail this tab joined whose game has not started: each in words."""
    root, out = _root(), []
    for path in sorted(root.glob(f"*/{STATE}")) if root.exists() else []:
        try:
            joiner = MailJoiner(tab_store.identity(), _load(path.parent))
        except MailLobbyRefused as exc:
            out.append({"lobby_id": path.parent.name, "error": str(exc)})
            continue
        if not joiner.state.get("started"):
            out.append(summary(joiner))
    return {"lobbies": out}


async def mail_lobby_run(data: bytes | None) -> dict[str, Any]:
    """{lobby_id}: one run (see `run`)."""
    args = request(data, "mail_lobby_run", "lobby_id")
    return await run(str(args["lobby_id"]).lower())


OPS = {"mail_join": mail_join, "mail_lobbies": mail_lobbies, "mail_lobby_run": mail_lobby_run}
