"""The application's operations, the same for the command line and the home: host a table,
join one, resume a stored game, play it again (or decline to), forget it, watch one as a
spectator. Each takes a Seat (node/app/runner.py: how this node decides and where it lives) or
plain values, and says what happens through its status; the CLI (node/cli/main.py) only turns
arguments into these calls and prints, the home (node/pages/home_tables.py) runs them as tables."""

from __future__ import annotations

import errno
import os
import secrets
from functools import partial
from pathlib import Path
from typing import Any, Awaitable, Callable

import trio

from protocol import games, genesis as G, wire
from protocol.link.relay_url import tab_link

from ..net import discovery, mdns
from . import lobby, mail_lobby
from ..storage import seat_memory
from .bots import keep_bots, pause_with_me, resume_bots, start_bots, wait_for_bots
from .game import fetch_genesis
from ..net.handshake import key_pin
from .runner import Seat, open_client_port, open_web, play, store_genesis
from ..storage.store import GameStore, load_identity


def recall(data_dir: Path, game_prefix: str) -> tuple[str, dict[str, Any]]:
    """A stored game's full id and how its seat decided (seat_memory), from (a prefix of) its id
    (or a turn-based lobby's through the broker: its id, while its game has not started here)."""
    try:
        store = GameStore.find(data_dir, game_prefix)
    except LookupError:
        pending = mail_lobby.find(data_dir, game_prefix)
        if pending is None:
            raise
        return pending.name, seat_memory.recall(pending)
    return store.dir.name, seat_memory.recall(store.dir)


def forget(data_dir: Path, game_id: str) -> Path:
    """Move a stored game's folder to the trash folder (nothing is deleted)."""
    source = data_dir / "games" / game_id
    if not source.is_dir() or "/" in game_id or game_id.startswith("."):
        raise LookupError(f"no stored game {game_id[:16]}")
    trash = data_dir / "trash"
    trash.mkdir(exist_ok=True)
    target = trash / game_id
    if target.exists():
        target = trash / f"{game_id}.{os.getpid()}.{secrets.token_hex(2)}"
    source.rename(target)
    return target


def resume_can_help(data_dir: Path, game_id: str, exc: BaseException) -> bool:
    """Whether `caravan resume` can continue the game this error stopped: not when resuming
    would meet the same error (the exception says so), nor when the game's folder lacks its
    genesis or this seat's secrets (only a copy or a backup brings them back, and the error
    already says which), nor when its transcript says the game is over (finished or
    abandoned)."""
    from protocol.verify import verify_bytes

    if not getattr(exc, "resumable", True):
        return False
    folder = data_dir / "games" / game_id
    if not (folder / "genesis.bin").is_file() or not (folder / "secrets.bin").is_file():
        return False
    try:
        report = verify_bytes((folder / "transcript.caravan").read_bytes())
    except OSError:
        return True                                      # no transcript yet: the game goes on
    return not (report.ok or (report.valid and report.abandoned_by))


async def find_lobby(name: str | None, purpose: str, say: Callable[..., None],
                     port: int = discovery.DISCOVERY_PORT, bind: str = "0.0.0.0", wait: float = 5.0,
                     via: str = "both") -> tuple[str, int]:
    """The address of the lobby on the LAN whose id starts with `name` (None: the only one)."""
    say(f"looking for lobbies on the LAN ({via}: UDP port {port}{', mDNS' if via != 'udp' and mdns.available() else ''})...")
    try:
        found = await discovery.find_one(name, purpose, wait, port, bind, via)
    except LookupError as exc:
        raise lobby.LobbyError(str(exc)) from None
    return found.host, found.port


