"""A friend in the tab takes a seat in a relayed lobby, or hosts one (issue 32): given the invite a host's
`caravan host GAME --relay URL` prints, the tab dials the lobby through the broker
(tab_relay, pinned to the invite's host key), takes a seat with its own key
(tab_store.identity), checks the offered genesis exactly as a desktop joiner does (the
sans-I/O joiner of protocol/seat/joiner.py), signs it, keeps the game in its store
(tab_games) and then plays it over its relay links (tab_seat_ops.play_stored).

Ops (msgpack in, a JSON-able dict out): "lobby_join" {invite, name?, game? (the game it must
be), within? (seconds to keep asking a silent lobby)} -> {game_id, seat, game, players,
names}, or, when the lobby's retained announcement says it is a turn-based table whose lobby
goes by mail, {"by_mail": true, ...} as tab_mail_lobby's join answers (the seat is asked for by
mail; the game starts later); "lobby_state" the seats while a join waits; "joined_play" {game_id, seed, within?,
decider?} plays a joined game (the table page opens it with `game_resume` instead, from the
store). The per-game secret is made here and kept in the tab's store: no answer, log line or
page ever holds it. A refusal is an op error of
one line naming its cause.

The tab hosts too: "lobby_host" {url (the broker's ws:// or wss:// URL), game, players,
options?, name?, time_limit?} -> {invite, lobby_id, ...} opens a lobby with the tab's own key,
listening for joiners on its inbox in the lobby's scope; the sans-I/O host of
protocol/seat/hosting.py decides who sits where and builds the genesis (as a desktop host's
node/app/lobby.py does). When the lobby is full the tab signs, the game starts and is kept
like a joined game (seat 0), so "joined_play" plays it; "lobby_state" shows a hosting tab
who has taken which seat, then the game id. "games_offered" lists the games the bundle carries
(title, players, default options, presets) for the first page's "Host a game" form."""

from __future__ import annotations

import asyncio
import os
import time
from dataclasses import dataclass, field
from typing import Any

from protocol import games as engines
from protocol.engine import BadOptions
from protocol.games import GameLoadError, UnknownGame
from protocol.genesis import MAX_LIVE_LIMIT
from protocol.identity import fingerprint
from protocol.link.framing import FrameError
from protocol.link.handshake import HandshakeError, pin_inbox
from protocol.link.relay_url import WS_PATH, RelayUrl, parse_relay_url
from protocol.mail.lobby_join import by_mail
from protocol.seat.hosting import Guest, HostRefused, Hosting, named
from protocol.seat.joiner import ANSWER_TIMEOUT, READY, Joiner, JoinRefused, sealed_advert

import tab_games
import tab_mail_lobby
import tab_net
import tab_seat_ops
import tab_store
from tab_broker import BrokerError
from tab_relay import TabEndpoint, TabRelayLink, dial, handshake
from tab_requests import request

JOIN_WITHIN = 60.0
"""How long `lobby_join` keeps asking a lobby whose host does not answer (--join-timeout)."""
RETRY = (1.0, 8.0)
"""The pause before the next try, first and longest (it doubles in between), as the desktop."""
SECRET_BYTES = 32


class LobbyRefused(ValueError):
    """A join that did not happen: one line naming the cause (the worker's op error)."""


games: dict[bytes, TabEndpoint] = {}
"""The games this worker joined or hosted, by id: each game's inbox, listened on before this
tab's signature left (peers dial it at once). The games themselves are in the tab's store."""


