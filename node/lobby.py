"""The lobby: a host opens a game, joiners take seats, and everyone signs the genesis.

The host only gathers keys and beacon tips and relays the genesis for signing; each
joiner checks the body (its own key and tip at its seat, the advertised game and
options) before it signs. After the genesis the host is a peer like any other.

Frames (after the mutual handshake bound to the lobby id):
host -> joiner: {"t": "lobby", ...} before the handshake; {"t": "seated", "seat", "nonce",
"players", "beacon_length"}; {"t": "sign", "body"}; {"t": "start", "genesis", "peers"};
{"t": "refused", "why"}. joiner -> host: {"t": "join", "port"}; {"t": "tip", "tip"};
{"t": "signature", "sig"}.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass, field
from typing import Any, Callable

import trio

from protocol import games, genesis as G
from protocol.identity import SigningKey, fingerprint, verify
from protocol.player import beacon_chain

from .frames import Connection, FrameError
from .handshake import HandshakeError, handshake

log = logging.getLogger("caravan.lobby")

BEACON_LENGTH = 8192
LOBBY_TIMEOUT = 30.0
"""A joiner must answer each lobby request (tip, signature) within this many seconds."""


class LobbyError(Exception):
    pass


@dataclass
class Setup:
    """What a node needs to start playing once the genesis is signed."""
    genesis_raw: bytes
    game_id: bytes
    seat: int
    secret: bytes
    peers: dict[int, tuple[str, int]]


@dataclass
class _Joiner:
    conn: Connection
    key: bytes
    host: str
    port: int
    waiting: trio.CancelScope = field(default_factory=trio.CancelScope)
    idle: trio.Event = field(default_factory=trio.Event)


def _peer_host(stream: Any) -> str:
    try:
        return stream.socket.getpeername()[0]
    except (OSError, AttributeError):
        return "?"


async def _expect(conn: Connection, kind: str, timeout: float = LOBBY_TIMEOUT) -> dict:
    with trio.fail_after(timeout):
        frame = await conn.recv()
    if type(frame) is not dict or frame.get("t") != kind:
        got = frame.get("t") if type(frame) is dict else type(frame).__name__
        raise LobbyError(f"expected {kind!r}, got {got!r}")
    return frame


class Lobby:
    """The host's side. `run` returns the Setup once every seat has signed."""

    def __init__(self, key: SigningKey, game: str, players: int, options: dict[str, Any],
                 on_status: Callable[[str], None] = lambda s: None, time_limit: int = 0):
        engine = games.get(game)
        if not engine.min_players <= players <= engine.max_players:
            raise LobbyError(f"{engine.title} is for {engine.min_players}-{engine.max_players} players")
        engine.new_game(options, players)          # BadOptions now, not after everyone joined
        self.key, self.game, self.players, self.options = key, game, players, options
        self.time_limit = time_limit
        self.title = engine.title
        self.lobby_id = os.urandom(16)
        self.joiners: list[_Joiner] = []
        self.full = trio.Event()
        self.done = trio.Event()
        self.on_status = on_status
        self.port = 0

    def status(self) -> dict[str, Any]:
        return {"lobby": self.lobby_id.hex(), "game": self.game, "title": self.title,
                "players": self.players, "seated": 1 + len(self.joiners), "port": self.port}

    async def _welcome(self, stream: trio.SocketStream) -> None:
        conn = Connection(stream, _peer_host(stream))
        try:
            await conn.send({"t": "lobby", **self.status(), "options": self.options,
                             "time_limit": self.time_limit})
            peer = await handshake(conn, self.key, self.lobby_id)
            join = await _expect(conn, "join")
            port = join.get("port")
            if type(port) is not int or not 0 < port < 65536:
                raise LobbyError("join without a valid port")
            if self.full.is_set():
                await conn.send({"t": "refused", "why": "the lobby is full"})
                raise LobbyError("lobby full")
            if peer == self.key.public or any(j.key == peer for j in self.joiners):
                await conn.send({"t": "refused", "why": "this key already holds a seat"})
                raise LobbyError("key already seated")
            joiner = _Joiner(conn, peer, conn.address, port)
            self.joiners.append(joiner)
            self.on_status(f"{fingerprint(peer)} joined from {conn.address} "
                           f"({1 + len(self.joiners)}/{self.players} seated)")
            if 1 + len(self.joiners) == self.players:
                self.full.set()
                for j in self.joiners:
                    j.waiting.cancel()
            # notice a joiner who leaves before the lobby is full (the joiner sends nothing now)
            with joiner.waiting:
                if await conn.stream.receive_some(1) == b"":
                    self.joiners.remove(joiner)
                    self.on_status(f"{fingerprint(peer)} left ({1 + len(self.joiners)}/{self.players})")
                    await conn.aclose()
                    return
            joiner.idle.set()
            await self.done.wait()       # the stream closes when this handler returns
        except (LobbyError, HandshakeError, FrameError, trio.TooSlowError, trio.BrokenResourceError,
                trio.ClosedResourceError, OSError) as exc:
            log.warning("lobby: %s dropped: %s", conn.address, exc)
            await conn.aclose()

    async def run(self, listeners: list[trio.SocketListener], secret: bytes,
                  task_status=trio.TASK_STATUS_IGNORED) -> Setup:
        """Serve the lobby until every seat has signed; the listeners are closed afterwards."""
        self.port = listeners[0].socket.getsockname()[1]
        async with trio.open_nursery() as nursery:
            nursery.start_soon(trio.serve_listeners, self._welcome, listeners)
            task_status.started(self.port)
            await self.full.wait()
            try:
                setup = await self._sign(secret)
            finally:
                self.done.set()
                nursery.cancel_scope.cancel()
        return setup

    async def _sign(self, secret: bytes) -> Setup:
        nonce = os.urandom(16)
        joiners = list(self.joiners)
        for j in joiners:
            await j.idle.wait()          # its welcome task no longer reads the stream
        keys = [self.key.public] + [j.key for j in joiners]
        tips = [beacon_chain(secret, nonce, 0, BEACON_LENGTH)[0]]
        try:
            for seat, j in enumerate(joiners, start=1):
                await j.conn.send({"t": "seated", "seat": seat, "nonce": nonce, "players": self.players,
                                   "beacon_length": BEACON_LENGTH})
            for j in joiners:
                tip = (await _expect(j.conn, "tip")).get("tip")
                if type(tip) is not bytes or len(tip) != 32:
                    raise LobbyError(f"{fingerprint(j.key)} sent no valid beacon tip")
                tips.append(tip)
            body = G.make_body(self.game, self.options, keys, tips, nonce, BEACON_LENGTH, self.time_limit)
            gid = G.game_id_of(body)
            sigs = [G.sign(self.key, body)]
            for j in joiners:
                await j.conn.send({"t": "sign", "body": body})
            for j in joiners:
                sig = (await _expect(j.conn, "signature")).get("sig")
                if type(sig) is not bytes or not verify(j.key, sig, b"caravan/genesis-sig/v1" + gid):
                    raise LobbyError(f"{fingerprint(j.key)} did not sign the genesis")
                sigs.append(sig)
            raw = G.Genesis(self.game, self.options, keys, tips, BEACON_LENGTH, nonce, body, sigs,
                            self.time_limit).to_wire()
            G.parse(raw)
            peers = [None] + [[j.host, j.port] for j in joiners]
            for j in joiners:
                await j.conn.send({"t": "start", "genesis": raw, "peers": peers})
        except (FrameError, trio.TooSlowError, trio.BrokenResourceError, trio.ClosedResourceError, OSError) as exc:
            raise LobbyError(f"a player dropped out while the genesis was signed: {exc}") from None
        return Setup(raw, gid, 0, secret,
                     {seat: (j.host, j.port) for seat, j in enumerate(joiners, start=1)})


