"""The lobby: a host opens a game, joiners take seats, and everyone signs the genesis.

The host only gathers keys and beacon tips and relays the genesis for signing (what it
decides is protocol/seat/hosting.py's, shared with the browser tab's host; the links, their
bounds and the lines are here); each joiner checks the body (its own key and tip at its
seat, the advertised game and options) before it signs. After the genesis the host is a peer like any other.

Frames (after the mutual handshake bound to the lobby id):
host -> joiner: {"t": "lobby", ...} before the handshake (it says what answered) and again
sealed after it (the one the joiner trusts); {"t": "seated", "seat", "nonce",
"players", "beacon_length"}; {"t": "sign", "body"}; {"t": "start", "genesis", "peers", "names"};
{"t": "refused", "why"}; while a joiner waits for the others, {"t": "seats", "seats": [{"seat",
"name", "taken", "you"}]} whenever someone takes or leaves a seat (names are unsigned labels). joiner -> host: {"t": "join", "port", "name"}; {"t": "tip", "tip"};
{"t": "signature", "sig"}.

A joiner given the host's key pin (an invite always carries it; `HOST:PORT/KEY` on a LAN)
accepts no other key as the host, before it sends or signs anything (issue 27). A host keeps
at most MAX_PENDING links in their handshake (a new one closes the oldest that has not sent
a valid hello — one signed for that link by the key owning its inbox —, else the oldest: a
flood cannot keep a real joiner out) and reads at most HANDSHAKE_FRAME bytes a frame before a
link is authenticated, LOBBY_FRAME after.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass, field
from typing import Any, Awaitable, Callable

import trio

from protocol import genesis as G
from protocol.identity import SigningKey, fingerprint  # noqa: F401 - fingerprint: as the lobby always offered it
from protocol.seat.hosting import Guest, HostRefused, Hosting, named
from protocol.seat.joiner import (READY, WRONG_HOST, Joiner, JoinRefused, advert, advert_pace, clean_name,
                                  host_key_problem, seats_shape_ok, sealed_advert)

from ..net.frames import Connection, FrameError
from ..net.handshake import HandshakeError, HandshakeSlots, handshake, parse_pin, pin_inbox
from .spectators import REFUSED_NO

log = logging.getLogger("caravan.lobby")

MAX_LOBBY_WATCHERS = 8
"""Spectators that may wait in an open lobby for its game to start."""
LOBBY_TIMEOUT = 30.0
"""A joiner must answer each lobby request (tip, signature) within this many seconds."""
MAX_PENDING = 32
"""Links in their handshake at once (as node/app/game.py MAX_UNAUTHENTICATED); a new one closes
the oldest not yet past the hello, so links that never finish cannot keep a real joiner out."""
HANDSHAKE_FRAME = 4096
"""The largest frame a host reads before the link is authenticated (as node/app/game.py)."""
LOBBY_FRAME = 64 << 10
"""The largest frame a host reads from an authenticated joiner (join, tip, signature: tiny)."""
JOIN_TIMEOUT = 60.0
"""How long a joiner keeps asking a lobby through a broker that does not answer (--join-timeout):
a busy or flooded host answers late, and its own connection may be reconnecting."""
JOIN_RETRY = (1.0, 8.0)
"""The pause before a joiner's next try, first and longest (it doubles in between)."""
JOIN_PATIENCE = (3.0, 16.0)
"""How long one try waits for the host's answer, first and longest (it doubles in between): a
host behind a backlog answers late, and each new try queues behind that backlog again."""

Listen = Callable[[bytes], Awaitable[None]]
"""`listen(game_id)`: make this node reachable in the game about to start (through a broker,
subscribe its game connection); awaited before this node's part of the genesis leaves it, so
no peer's first dial of the game can come before it."""


async def _no_listen(game_id: bytes) -> None:
    return None


class LobbyError(Exception):
    pass