async def watch(target: str | None, data_dir: Path, say: Callable[..., None], show: Any = None,
                out: Path | None = None, relay_auth: str | None = None, serve: tuple[str, int] | None = None,
                web_port: int = 0, open_page: Callable[[str], None] | None = None,
                lan: tuple[int, str, float, str] = (discovery.DISCOVERY_PORT, "0.0.0.0", 3.0, "both")) -> int:
    """Watch a game as a spectator (node/app/watch.py) until it ends: on `show` (None: the table
    page in spectator mode, served on `web_port` and given to `open_page`); a target that is
    no address is a lobby found on the LAN (`lan`: discovery port, bind, wait, via). The exit
    code: 0 when the transcript verifies."""
    from . import watch as watching

    async with trio.open_nursery() as nursery:
        if show is None:
            show = watching.Page(await watching.serve_page(nursery, say, web_port, open_page))
        if not target or ":" not in target:
            port, bind, wait, via = lan
            host, found = await find_lobby(target, "watch", say, port, bind, wait, via)
            target = f"[{host}]:{found}" if ":" in host else f"{host}:{found}"
        code = await watching.watch(target, data_dir, out, show, say, relay_auth, serve)
        nursery.cancel_scope.cancel()
    return code


async def _serving_page(seat: Seat, run) -> dict[str, Any] | None:
    """--client web: serve the page for the whole of host/join (the lobby first, then the game)."""
    async with trio.open_nursery() as nursery:
        await open_web(seat, nursery)
        result = await run()
        nursery.cancel_scope.cancel()
    return result


def _prepare(seat: Seat, secret: bytes, host: tuple[str, int] | None) -> Callable[[bytes, int], None]:
    """A joiner's `prepare` (lobby.join): before its genesis signature leaves it, store (fsync'd)
    the body it signs, its secrets, how it decides and the host's address, so that `caravan
    resume` can take the signed genesis back from the others should it die before storing it."""
    def prepare(body: bytes, seat_no: int) -> None:
        peers: dict[str, Any] = {"peers": {"0": list(host)} if host else {}, "port": seat.port}
        if seat.relay is not None:
            peers["relay"] = seat.relay.with_credentials()
        store = GameStore.prepare(seat.data_dir, body, G.game_id_of(body),
                                  {"secret": secret, "committed": wire.encode([]), "seat": seat_no}, peers)
        seat_memory.remember(store.dir, seat)
    return prepare


async def _take_genesis_back(store: GameStore, seat: Seat, peers: dict[str, Any]) -> None:
    """A seat that signed the genesis but died before storing it (only its prepared store is
    there): fetch the signed genesis from another seat's node, check it is the body it signed,
    and store it with the addresses that node knows."""
    body = store.signed_body()
    seat.status(f"game {store.dir.name[:16]}: this seat signed the genesis but did not store it; asking the "
                "other seats' nodes for it" + (" through the broker" if seat.relay else ""), "resume")
    known = {int(k): (str(v[0]), int(v[1])) for k, v in (peers.get("peers") or {}).items()}
    key = load_identity(seat.data_dir)
    try:
        if seat.relay is not None:
            from ..net import relay as relay_mod
            scope = bytes.fromhex(store.dir.name)
            async with relay_mod.connect(seat.relay, key.public, scopes=[scope]) as opened:
                raw, found = await fetch_genesis(key, body, known, relay=opened.endpoint(scope))
        else:
            raw, found = await fetch_genesis(key, body, known)
    except LookupError as exc:
        raise lobby.LobbyError(f"{store.dir / 'genesis.bin'} is missing (this seat stopped right after signing "
                               f"it) and {exc}; caravan resume {store.dir.name[:16]} asks again") from None
    mine = int(store.secrets().get("seat", -1))
    peers["peers"] = {str(s): list(a) for s, a in sorted({**found, **known}.items()) if s != mine}
    store.save_peers(peers)
    store.save_genesis(raw)


def _pace_note(the_lobby: lobby.Lobby) -> str:
    """" (turn-based, 24 h per move)" in a turn-based lobby's first line; nothing for a live one."""
    return f" ({G.pace_text(the_lobby.pace, the_lobby.time_limit)})" if the_lobby.pace != G.LIVE else ""