async def _keep(genesis_raw: bytes, seat: int, secret: bytes, names: list[str], url: str,
                endpoint: TabEndpoint) -> None:
    """A game this tab signed into, kept in its store (IndexedDB: it survives a reload; the
    table page resumes it) before the game starts here, its inbox kept for `joined_play`."""
    store = tab_games.create(genesis_raw, seat, secret, names, url)
    await store.flush()
    games[store.game_id] = endpoint


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
    invite = tab_mail_lobby.invite_of(args["invite"])
    url = f"{invite.url}{WS_PATH}"
    found = await tab_mail_lobby.announcement(url, bytes.fromhex(invite.lobby))
    if by_mail(found) is not None:                    # a turn-based table: its lobby goes by mail
        return {"by_mail": True, **await tab_mail_lobby.join(invite, found, str(args.get("name", "")))}
    if _joining:
        raise LobbyRefused("this tab is already joining a lobby")
    if _hosted and _hosted[0].state in (HOSTING, SIGNING):
        raise LobbyRefused("this tab is hosting a lobby")
    key, secret = tab_store.identity(), os.urandom(SECRET_BYTES)
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
    await _keep(joined.genesis_raw, joined.seat, secret, joined.names, url, endpoint)
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
    """While a join waits: the lobby's game and who has taken which seat (the host's "seats");
    while this tab hosts: the same, from its own lobby, then the game it started."""
    if _hosted and not _waiting:
        return _hosted[0].state_now()
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
    if type(gid) is not bytes or gid not in games:
        raise LobbyRefused(f"no joined game {args['game_id']!r} in this tab (lobby_join first)")
    return await tab_seat_ops.play_stored({**args, "game_id": gid.hex()}, games[gid])


# ---------------------------------------------------------------- hosting a lobby

HOSTING, SIGNING, STARTED, FAILED = "hosting", "signing", "started", "failed"
MAX_WELCOMES = 32
"""Links in their handshake or join at once (the desktop's MAX_PENDING): more are closed, so a
flood of links that never finish holds at most this many tasks (the desktop evicts the oldest
unproven one instead: a tab's lobby is for friends who have its invite)."""


@dataclass(eq=False)
class TabGuest(Guest):
    """A seated joiner with its relay link (and, once it no longer reads it, `idle`)."""
    link: TabRelayLink | None = None
    idle: asyncio.Event = field(default_factory=asyncio.Event)