HANDSHAKE_TRIES = 4
"""A joiner's handshake that times out or breaks (a slow or busy host) is tried again on a
fresh connection, this many times in all, with a growing pause."""


async def _enter(key: SigningKey, host: str, port: int, expect_game: str | None
                 ) -> tuple[Connection, dict, bytes]:
    """Connect, read the lobby's advert and run the handshake: (connection, advert, host key)."""
    for attempt in range(1, HANDSHAKE_TRIES + 1):
        try:
            with trio.fail_after(10):
                stream = await trio.open_tcp_stream(host, port)
        except (OSError, trio.TooSlowError) as exc:
            raise LobbyError(f"cannot reach a lobby at {host}:{port}: {exc}") from None
        conn = Connection(stream, f"{host}:{port}")
        try:
            with trio.fail_after(10):
                info = await conn.recv()
            if type(info) is dict and info.get("t") == "hello":
                raise LobbyError(f"{host}:{port} is a game in progress, not a lobby; to continue a game you "
                                 "are seated in, run: caravan resume GAME_ID")
            if type(info) is not dict or info.get("t") != "lobby":
                raise LobbyError(f"{host}:{port} is not a Caravan lobby")
            if expect_game and info.get("game") != expect_game:
                raise LobbyError(f"the lobby is for {info.get('game')!r}, not {expect_game!r}")
            lobby_id = info.get("lobby")
            if type(lobby_id) is not str:
                raise LobbyError("the lobby sent no id")
            host_key = await handshake(conn, key, bytes.fromhex(lobby_id))
            return conn, info, host_key
        except (HandshakeError, FrameError, trio.TooSlowError, trio.BrokenResourceError,
                trio.ClosedResourceError, OSError, ValueError) as exc:
            await conn.aclose()
            if attempt == HANDSHAKE_TRIES:
                raise LobbyError(f"lobby failed: {exc}") from None
            log.warning("lobby at %s:%d: handshake failed (%s); trying again (%d/%d)", host, port, exc,
                        attempt + 1, HANDSHAKE_TRIES)
            await trio.sleep(0.5 * attempt)
        except BaseException:
            await conn.aclose()
            raise
    raise AssertionError("unreachable")