def split_host_key(target: str) -> tuple[str, bytes | None]:
    """`HOST:PORT/KEY` or `LOBBY_ID/KEY` -> (HOST:PORT or LOBBY_ID, the host's key pin), the
    pin None when the target names no key; ValueError (one line) for a malformed key."""
    where, sep, pin = target.rpartition("/")
    if not sep:
        return target, None
    return where, parse_pin(pin, repr(target))


@dataclass
class Setup:
    """What a node needs to start playing once the genesis is signed."""
    genesis_raw: bytes
    game_id: bytes
    seat: int
    secret: bytes
    peers: dict[int, tuple[str, int]]
    names: list[str] = field(default_factory=list)
    """The players' chosen names by seat (not signed: shown to people, never trusted)."""
    spectators: bool = True
    """The host's choice: may this table be watched (node/app/spectators.py)."""
    watchers: int = 0
    """Spectators the lobby told the game id: the host's node waits for them after a short game."""
    spectators_chat: bool = True
    """The host's choice: may its spectators read the table talk (node/app/chat.py; only when
    `spectators`)."""


@dataclass(eq=False)
class _Joiner(Guest):
    """A seated joiner with its link (and what its welcome task waits on)."""
    conn: Connection = field(default=None)  # type: ignore[assignment]
    waiting: trio.CancelScope = field(default_factory=trio.CancelScope)
    idle: trio.Event = field(default_factory=trio.Event)


def _peer_host(stream: Any) -> str:
    try:
        return stream.socket.getpeername()[0]
    except (OSError, AttributeError):
        return "?"


async def _expect(conn: Connection, kind: str, timeout: float = LOBBY_TIMEOUT, also: tuple[str, ...] = ()) -> dict:
    with trio.fail_after(timeout):
        frame = await conn.recv()
    if type(frame) is not dict or frame.get("t") not in (kind, *also):
        got = frame.get("t") if type(frame) is dict else type(frame).__name__
        raise LobbyError(f"expected {kind!r}, got {got!r}")
    return frame


def _core(attr: str, doc: str | None = None) -> Any:
    """A Lobby attribute that is its Hosting core's (`self.core.<attr>`)."""
    return property(lambda self: getattr(self.core, attr), lambda self, v: setattr(self.core, attr, v), doc=doc)