async def host(game: str, players: int, options: dict[str, Any], seat: Seat, announce: bool = True,
               time_limit: int = 0, bots: list[str] = (),
               discovery_target: str = discovery.BROADCAST, discovery_port: int = discovery.DISCOVERY_PORT,
               task_status=trio.TASK_STATUS_IGNORED, friends: frozenset[bytes] = frozenset(),
               pace: str = G.LIVE) -> dict[str, Any] | None:
    """Host a lobby, then play. `friends`: the seats of the game this one plays again (only
    they may decline it). `pace`: live, or turn-based (then `time_limit` is the time per move)."""
    if seat.client == "web" and seat.web_client is None:
        return await _serving_page(seat, partial(host, game, players, options, seat, announce, time_limit, bots,
                                                 discovery_target, discovery_port, task_status=task_status,
                                                 friends=friends, pace=pace))
    key = load_identity(seat.data_dir)
    seat.role = "host"
    if seat.client and seat.client.startswith("tcp:"):
        await open_client_port(seat)
    watchable = seat.spectators if seat.spectators is not None else seat.relay is None
    the_lobby = lobby.Lobby(key, game, players, options, seat.status, time_limit, seat.name or "", watchable,
                            friends, seat.spectators_chat, pace)
    the_lobby.before_start = partial(store_genesis, seat)     # before the start (and its signature) leaves
    seat.lobby = the_lobby
    if seat.relay is not None and pace == G.TURN_BASED and not bots:
        return await _by_mail(await mail_lobby.host(the_lobby, seat), seat)
    if seat.relay is not None:
        return await _host_relayed(the_lobby, seat, bots, task_status)
    listeners = await trio.open_tcp_listeners(seat.port, host=seat.bind)
    port = listeners[0].socket.getsockname()[1]
    seat.port = port
    seat.status(f"hosting {the_lobby.title} for {players} players{_pace_note(the_lobby)}: lobby {the_lobby.lobby_id.hex()[:8]} on port {port}",
                "lobby", lobby=the_lobby.lobby_id.hex(), port=port, host_key=the_lobby.pin.hex())
    pin = the_lobby.pin.hex()
    hosts = mdns.addresses(seat.bind) if mdns.available() else ["HOST"]     # this machine's LAN addresses
    seat.status(f"others join with:  caravan join {the_lobby.lobby_id.hex()[:8]}/{pin}   "
                f"(or: {' or '.join(f'caravan join {h}:{port}/{pin}' for h in hosts[:3])})", "hint")
    seat.status(f"seats: {the_lobby.seats_text()}", "lobby_seats")
    secret = os.urandom(32)
    the_lobby.port = port
    announcer = None
    if announce and mdns.available():
        try:
            announcer = await trio.to_thread.run_sync(mdns.Announcer, the_lobby.status(), seat.bind)
        except Exception as exc:                  # zeroconf raises its own types too
            seat.status(f"no mDNS announcement ({exc}); the UDP beacon still runs", "warning")
    helpers = start_bots(list(bots), port, seat) if bots else []
    the_lobby.places = dict(seat.bot_places)
    if helpers:
        seat.status(f"{len(helpers)} bot(s) joining: {', '.join(bots)}", "bots")
    async with keep_bots(helpers, seat):
        try:
            async with trio.open_nursery() as nursery:
                if announce:
                    nursery.start_soon(discovery.announce, lambda: {**the_lobby.status(), "player": the_lobby.name},
                                       discovery_target, discovery_port)
                task_status.started(port)
                setup = await the_lobby.run(listeners, secret)
                nursery.cancel_scope.cancel()
        finally:
            if announcer is not None:                 # say goodbye over mDNS even when interrupted
                with trio.CancelScope(shield=True), trio.move_on_after(3):
                    await trio.to_thread.run_sync(announcer.close, abandon_on_cancel=True)
        seat.status("every seat signed the genesis; play starts", "genesis", game_id=setup.game_id.hex())
        listeners = await trio.open_tcp_listeners(port, host=seat.bind)     # the lobby closed its own
        result = await play(setup, seat, listeners)
    return result