class HostedLobby:
    """The lobby this tab hosts: the core's decisions over relay links (as node/app/lobby.py
    `Lobby` over trio links), the log of what happened, and the game once it started."""

    def __init__(self, core: Hosting, url: RelayUrl, broker: Any, endpoint: TabEndpoint):
        self.core, self.url, self.broker, self.endpoint = core, url, broker, endpoint
        self.secret = os.urandom(SECRET_BYTES)
        self.state, self.error, self.game_id = HOSTING, "", b""
        self.full = asyncio.Event()
        self.log: list[str] = []
        self.task: asyncio.Future | None = None

    @property
    def invite(self) -> str:
        return self.url.invite(self.core.lobby_id.hex(), self.core.pin)

    def say(self, line: str) -> None:
        self.log.append(line)
        del self.log[:-64]

    def state_now(self) -> dict[str, Any]:
        """What `lobby_state` answers while (and after) this tab hosts."""
        core = self.core
        seats = core.seats_for(None)
        seats[0]["you"] = True
        return {"joining": False, "hosting": True, "state": self.state, "error": self.error, "game": core.game,
                "players": core.players, "seats": seats, "invite": self.invite, "lobby_id": core.lobby_id.hex(),
                "game_id": self.game_id.hex(), "log": list(self.log), "joined": sorted(g.hex() for g in games)}

    async def serve(self) -> None:
        """Take joiners' links until the lobby is full, then sign and start the game."""
        welcomes: set[asyncio.Future] = set()
        try:
            while not self.full.is_set():
                link = await self.endpoint.next_link(0.5)
                welcomes = {w for w in welcomes if not w.done()}
                if link is not None and len(welcomes) >= MAX_WELCOMES:
                    self.say(f"{link.address} dropped: {MAX_WELCOMES} links are already being welcomed")
                    link.close()
                elif link is not None:
                    welcomes.add(asyncio.ensure_future(self.welcome(link)))
            await self.start()
        except HostRefused as exc:
            self.state, self.error = FAILED, str(exc)
        except (FrameError, HandshakeError, BrokerError, asyncio.TimeoutError) as exc:
            self.state, self.error = FAILED, f"a player dropped out while the genesis was signed: {exc}"
        except Exception as exc:                      # noqa: BLE001 - said in lobby_state, never lost in a task
            self.state, self.error = FAILED, f"{type(exc).__name__}: {exc}"
        finally:
            for w in welcomes:
                w.cancel()
            self.stop_listening()
            if self.state != STARTED:                 # (once started, each joiner closes its own)
                for g in self.core.guests:
                    assert isinstance(g, TabGuest) and g.link is not None
                    g.link.close()
            if self.error:
                self.say(f"lobby failed: {self.error}")

    def stop_listening(self) -> None:
        """No more opens in the lobby's scope."""
        prefix = self.endpoint.prefix
        if self.broker.prefixes.pop(prefix, None) is not None:
            self.broker.unsubscribe_soon(prefix + "+/+")

    async def welcome(self, link: TabRelayLink) -> None:
        """A joiner's link: the advert, the handshake, its join; then it waits for the others,
        and leaving frees its seat (as `Lobby._welcome_link`)."""
        core = self.core
        try:
            await link.send(core.advert())            # unsealed, as a desktop host: says what answered
            await handshake(link, core.key, core.lobby_id, dialer=False, timeout=ANSWER_TIMEOUT)
            await link.send(core.advert())
            join = await asyncio.wait_for(link.recv(), ANSWER_TIMEOUT)
            if type(join) is not dict or join.get("t") != "join":
                got = join.get("t") if type(join) is dict else type(join).__name__
                if got in ("watch", "decline"):
                    await link.send({"t": "refused", "why": "a tab's lobby takes players only"})
                raise HostRefused(f"expected 'join', got {got!r}")
            try:
                guest = core.admit(link.peer_key, join, relayed=True, guest=TabGuest(host=link.address, link=link))
            except HostRefused as exc:
                if exc.why is not None:
                    await link.send({"t": "refused", "why": exc.why})
                raise
            assert isinstance(guest, TabGuest)
            self.say(f"{named(guest.name, guest.key)} joined ({core.seats_text()})")
            if core.full:
                self.full.set()
            await self.tell_seats()
            if not self.full.is_set() and await self.gone(link):
                core.leave(guest)
                self.say(f"{named(guest.name, guest.key)} left ({core.seats_text()})")
                link.close()
                await self.tell_seats()
                return
            guest.idle.set()
        except (HostRefused, HandshakeError, FrameError, BrokerError, asyncio.TimeoutError) as exc:
            self.say(f"{link.address} dropped: {str(exc) or type(exc).__name__}")
            link.close()
        except asyncio.CancelledError:               # the lobby ended (full, or failed) while it was welcomed
            link.close()
            raise

    async def gone(self, link: TabRelayLink) -> bool:
        """Wait for a seated joiner (who sends nothing until the lobby is full) to leave, or the
        lobby to fill: True when its link closed or broke."""
        left = asyncio.ensure_future(link.recv())
        full = asyncio.ensure_future(self.full.wait())
        await asyncio.wait({left, full}, return_when=asyncio.FIRST_COMPLETED)
        full.cancel()
        if not left.done():
            left.cancel()
            return False
        try:
            return left.result() is None
        except FrameError:
            return True

    async def tell_seats(self) -> None:
        """Every joiner still waiting learns who sits where now."""
        if self.full.is_set():
            return                                   # "seated" comes next: the seats are final
        for g in list(self.core.guests):
            assert isinstance(g, TabGuest) and g.link is not None
            try:
                await asyncio.wait_for(g.link.send(self.core.seats_frame(g)), 1.0)
            except (FrameError, BrokerError, asyncio.TimeoutError):
                pass

    async def start(self) -> None:
        """The lobby is full: the seats, the tips, the body, every signature, the game's inbox
        listened on, the start; the game kept like a joined one (seat 0)."""
        core = self.core
        self.state = SIGNING
        seated = core.begin(self.secret, os.urandom(16))
        for g, _ in seated:
            await asyncio.wait_for(g.idle.wait(), ANSWER_TIMEOUT)   # its welcome no longer reads the link
        for g, frame in seated:
            await g.link.send(frame)
        for g, _ in seated:
            core.take_tip(g, (await _expect(g.link, "tip")).get("tip"))
        for g, frame in core.sign_frames():
            await g.link.send(frame)
        for g, _ in seated:
            core.take_signature(g, (await _expect(g.link, "signature")).get("sig"))
        raw, gid = core.genesis(), core.game_id
        endpoint = TabEndpoint(self.broker, core.key, gid)
        await endpoint.listen()                       # before the start (with this tab's signature) leaves
        await _keep(raw, 0, self.secret, core.names(), f"{self.url}{WS_PATH}", endpoint)
        start = core.start_frame(raw)
        for g, _ in seated:
            await g.link.send(start)
        self.state, self.game_id = STARTED, gid
        self.say(f"every seat signed the genesis; game {gid.hex()[:8]} starts")