class Lobby:
    """The host's side over trio links: what it decides is protocol/seat/hosting.py's `Hosting`
    (`self.core`); here are the links, their bounds and the lines. `run` returns the Setup
    once every seat has signed."""

    def __init__(self, key: SigningKey, game: str, players: int, options: dict[str, Any],
                 on_status: Callable[[str], None] = lambda s: None, time_limit: int = 0, name: str = "",
                 spectators: bool = True, friends: frozenset[bytes] = frozenset(), spectators_chat: bool = True,
                 pace: str = G.LIVE):
        try:
            self.core = Hosting(key, game, players, options, os.urandom(16), name=name, time_limit=time_limit,
                                pace=pace, spectators=spectators, spectators_chat=spectators_chat, friends=friends)
        except HostRefused as exc:
            raise LobbyError(str(exc)) from None
        self.handshakes = HandshakeSlots(MAX_PENDING)
        self.full = trio.Event()
        self.done = trio.Event()
        self.before_start: Callable[[Setup], None] | None = None
        """Called with the Setup before the signed genesis (holding this seat's signature) leaves:
        the node stores the game there, so it never signs a genesis it cannot continue."""
        self.on_status = on_status
        self.port = 0
        self.relayed = False
        self._watching: list[Connection] = []      # their links: told the game id at the start
        self.watchers = 0

    # what the core holds, as the Lobby always showed it (read and set there)
    key = _core("key")
    game = _core("game")
    players = _core("players")
    options = _core("options")
    name = _core("name")
    time_limit = _core("time_limit")
    pace = _core("pace")
    title = _core("title")
    lobby_id = _core("lobby_id")
    pin = _core("pin", "The pin of the host's key: what an invite or `HOST:PORT/KEY` tells joiners to expect.")
    spectators = _core("spectators")
    spectators_chat = _core("spectators_chat", "May the spectators read the table talk: told every seat in the "
                                               "`start` frame.")
    friends = _core("friends")
    declined = _core("declined")
    places = _core("places", "Joiners whose seat is chosen beforehand (the home's bots): key -> seat.")
    joiners = _core("guests", "The seated joiners (_Joiner), in the order they came.")

    def invite(self, url: Any) -> str:
        """What joiners join this lobby with through the broker `url` (a relay_url.RelayUrl)."""
        return url.invite(self.lobby_id.hex(), self.pin)

    @staticmethod
    def _who(joiner: "_Joiner") -> str:
        """A joiner by the name it chose (its key's fingerprint, which is what counts, beside it)."""
        return named(joiner.name, joiner.key)

    def seating(self) -> list[Any]:
        return self.core.seating()

    def seats_text(self) -> str:
        return self.core.seats_text()

    def seats_for(self, me: "_Joiner | None" = None) -> list[dict[str, Any]]:
        return self.core.seats_for(me)

    async def _tell_seats(self) -> None:
        """Every joiner still waiting learns who sits where now (one that does not take it
        within 1 s misses this one; the next change tells it again)."""
        if self.full.is_set():
            return                                   # "seated" comes next: the seats are final
        for j in list(self.joiners):
            with trio.move_on_after(1):
                try:
                    await j.conn.send(self.core.seats_frame(j))
                except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                    pass

    def status(self) -> dict[str, Any]:
        return self.core.status(self.port)

    async def _welcome(self, stream: trio.SocketStream) -> None:
        await self._welcome_link(Connection(stream, _peer_host(stream)))

    def _advert(self) -> dict[str, Any]:
        return self.core.advert(self.port)

    async def _authenticate(self, conn: Connection) -> bytes | None:
        """The handshake of a new link, one of at most MAX_PENDING (for a new one the oldest
        whose peer has not yet sent a valid hello is closed, else the oldest); its peer's
        key, or None when it was closed so."""
        conn.max_frame = HANDSHAKE_FRAME
        with self.handshakes.slot() as proven:
            await conn.send(self._advert())
            peer = await handshake(conn, self.key, self.lobby_id, dialer=False, on_hello=proven,
                                   proven_timeout=LOBBY_TIMEOUT if self.relayed else None)
            conn.max_frame = LOBBY_FRAME
            await conn.send(self._advert())
            return peer
        log.warning("lobby: %s dropped: %d newer links were in their handshake", conn.address, MAX_PENDING)
        return None

    async def _refused(self, conn: Connection, exc: HostRefused) -> LobbyError:
        """Tell the joiner why (when the core says it is told), then the line the host logs."""
        if exc.why is not None:
            await conn.send({"t": "refused", "why": exc.why})
        return LobbyError(str(exc))

    async def _welcome_link(self, conn: Connection) -> None:
        """A joiner's link (TCP, or through the relay: then it names no port, as no one dials it)."""
        try:
            peer = await self._authenticate(conn)
            if peer is None:
                await conn.aclose()
                return
            join = await _expect(conn, "join", also=("watch", "decline"))
            if join["t"] == "watch":
                await self._watcher(conn)
                return
            if join["t"] == "decline":                # a friend's Play again: "not this time"
                try:
                    self.core.decline(peer)
                except HostRefused as exc:
                    raise await self._refused(conn, exc) from None
                self.on_status(f"{named(clean_name(join.get('name')), peer)} declined to play again "
                               f"({self.seats_text()})")
                await conn.send({"t": "noted"})
                await conn.aclose()
                return
            try:
                joiner = self.core.admit(peer, join, relayed=self.relayed, guest=_Joiner(conn=conn, host=conn.address))
            except HostRefused as exc:
                raise await self._refused(conn, exc) from None
            self.on_status(f"{self._who(joiner)} joined from {conn.address} ({self.seats_text()})")
            if self.core.full:
                self.full.set()
                for j in self.joiners:
                    j.waiting.cancel()
            await self._tell_seats()
            # notice a joiner who leaves before the lobby is full (the joiner sends nothing now)
            with joiner.waiting:
                if await _gone(conn):
                    self.core.leave(joiner)
                    self.on_status(f"{self._who(joiner)} left ({self.seats_text()})")
                    await conn.aclose()
                    await self._tell_seats()
                    return
            joiner.idle.set()
            await self.done.wait()       # the stream closes when this handler returns
        except (LobbyError, HandshakeError, FrameError, trio.TooSlowError, trio.BrokenResourceError,
                trio.ClosedResourceError, OSError) as exc:
            log.warning("lobby: %s dropped: %s", conn.address, str(exc))   # not exc: its frames hold the buffers
            await conn.aclose()

    async def _watcher(self, conn: Connection) -> None:
        """A spectator waiting for the game: told whether it may watch, then the link closes
        when the game starts (it then dials this port again, where the game is served)."""
        if not self.spectators or self.watchers >= MAX_LOBBY_WATCHERS:
            why = REFUSED_NO if not self.spectators else f"busy: {MAX_LOBBY_WATCHERS} spectators are already waiting for this lobby"
            await conn.send({"t": "refused", "why": why})
            await conn.aclose()
            return
        self.watchers += 1
        self._watching.append(conn)
        try:
            await conn.send({"t": "watching", **self.status()})
            async with trio.open_nursery() as nursery:
                async def leaves() -> None:
                    await _gone(conn)                # a spectator sends nothing: any frame ends it too
                    nursery.cancel_scope.cancel()
                nursery.start_soon(leaves)
                await self.done.wait()
                nursery.cancel_scope.cancel()
        finally:
            self.watchers -= 1
            self._watching.remove(conn)
            await conn.aclose()

    async def _tell_watchers(self, gid: bytes) -> int:
        """Each waiting spectator learns the game id: through a broker it dials the host's node
        in that game (over TCP the same port tells it). One that does not take it in 1 s misses
        it. How many were told."""
        told = 0
        for conn in list(self._watching):
            with trio.move_on_after(1):
                try:
                    await conn.send({"t": "started", "game_id": gid})
                    told += 1
                except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                    pass
        return told

    async def run(self, listeners: list[trio.SocketListener] | Any, secret: bytes,
                  task_status=trio.TASK_STATUS_IGNORED, listen: Listen = _no_listen) -> Setup:
        """Serve the lobby until every seat has signed; the listeners are closed afterwards.
        `listeners` may be a relay Endpoint (node/net/relay.py) instead; `listen` is awaited
        before the start goes out (see `Listen`)."""
        self.relayed = not isinstance(listeners, list)
        async with trio.open_nursery() as nursery:
            if self.relayed:
                await nursery.start(listeners.serve, self._welcome_link)
            else:
                self.port = listeners[0].socket.getsockname()[1]
                nursery.start_soon(trio.serve_listeners, self._welcome, listeners)
            task_status.started(self.port)
            await self.full.wait()
            try:
                setup = await self._sign(secret, listen)
            finally:
                self.done.set()
                nursery.cancel_scope.cancel()
        return setup

    async def _sign(self, secret: bytes, listen: Listen) -> Setup:
        """The lobby is full: the seats, the tips, the body, every signature, the start (the
        core checks each answer; a bad one names the key)."""
        core = self.core
        try:
            seated = core.begin(secret, os.urandom(16))
            for j, _ in seated:
                await j.idle.wait()          # its welcome task no longer reads the stream
            for j, frame in seated:
                await j.conn.send(frame)
            for j, _ in seated:
                core.take_tip(j, (await _expect(j.conn, "tip")).get("tip"))
            for j, frame in core.sign_frames():
                await j.conn.send(frame)
            for j, _ in seated:
                core.take_signature(j, (await _expect(j.conn, "signature")).get("sig"))
            raw, gid = core.genesis(), core.game_id
            await listen(gid)
            setup = Setup(raw, gid, 0, secret,
                          {seat: (j.host, j.port) for seat, (j, _) in enumerate(seated, start=1)}, core.names(),
                          self.spectators, spectators_chat=self.spectators_chat)
            if self.before_start is not None:
                self.before_start(setup)
            start = core.start_frame(raw)
            for j, _ in seated:
                await j.conn.send(start)
            setup.watchers = await self._tell_watchers(gid)
        except HostRefused as exc:
            raise LobbyError(str(exc)) from None
        except (FrameError, trio.TooSlowError, trio.BrokenResourceError, trio.ClosedResourceError, OSError) as exc:
            raise LobbyError(f"a player dropped out while the genesis was signed: {exc}") from None
        return setup