async def _host_relayed(the_lobby: lobby.Lobby, seat: Seat, bots: list[str], task_status) -> dict[str, Any] | None:
    """`host --relay URL`: the lobby and then the game through the broker; prints the invite."""
    from ..net import relay as relay_mod

    # two connections to the broker: the lobby's takes only the lobby's small frames and
    # scope (a flood of big junk at the host's inbox is dropped by the broker) and closes
    # with the lobby; the game's, opened now and listening from just before the start,
    # takes the game's
    async with relay_mod.connect(seat.relay, the_lobby.key.public, scopes=[]) as game_relay:
        async with relay_mod.connect(seat.relay, the_lobby.key.public, scopes=[the_lobby.lobby_id],
                                     max_frame=lobby.LOBBY_FRAME) as relay:
            endpoint = relay.endpoint(the_lobby.lobby_id)
            invite = the_lobby.invite(seat.relay)
            seat.status(f"hosting {the_lobby.title} for {the_lobby.players} players{_pace_note(the_lobby)}: lobby "
                        f"{the_lobby.lobby_id.hex()[:8]} through the broker {seat.relay}", "lobby",
                        lobby=the_lobby.lobby_id.hex(), port=None, relay=str(seat.relay),
                        host_key=the_lobby.pin.hex())
            seat.status(f"others join with:  caravan join {invite}", "invite", invite=invite)
            if seat.tab:
                link = tab_link(seat.tab, invite)
                seat.status(f"friends in a browser tab (a phone too) open:  {link}", "tab_link", link=link)
            relay.announce(the_lobby.lobby_id, {**the_lobby.status(), "port": None})
            helpers = start_bots(list(bots), invite, seat) if bots else []
            the_lobby.places = dict(seat.bot_places)
            if helpers:
                seat.status(f"{len(helpers)} bot(s) joining: {', '.join(bots)}", "bots")
            task_status.started(invite)
            with pause_with_me(helpers):
                try:
                    setup = await the_lobby.run(endpoint, os.urandom(32), listen=game_relay.listen)
                finally:
                    relay.clear(the_lobby.lobby_id)
                    endpoint.close()
        with pause_with_me(helpers):
            seat.status("every seat signed the genesis; play starts", "genesis", game_id=setup.game_id.hex())
            result = await play(setup, seat, None, relay=game_relay)
    await wait_for_bots(helpers)
    return result


async def join_relayed(invite: str, seat: Seat) -> dict[str, Any] | None:
    """`caravan join caravan+mqtt://HOST:PORT/LOBBY_ID`: the lobby, then the game, through the broker."""
    from ..net import relay as relay_mod
    from ..net.relay_url import parse_invite, with_auth

    parsed = parse_invite(invite)
    lobby_id = parsed.lobby
    seat.relay = seat.relay or with_auth(parsed.url, seat.relay_auth)
    key = load_identity(seat.data_dir)
    if seat.client and seat.client.startswith("tcp:"):
        await open_client_port(seat)
    scope, secret = bytes.fromhex(lobby_id), os.urandom(32)
    async with relay_mod.connect(seat.relay, key.public, scopes=[]) as game_relay:   # as _host_relayed
        async with relay_mod.connect(seat.relay, key.public, scopes=[scope], max_frame=lobby.LOBBY_FRAME) as relay:
            found = await relay.lookup(lobby_id)
            if mail_lobby.by_mail(found) is not None:     # a turn-based table: its lobby goes by mail too
                setup = await mail_lobby.join(found, parsed.host_pin, scope, seat)
                return await _by_mail(setup, seat)
            if found is None:
                seat.status(f"the broker {seat.relay} holds no announcement of lobby {lobby_id[:8]}; trying it "
                            "anyway", "warning")
            endpoint = relay.endpoint(scope)
            try:
                setup = await lobby.join(key, seat.relay.host, seat.relay.port, 0, secret, seat.status,
                                         name=seat.name or "", relay=endpoint, host_pin=parsed.host_pin,
                                         join_timeout=seat.join_timeout, listen=game_relay.listen,
                                         on_advert=partial(setattr, seat, "advert"),
                                         on_seats=partial(_seats_now, seat),
                                         prepare=_prepare(seat, secret, None))
            finally:
                endpoint.close()
        return await play(setup, seat, None, relay=game_relay)


async def _by_mail(setup: lobby.Setup | None, seat: Seat) -> dict[str, Any] | None:
    """After a run of a lobby by mail: play when the game started, else (idle) stop."""
    if setup is None:
        return {"idle": "lobby"}
    return await play(setup, seat, None)