async def _expect(link: TabRelayLink, kind: str) -> dict:
    """A joiner's next frame, of `kind`, within ANSWER_TIMEOUT (else HostRefused naming the key)."""
    who = fingerprint(link.peer_key) if link.peer_key else link.address
    try:
        frame = await asyncio.wait_for(link.recv(), ANSWER_TIMEOUT)
    except asyncio.TimeoutError:
        raise HostRefused(f"{who} sent no {kind!r} in {ANSWER_TIMEOUT:.0f} s") from None
    if type(frame) is not dict or frame.get("t") != kind:
        got = frame.get("t") if type(frame) is dict else type(frame).__name__
        raise HostRefused(f"{who}: expected {kind!r}, got {got!r}")
    return frame


_hosted: list[HostedLobby] = []
"""The lobby this tab hosts (at most one), kept after its game started for `lobby_state`."""


async def lobby_host(data: bytes | None) -> dict[str, Any]:
    """Open a lobby through the broker {url} for {game, players, options?, name?, time_limit?}
    with the tab's own key (see the module doc): its invite."""
    args = request(data, "lobby_host", "url", "game", "players")
    try:
        url = parse_relay_url(str(args["url"]))
    except ValueError as exc:
        raise LobbyRefused(str(exc)) from None
    tab_net.reachable(url, "the broker", "use the broker's websockets listener")
    options, time_limit = args.get("options") or {}, args.get("time_limit", 0)
    if type(options) is not dict or type(time_limit) is not int or not 0 <= time_limit <= MAX_LIVE_LIMIT:
        raise LobbyRefused(f"options must be a map and time_limit a whole number of seconds, 0 (none) to "
                           f"{MAX_LIVE_LIMIT}")
    try:
        core = Hosting(tab_store.identity(), str(args["game"]), args["players"], options, os.urandom(16),
                       name=str(args.get("name", "")), time_limit=time_limit)
    except (HostRefused, UnknownGame, GameLoadError, BadOptions) as exc:
        raise LobbyRefused(str(exc)) from None
    if _hosted and _hosted[0].state in (HOSTING, SIGNING):
        raise LobbyRefused("this tab already hosts a lobby")
    if _joining:
        raise LobbyRefused("this tab is joining a lobby")
    broker = await tab_net.connected(f"{url}{WS_PATH}")
    endpoint = TabEndpoint(broker, core.key, core.lobby_id)
    await endpoint.listen()
    hosted = HostedLobby(core, url, broker, endpoint)
    _hosted[:] = [hosted]
    hosted.task = asyncio.ensure_future(hosted.serve())
    hosted.say(f"hosting {core.title} for {core.players} players: lobby {core.lobby_id.hex()[:8]} through the "
               f"broker {url}")
    return {"invite": hosted.invite, "lobby_id": core.lobby_id.hex(), "game": core.game, "title": core.title,
            "players": core.players, "key": fingerprint(core.key.public)}


async def games_offered(_: bytes | None) -> dict[str, Any]:
    """The games this bundle carries, for the first page's "Host a game" form: each one's name,
    title, players, default options by number of players and presets (the game's options.py
    PRESETS over the defaults for its fewest players), as the desktop home's New table offers them."""
    offered = []
    for name in engines.names():
        try:
            engine = engines.get(name)
            presets = getattr(engines.options_module(name), "PRESETS", {}) or {}
        except GameLoadError as exc:
            offered.append({"game": name, "error": str(exc)})
            continue
        counts = range(engine.min_players, engine.max_players + 1)
        defaults = {str(n): engine.default_options(n) for n in counts}
        offered.append({"game": name, "title": engine.title, "min": engine.min_players, "max": engine.max_players,
                        "defaults": defaults,
                        "presets": [{"name": p, "options": dict(o)} for p, o in presets.items()]})
    return {"games": offered}


OPS = {"games_offered": games_offered, "lobby_join": lobby_join, "lobby_host": lobby_host, "lobby_state": lobby_state,
       "joined_play": joined_play}