async def _gone(conn: Connection) -> bool:
    """Wait for a seated joiner, who sends nothing until the lobby is full, to leave: True
    when its link closes or breaks (the host frees its seat), False if it sends a frame."""
    try:
        return await conn.recv() is None
    except (FrameError, trio.BrokenResourceError, trio.ClosedResourceError, OSError):
        return True


async def _first_frame(conn: Connection, where: str) -> dict:
    """The lobby's greeting on a LAN (it is not trusted, only the sealed one after the
    handshake is), or a LobbyError saying what answered instead."""
    not_lobby = f"{where} is not a Caravan lobby"
    try:
        with trio.fail_after(10):
            frame = await conn.recv()
    except trio.TooSlowError:
        raise LobbyError(f"{not_lobby}: it accepted the connection but sent nothing for 10 s") from None
    except FrameError as exc:
        raise LobbyError(f"{not_lobby}: it answered with something else ({exc})") from None
    if frame is None:
        raise LobbyError(f"{not_lobby}: it closed the connection without a word (a lobby that just filled up "
                         "or closed does that too)")
    return _advert(frame, where)


def _advert(frame: Any, where: str) -> dict:
    """A lobby's advert, or a LobbyError saying what was sent instead (protocol/seat/joiner.py)."""
    try:
        return advert(frame, where)
    except JoinRefused as exc:
        raise LobbyError(str(exc)) from None