async def join(target: str | None, seat: Seat, discovery_port: int = discovery.DISCOVERY_PORT,
               discovery_bind: str = "0.0.0.0", wait: float = 5.0, via: str = "both") -> dict[str, Any] | None:
    """Join by HOST:PORT, or by (a prefix of) a lobby id found by discovery, or the only lobby."""
    if seat.client == "web" and seat.web_client is None:
        return await _serving_page(seat, partial(join, target, seat, discovery_port, discovery_bind, wait, via))
    seat.role = "join"
    if target and target.startswith("caravan+"):
        return await join_relayed(target, seat)
    target, host_pin = lobby.split_host_key(target) if target else (target, None)
    if target and ":" in target:
        host_, _, port_s = target.rpartition(":")
        address = (host_.strip("[]"), int(port_s))
    else:
        address = await find_lobby(target, "join", seat.status, discovery_port, discovery_bind, wait, via)
    key = load_identity(seat.data_dir)
    if seat.client and seat.client.startswith("tcp:"):
        await open_client_port(seat)
    listeners = await trio.open_tcp_listeners(seat.port, host=seat.bind)
    seat.port = listeners[0].socket.getsockname()[1]
    secret = os.urandom(32)
    setup = await lobby.join(key, address[0], address[1], seat.port, secret, seat.status,
                             name=seat.name or "", host_pin=host_pin, prepare=_prepare(seat, secret, address),
                             on_advert=partial(setattr, seat, "advert"), on_seats=partial(_seats_now, seat))
    return await play(setup, seat, listeners)


def _seats_now(seat: Seat, seats: list[dict[str, Any]]) -> None:
    """A joiner waiting in a lobby: who sits where now (the home's lobby shows it live)."""
    seat.lobby_seats = seats
    taken = [f"seat {s['seat']} {s['name'] or ''}".rstrip() + (" (you)" if s["you"] else " (host)" if s["seat"] == 0 else "")
             for s in seats if s["taken"]]
    empty = [f"seat {s['seat']}" for s in seats if not s["taken"]]
    seat.status(f"seats now: {', '.join(taken)}" + (f"; empty: {', '.join(empty)}" if empty else ""), "lobby_seats",
                seats=seats)


async def resume(game_prefix: str, seat: Seat) -> dict[str, Any] | None:
    """Restart a stored game after a pause or a crash: replay, reconnect, resync, continue;
    the bot nodes seated with this person come back with it. A game that already ended
    (finished with its transcript, or abandoned) is said so in one line instead. A turn-based
    lobby through the broker (its id) runs on until its game starts, and then is that game."""
    pending = mail_lobby.find(seat.data_dir, game_prefix)
    if pending is not None:
        game_id = mail_lobby.started(pending)
        if game_id is None:
            return await _by_mail(await mail_lobby.resume(pending, seat), seat)
        game_prefix = game_id
    store = GameStore.find(seat.data_dir, game_prefix)
    signed_by_mail = None if store.exists() else mail_lobby.signed_in(seat.data_dir, store.dir.name)
    if signed_by_mail is not None:                  # its lobby by mail brings the signed genesis
        return await resume(signed_by_mail.name, seat)
    store.lock()                                    # before its port or broker is touched
    ended = _ended(store, seat)
    if ended is not None:
        return ended
    secrets = store.secrets()
    peers = store.peers()
    if seat.relay is None and peers.get("relay"):
        from ..net.relay_url import parse_relay_url, with_auth
        seat.relay = with_auth(parse_relay_url(peers["relay"]), seat.relay_auth)
    if not store.exists() and store.signed_body() is not None:
        await _take_genesis_back(store, seat, peers)
    asked_port = seat.port                          # --port given again: that one or nothing
    seat.port = seat.port or int(peers.get("port") or 0)
    known = peers.get("names") if isinstance(peers.get("names"), dict) else {}
    setup = lobby.Setup(store.genesis(), bytes.fromhex(store.dir.name), int(secrets.get("seat", -1)),
                        secrets["secret"], {int(k): tuple(v) for k, v in peers["peers"].items()},
                        [lobby.clean_name(known.get(str(i))) for i in range(len(G.parse(store.genesis()).seats))],
                        peers.get("spectators", not peers.get("relay")) is True,
                        spectators_chat=peers.get("spectators_chat", True) is True)
    seat.status(f"resuming game {store.dir.name[:16]}" + (f" through the broker {seat.relay}" if seat.relay else ""),
                "resume")
    seat.bot_homes = [h for h in seat_memory.recall(store.dir).get("bots") or [] if isinstance(h, str)]
    helpers = resume_bots(store.dir.name, seat.bot_homes)
    if helpers:
        seat.status(f"{len(helpers)} bot(s) seated with you continue too", "bots")
    async with keep_bots(helpers, seat, store.dir.name):
        if seat.relay is not None:
            result = await play(setup, seat, None, dial_all=True)
        else:
            listeners = await _listen_again(seat, asked_port)
            result = await play(setup, seat, listeners, dial_all=True)
    return result