async def join(key: SigningKey, host: str, port: int, my_port: int, secret: bytes,
               on_status: Callable[[str], None] = lambda s: None, expect_game: str | None = None) -> Setup:
    """Take a seat in the lobby at host:port; returns the Setup once the genesis is signed."""
    conn, info, host_key = await _enter(key, host, port, expect_game)
    try:
        lobby_id = info["lobby"]
        await conn.send({"t": "join", "port": my_port})
        on_status(f"joined lobby {lobby_id[:8]} for {info.get('title')} "
                  f"({info.get('seated', 0) + 1}/{info.get('players')} seated); waiting for players")
        with trio.fail_after(24 * 3600):
            frame = await conn.recv()
        if type(frame) is dict and frame.get("t") == "refused":
            raise LobbyError(f"the host refused: {frame.get('why')}")
        if type(frame) is not dict or frame.get("t") != "seated":
            raise LobbyError("the host sent no seat")
        seat, nonce, length = frame.get("seat"), frame.get("nonce"), frame.get("beacon_length")
        if type(seat) is not int or type(nonce) is not bytes or type(length) is not int or not 0 < length <= 1 << 16:
            raise LobbyError("malformed seat assignment")
        tip = beacon_chain(secret, nonce, seat, length)[0]
        await conn.send({"t": "tip", "tip": tip})
        body = (await _expect(conn, "sign")).get("body")
        try:
            fields = G.wire.decode(body)
        except Exception:
            raise LobbyError("the genesis body does not decode") from None
        if (type(fields) is not dict or fields.get("game") != info.get("game")
                or fields.get("options") != info.get("options")
                or fields.get("time_limit") != info.get("time_limit")
                or not isinstance(fields.get("seats"), list) or len(fields["seats"]) <= seat
                or fields["seats"][seat] != key.public or fields["beacon"][seat] != tip
                or fields["seats"][0] != host_key or fields.get("nonce") != nonce):
            raise LobbyError("the genesis offered for signing is not the advertised game with my seat")
        await conn.send({"t": "signature", "sig": G.sign(key, body)})
        start = await _expect(conn, "start")
        genesis = G.parse(start["genesis"])
        if genesis.body != body:
            raise LobbyError("the host started a different genesis than the one signed")
        peers: dict[int, tuple[str, int]] = {}
        for s, addr in enumerate(start.get("peers") or []):
            if s == seat:
                continue
            peers[s] = (host, port) if addr is None else (str(addr[0]), int(addr[1]))
        return Setup(start["genesis"], genesis.game_id, seat, secret, peers)
    except (FrameError, HandshakeError, trio.TooSlowError, trio.BrokenResourceError, trio.ClosedResourceError,
            OSError, G.BadGenesis, KeyError, TypeError, ValueError) as exc:
        raise LobbyError(f"lobby failed: {exc}") from None
    finally:
        await conn.aclose()