HANDSHAKE_TRIES = 4
"""A joiner's handshake that times out or breaks (a slow or busy host) is tried again on a
fresh connection, this many times in all, with a growing pause."""


async def open_tcp(host: str, port: int, where: str) -> Connection:
    try:
        with trio.fail_after(10):
            stream = await trio.open_tcp_stream(host, port)
    except trio.TooSlowError:
        raise LobbyError(f"cannot reach {where}: timed out after 10 s") from None
    except OSError as exc:
        causes = exc.__cause__.exceptions if isinstance(exc.__cause__, BaseExceptionGroup) else [exc.__cause__]
        refused = any(isinstance(e, ConnectionRefusedError) for e in [exc, *causes])
        why = "connection refused (nothing listens on that port)" if refused else str(exc)
        raise LobbyError(f"cannot reach {where}: {why}") from None
    return Connection(stream, where)


async def decline(key: SigningKey, host: str, port: int, expect_game: str, name: str = "",
                  host_pin: bytes | None = None) -> None:
    """Tell the host's new lobby (Play again) "not this time": it names who declined. With
    `host_pin` (the last game's host), a lobby of any other host is told nothing."""
    where = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    conn, _, _ = await _enter(key, host, port, expect_game, host_pin=host_pin)
    try:
        await conn.send({"t": "decline", "name": clean_name(name)})
        answer = await _expect(conn, "noted", also=("refused",))
        if answer["t"] == "refused":
            raise LobbyError(f"the host refused: {answer.get('why')}")
    except (FrameError, trio.TooSlowError, trio.BrokenResourceError, trio.ClosedResourceError, OSError) as exc:
        raise LobbyError(f"lobby at {where} failed: {str(exc) or type(exc).__name__}") from None
    finally:
        await conn.aclose()