async def _listen_again(seat: Seat, asked_port: int) -> list[trio.SocketListener]:
    """A resumed game listens on its last port, where its peers look for it; when another
    program took that port meanwhile, on another one (a resumed node dials every peer itself,
    so the game goes on), saying so. A port the person asked for is that port or an error."""
    try:
        return await trio.open_tcp_listeners(seat.port, host=seat.bind)
    except OSError as exc:
        if exc.errno != errno.EADDRINUSE or asked_port or not seat.port:
            raise
        seat.status(f"port {seat.port} of the last session is taken ({exc.strerror}); listening on another "
                    "(this node dials the others)", "warning")
        return await trio.open_tcp_listeners(0, host=seat.bind)


PORT_WAIT = 15.0
"""How long Play again waits for the last game's port (where the friends look for the new lobby)."""

REMATCH_WAIT = 120.0
"""How long a friend who asked to play again waits for the host's new lobby."""


async def rematch(game_prefix: str, seat: Seat, announce: bool = True,
                  discovery_target: str = discovery.BROADCAST,
                  discovery_port: int = discovery.DISCOVERY_PORT, decline: bool = False) -> dict[str, Any] | None:
    """Play again: the same game, options, number of seats and time limit with a fresh genesis.
    The seat that hosted opens the new lobby (on its old port when free, where its friends
    look for it) with its own bots re-seated; a friend's seat joins it there (or, `decline`,
    tells it "not this time")."""
    store = GameStore.find(seat.data_dir, game_prefix)
    genesis = G.parse(store.genesis())
    memory = seat_memory.recall(store.dir)
    kinds = [k for k in memory.get("bot_kinds") or [] if isinstance(k, str)]
    peers = store.peers()
    names = peers.get("names") if isinstance(peers.get("names"), dict) else {}
    if seat.relay is None and peers.get("relay"):
        from ..net.relay_url import parse_relay_url, with_auth
        seat.relay = with_auth(parse_relay_url(peers["relay"]), seat.relay_auth)
    if decline and memory.get("role") != "join":
        raise lobby.LobbyError("this seat hosted that game: only a friend who joined it declines its Play again")
    if decline:
        return await _decline_again(store.dir.name, genesis.game, seat, peers, lobby.clean_name(names.get("0")),
                                    genesis.seats[0])
    if memory.get("role") == "join":
        return await _join_again(store.dir.name, genesis.game, seat, peers, lobby.clean_name(names.get("0")),
                                 genesis.seats[0])
    people = [lobby.clean_name(names.get(str(i))) or f"seat {i}" for i in range(1 + len(kinds), len(genesis.seats))]
    seat.status(f"play again: {games.get(genesis.game).title} for {len(genesis.seats)} players as in game "
                f"{store.dir.name[:16]}" + (f", with bots: {', '.join(kinds)}" if kinds else "")
                + (f"; waiting for {', '.join(people)} to accept" if people else ""),
                "rematch", game_id=store.dir.name)
    old_port = int(peers.get("port") or 0)
    if not seat.port and old_port and seat.relay is None:
        with trio.move_on_after(PORT_WAIT):           # the last game's node may still be saying goodbye
            while not _port_free(seat.bind, old_port):
                await trio.sleep(0.2)
            seat.port = old_port
        if not seat.port:
            seat.status(f"port {old_port} of the last game is still taken; friends join with the new invite",
                        "warning")
    return await host(genesis.game, len(genesis.seats), dict(genesis.options), seat, announce,
                      genesis.time_limit, kinds, discovery_target, discovery_port, friends=frozenset(genesis.seats),
                      pace=genesis.pace)


def _port_free(bind: str, port: int) -> bool:
    import socket
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((bind, port))
            return True
        except OSError:
            return False


