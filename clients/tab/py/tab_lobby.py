"""A friend in the tab takes a seat in a relayed lobby (issue 32): given the invite a host's
`caravan host GAME --relay URL` prints, the tab dials the lobby through the broker
(tab_relay, pinned to the invite's host key), takes a seat with its own key
(tab_store.identity), checks the offered genesis exactly as a desktop joiner does (the
sans-I/O joiner of protocol/seat/joiner.py), signs it, and then plays the game over its
relay links (tab_seat_ops.relay_seat).

Ops (msgpack in, a JSON-able dict out): "lobby_join" {invite, name?, game? (the game it must
be), within? (seconds to keep asking a silent lobby)} -> {game_id, seat, game, players,
names}; "lobby_state" the seats while a join waits; "joined_play" {game_id, seed, within?}
plays a joined game with the seeded random decider. The per-game secret is made here and
stays in this worker: no answer, log line or page ever holds it. A refusal is an op error of
one line naming its cause."""

from __future__ import annotations

import asyncio
import os
import time
from dataclasses import dataclass
from typing import Any

from protocol import games as engines
from protocol.identity import fingerprint
from protocol.link.framing import FrameError
from protocol.link.handshake import HandshakeError, pin_inbox
from protocol.link.relay_url import WS_PATH, parse_invite
from protocol.seat.joiner import ANSWER_TIMEOUT, READY, Joiner, JoinRefused, sealed_advert

import tab_games
import tab_net
import tab_seat_ops
import tab_store
from tab_relay import TabEndpoint, TabRelayLink, dial
from tab_requests import request

JOIN_WITHIN = 60.0
"""How long `lobby_join` keeps asking a lobby whose host does not answer (--join-timeout)."""
RETRY = (1.0, 8.0)
"""The pause before the next try, first and longest (it doubles in between), as the desktop."""
SECRET_BYTES = 32


class LobbyRefused(ValueError):
    """A join that did not happen: one line naming the cause (the worker's op error)."""


@dataclass
class JoinedGame:
    """A game this tab signed into: what `joined_play` needs (the secret never leaves here)."""
    genesis: bytes
    secret: bytes
    seat: int
    names: list[str]
    broker_url: str
    endpoint: TabEndpoint
    """The game's inbox, listened on before this tab's signature left (peers dial it at once)."""


games: dict[bytes, JoinedGame] = {}
"""The joined games of this worker, by game id."""
_joining: list[str] = []
"""The lobby a join is under way in (at most one)."""
_waiting: list[Joiner] = []
"""Its joiner once the host's advert checked, for `lobby_state`."""


async def _dial_lobby(broker: Any, invite: Any, within: float) -> TabRelayLink:
    """A sealed link to the lobby's host, its key proven to own the pinned inbox; asked
    again with a growing pause while nobody answers, for up to `within` seconds."""
    key, inbox = tab_store.identity(), pin_inbox(invite.host_pin)
    deadline, pause, tries = time.monotonic() + within, RETRY[0], 0
    while True:
        tries += 1
        try:
            return await dial(broker, key, bytes.fromhex(invite.lobby), inbox,
                              timeout=max(1.0, min(20.0, deadline - time.monotonic())))
        except (HandshakeError, FrameError) as exc:
            why = str(exc)
        if deadline - time.monotonic() <= pause:
            raise LobbyRefused(f"no lobby answered at the invite's host key (inbox {inbox}) in {within:.0f} s "
                               f"({tries} {'try' if tries == 1 else 'tries'}; last: {why}); is the host still "
                               "there, and is the invite whole?")
        await asyncio.sleep(pause)
        pause = min(pause * 2, RETRY[1])


async def _next(link: TabRelayLink, joiner: Joiner) -> Any:
    """The host's next frame (None: the link closed), or a refusal once its time is up."""
    try:
        return await asyncio.wait_for(link.recv(), max(0.0, joiner.deadline - time.monotonic()))
    except asyncio.TimeoutError:
        raise JoinRefused(joiner.expired(time.monotonic()) or "the host did not answer in time") from None