async def _relayed_handshake(relay: Any, key: SigningKey, lobby_id: str, host_pin: bytes, join_timeout: float,
                             on_status: Callable[[str], None]) -> tuple[Connection, bytes]:
    """A sealed link to the lobby host through the broker: (link, host key). This side's
    hello goes out right behind the open, so the host reads both together and the link is
    proven before a flood's newer links can evict it. While nobody answers, asked again with a
    growing pause (JOIN_RETRY) and patience (JOIN_PATIENCE), saying so, for up to
    `join_timeout` seconds: a host behind a flood or a reconnect answers late."""
    inbox = pin_inbox(host_pin)
    deadline = trio.current_time() + join_timeout
    pause, patience, tries = JOIN_RETRY[0], JOIN_PATIENCE[0], 0
    while True:
        tries += 1
        left = deadline - trio.current_time()
        try:
            conn = await relay.open(inbox, accept_within=max(0.1, min(patience, left)))
        except OSError as exc:                       # the broker is not reachable now
            why = str(exc)
        else:
            try:
                return conn, await handshake(conn, key, bytes.fromhex(lobby_id), dialer=True, expect=host_pin,
                                             timeout=max(LOBBY_TIMEOUT, left))
            except (HandshakeError, FrameError) as exc:
                await conn.aclose()
                if conn.accepted.is_set():
                    raise                            # it answered, then failed: `_enter` tries again
                why = str(exc)
            except BaseException:
                await conn.aclose()
                raise
        left = deadline - trio.current_time()
        if left <= pause:
            raise LobbyError(f"no lobby answered in {join_timeout:.0f} s ({tries} {'try' if tries == 1 else 'tries'}; "
                             f"last: {why}); "
                             "is the host still there? (--join-timeout SECONDS waits longer)")
        on_status(f"waiting for the lobby's host (inbox {inbox}) to answer through the broker: "
                  f"asking again in {pause:.0f} s, giving up in {left:.0f} s")
        await trio.sleep(pause)
        pause, patience = min(pause * 2, JOIN_RETRY[1]), min(patience * 2, JOIN_PATIENCE[1])


async def _enter(key: SigningKey, host: str, port: int, expect_game: str | None, relay: Any = None,
                 host_pin: bytes | None = None, lobby_id: str | None = None, *,
                 join_timeout: float = JOIN_TIMEOUT,
                 on_status: Callable[[str], None] = lambda s: None) -> tuple[Connection, dict, bytes]:
    """Connect (over TCP, or through `relay`, an Endpoint dialing the inbox of the host's key
    in lobby `lobby_id`), run the handshake (refusing any host key but `host_pin`'s, when
    given; on a LAN after the lobby's unsealed advert, which says what answered) and read the
    sealed advert: (connection, advert, host key)."""
    where = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    for attempt in range(1, HANDSHAKE_TRIES + 1):
        conn: Connection | None = None
        try:
            if relay is None:
                conn = await open_tcp(host, port, where)
                info = await _first_frame(conn, where)
                advertised = info.get("lobby")
                if type(advertised) is not str:
                    raise LobbyError("the lobby sent no id")
                host_key = await handshake(conn, key, bytes.fromhex(advertised), dialer=True)
            else:
                advertised = lobby_id
                conn, host_key = await _relayed_handshake(relay, key, lobby_id, host_pin, join_timeout, on_status)
            why = host_key_problem(host_key, host_pin)
            if why:
                raise LobbyError(why)
            with trio.fail_after(LOBBY_TIMEOUT):
                info = await conn.recv()
            try:
                info = sealed_advert(info, host_key, host_pin, advertised, expect_game, where)
            except JoinRefused as exc:
                raise LobbyError(str(exc)) from None
            return conn, info, host_key
        except (HandshakeError, FrameError, trio.TooSlowError, trio.BrokenResourceError,
                trio.ClosedResourceError, OSError, ValueError) as exc:
            if conn is not None:
                await conn.aclose()
            if attempt == HANDSHAKE_TRIES:
                raise LobbyError(f"lobby failed: {exc}") from None
            log.warning("lobby at %s: handshake failed (%s); trying again (%d/%d)", where, exc,
                        attempt + 1, HANDSHAKE_TRIES)
            await trio.sleep(0.5 * attempt)
        except BaseException:
            if conn is not None:
                await conn.aclose()
            raise
    raise AssertionError("unreachable")