async def _join_again(game_id: str, game: str, seat: Seat, peers: dict[str, Any], host_name: str,
                      host_key: bytes) -> dict[str, Any] | None:
    """A friend's Play again: join the host's new lobby at its old address, waiting up to
    REMATCH_WAIT for the host to open it (silence is named: the host's name). Only the last
    game's host (`host_key`, its seat 0) is accepted there: anyone else who answers at that
    address is refused before anything is sent or signed."""
    if seat.client == "web" and seat.web_client is None:
        return await _serving_page(seat, partial(_join_again, game_id, game, seat, peers, host_name, host_key))
    seat.role = "join"
    address, who = _host_of(peers, seat, host_name)
    seat.status(f"play again: {games.get(game).title} as in game {game_id[:16]}; waiting up to "
                f"{REMATCH_WAIT:.0f} s for {who} to open the new table", "rematch", game_id=game_id)
    key = load_identity(seat.data_dir)
    listeners = await trio.open_tcp_listeners(seat.port, host=seat.bind)
    seat.port = listeners[0].socket.getsockname()[1]
    secret = os.urandom(32)
    setup = await _when_open(who, partial(lobby.join, key, address[0], address[1], seat.port, secret,
                                          seat.status, expect_game=game, name=seat.name or "",
                                          host_pin=key_pin(host_key), prepare=_prepare(seat, secret, address)))
    return await play(setup, seat, listeners)


async def _decline_again(game_id: str, game: str, seat: Seat, peers: dict[str, Any], host_name: str,
                         host_key: bytes) -> dict[str, Any]:
    """A friend's "Not this time": tell the host's new lobby (waiting for it as Play again
    does, and only the last game's host, `host_key`), so the host sees who declined, by name."""
    address, who = _host_of(peers, seat, host_name)
    seat.status(f"not this time: telling {who} (waiting up to {REMATCH_WAIT:.0f} s for the new table)",
                "rematch", game_id=game_id)
    await _when_open(who, partial(lobby.decline, load_identity(seat.data_dir), address[0], address[1], game,
                                  seat.name or "", host_pin=key_pin(host_key)))
    seat.status(f"{who} was told you decline to play again", "declined", game_id=game_id)
    return {"declined": game_id}


def _host_of(peers: dict[str, Any], seat: Seat, host_name: str) -> tuple[tuple[str, int], str]:
    """The host's address in the last game (its new lobby opens there) and its name."""
    address = (peers.get("peers") or {}).get("0")
    who = host_name or "the host"
    if seat.relay is not None or not isinstance(address, list) or len(address) != 2:
        raise lobby.LobbyError(f"{who} hosted that game through a broker: ask them for the new invite")
    return (str(address[0]), int(address[1])), who


async def _when_open(who: str, attempt: Callable[[], Awaitable[Any]]) -> Any:
    """`attempt` the host's new lobby until it opens (REMATCH_WAIT) or refuses; a lobby there
    whose host is not the last game's host is refused at once (nothing was sent to it)."""
    deadline = trio.current_time() + REMATCH_WAIT
    while True:
        try:
            return await attempt()
        except lobby.LobbyError as exc:
            if str(exc).startswith(lobby.WRONG_HOST):
                raise lobby.LobbyError(f"someone other than {who} answered at {who}'s address of the last game, "
                                       f"so Play again stopped there: {exc}") from None
            if str(exc).startswith("the host refused") or trio.current_time() > deadline:
                raise lobby.LobbyError(f"{who} did not open a new table to play again ({exc})") from None
            await trio.sleep(1.0)


def _ended(store: GameStore, seat: Seat) -> dict[str, Any] | None:
    """None when the stored game can go on; else say in one line how it ended (and on the page
    of a web seat) and return its result ({} for an abandoned game: nothing to resume)."""
    from ..storage.stored import describe

    transcript = store.dir / "transcript.caravan"
    if not transcript.exists():
        return None
    entry = describe(store.dir, load_identity(seat.data_dir).public)
    if entry.state not in ("finished", "abandoned"):
        return None
    text = f"game {store.dir.name[:16]} already ended: {entry.state}, {entry.detail}; transcript: {transcript}"
    seat.status(text, "ended", game_id=store.dir.name, state=entry.state, path=str(transcript))
    seat.game_id = None
    return entry.result if entry.state == "finished" else {}