async def lobby_join(data: bytes | None) -> dict[str, Any]:
    """Take a seat in the lobby of {invite} (see the module doc)."""
    args = request(data, "lobby_join", "invite")
    try:
        invite = parse_invite(str(args["invite"]))
    except ValueError as exc:
        raise LobbyRefused(str(exc)) from None
    if not invite.url.websockets:
        raise LobbyRefused(f"the invite's broker {invite.url} is not reachable from a tab: a tab reaches a broker "
                           "by ws:// or wss:// only (ask the host for an invite through the broker's websockets "
                           "listener)")
    if _joining:
        raise LobbyRefused("this tab is already joining a lobby")
    key, secret, url = tab_store.identity(), os.urandom(SECRET_BYTES), f"{invite.url}{WS_PATH}"
    _joining.append(invite.lobby)
    link = None
    try:
        link = await _dial_lobby(await tab_net.connected(url), invite, float(args.get("within", JOIN_WITHIN)))
        joiner, endpoint = await _join(link, key, secret, invite, args)
    except JoinRefused as exc:
        raise LobbyRefused(f"lobby at {link.address} failed: {exc}" if exc.wrapped else str(exc)) from None
    except FrameError as exc:
        raise LobbyRefused(f"the link to the lobby's host broke: {exc}") from None
    finally:
        if link is not None:
            link.close()
        _waiting.clear()
        _joining.clear()
    joined = joiner.joined
    assert joined is not None
    games[joined.game_id] = JoinedGame(joined.genesis_raw, secret, joined.seat, joined.names, url, endpoint)
    await tab_games.create(joined.genesis_raw, joined.seat, secret, joined.names, url).flush()   # survives a reload
    return {"game_id": joined.game_id.hex(), "seat": joined.seat, "game": joined.genesis.game,
            "players": len(joined.genesis.seats), "names": joined.names, "key": fingerprint(key.public)}


async def _join(link: TabRelayLink, key: Any, secret: bytes, invite: Any,
                args: dict[str, Any]) -> tuple[Joiner, TabEndpoint]:
    """The joiner's steps on the sealed link: the advert, the seats, the tip, the check of the
    offered body, the signature (after the game's inbox is listened on), the start."""
    try:
        frame = await asyncio.wait_for(link.recv(), ANSWER_TIMEOUT)
    except asyncio.TimeoutError:
        raise JoinRefused(f"the lobby's host sent no advert in {ANSWER_TIMEOUT:.0f} s") from None
    info = sealed_advert(frame, link.peer_key, invite.host_pin, invite.lobby, args.get("game"), link.address)
    joiner = Joiner(key, secret, info, link.peer_key)
    _waiting[:] = [joiner]
    for out in joiner.start(time.monotonic(), 0, str(args.get("name", ""))):
        await link.send(out)
    while joiner.state != READY:
        for out in joiner.feed(await _next(link, joiner), time.monotonic()):
            await link.send(out)
    endpoint = TabEndpoint(tab_net.broker(), key, joiner.game_id)
    await endpoint.listen()                          # before the signature leaves: peers dial at once
    await link.send(joiner.signature(time.monotonic()))
    joiner.feed(await _next(link, joiner), time.monotonic())
    return joiner, endpoint


async def lobby_state(_: bytes | None) -> dict[str, Any]:
    """While a join waits: the lobby's game and who has taken which seat (the host's "seats")."""
    if not _waiting:
        return {"joining": False, "seats": [], "joined": sorted(g.hex() for g in games)}
    joiner = _waiting[0]
    game = joiner.info.get("game")
    return {"joining": True, "state": joiner.state, "game": game, "title": engines.get(game).title,
            "players": joiner.info.get("players"), "seats": joiner.seats}


async def joined_play(data: bytes | None) -> dict[str, Any]:
    """Play a joined game {game_id, seed, within?} over relay links, as `seat_relay` does."""
    args = request(data, "joined_play", "game_id", "seed")
    gid = args["game_id"]
    try:
        gid = bytes.fromhex(gid) if type(gid) is str else gid
    except ValueError:
        gid = None
    game = games.get(gid) if type(gid) is bytes else None
    if game is None:
        raise LobbyRefused(f"no joined game {args['game_id']!r} in this tab (lobby_join first)")
    return await tab_seat_ops.play_stored({**args, "game_id": gid.hex()}, game.endpoint)


OPS = {"lobby_join": lobby_join, "lobby_state": lobby_state, "joined_play": joined_play}