async def join(key: SigningKey, host: str, port: int, my_port: int, secret: bytes,
               on_status: Callable[[str], None] = lambda s: None, expect_game: str | None = None,
               name: str = "", relay: Any = None, host_pin: bytes | None = None,
               join_timeout: float = JOIN_TIMEOUT, listen: Listen = _no_listen,
               prepare: Callable[[bytes, int], None] | None = None,
               on_advert: Callable[[dict], None] | None = None,
               on_seats: Callable[[list[dict[str, Any]]], None] | None = None) -> Setup:
    """Take a seat in the lobby at host:port (or through `relay`, an Endpoint in the lobby,
    whose host's key pin `host_pin` must then be given, asking again for up to `join_timeout`
    seconds while nobody answers); returns the Setup once the genesis is signed. With
    `host_pin`, no other key is accepted as the host. `listen` is awaited before this node's
    signature goes out (see `Listen`), and `prepare(body, seat)` called: the node stores what it
    needs to take its seat back should it die before the signed genesis arrives."""
    where = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    if relay is not None and host_pin is None:
        raise LobbyError("a lobby through a broker is joined only with its host's key (the invite has it)")
    conn, info, host_key = await _enter(key, host, port, expect_game, relay, host_pin,
                                        relay.scope if relay is not None else None,
                                        join_timeout=join_timeout, on_status=on_status)
    joiner = Joiner(key, secret, info, host_key, answer_timeout=LOBBY_TIMEOUT)
    try:
        lobby_id = info["lobby"]
        if on_advert is not None:                    # what a page shows while waiting: the game, its options
            on_advert(info)
        for frame in joiner.start(trio.current_time(), my_port, name):
            await conn.send(frame)
        pace = advert_pace(info)
        on_status(f"joined lobby {lobby_id[:8]} for {info.get('title')} "
                  f"({info.get('seated', 0) + 1}/{info.get('players')} seated{'; ' + pace if pace else ''}); "
                  "waiting for players")
        while joiner.state != READY:                 # the seats, then a seat, then the body to sign
            with trio.fail_at(joiner.deadline):
                frame = await conn.recv()
            for out in joiner.feed(frame, trio.current_time()):
                await conn.send(out)
            if (on_seats is not None and type(frame) is dict and frame.get("t") == "seats"
                    and seats_shape_ok(frame.get("seats"))):
                on_seats(list(joiner.seats))         # who sits where now: for the page and a status line
        await listen(joiner.game_id)
        if prepare is not None:
            prepare(joiner.body, joiner.seat)
        await conn.send(joiner.signature(trio.current_time()))
        with trio.fail_at(joiner.deadline):
            frame = await conn.recv()
        joiner.feed(frame, trio.current_time())
        joined = joiner.joined
        assert joined is not None
        start, seat = joined.start, joined.seat
        peers: dict[int, tuple[str, int]] = {}
        for s, addr in enumerate(start.get("peers") or []):
            if s == seat or relay is not None:       # relayed games dial keys, not addresses
                continue
            peers[s] = (host, port) if addr is None else (str(addr[0]), int(addr[1]))
        watched = start.get("spectators", relay is None) is True
        return Setup(joined.genesis_raw, joined.game_id, seat, secret, peers, joined.names, watched,
                     spectators_chat=watched and start.get("spectators_chat", True) is True)
    except JoinRefused as exc:
        raise LobbyError(f"lobby at {where} failed: {exc}" if exc.wrapped else str(exc)) from None
    except (FrameError, HandshakeError, trio.TooSlowError, trio.BrokenResourceError, trio.ClosedResourceError,
            OSError, G.BadGenesis, KeyError, TypeError, ValueError) as exc:
        hint = " (a different Caravan version?)" if isinstance(exc, HandshakeError) else ""
        raise LobbyError(f"lobby at {where} failed: {str(exc) or type(exc).__name__}{hint}") from None
    finally:
        await conn.aclose()
