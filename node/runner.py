"""Glue for the command line: host or join a lobby, then run the game node with a decider,
report progress, and write the transcript."""

from __future__ import annotations

import hashlib
import json
import logging
import math
import os
import shutil
import sys
import time
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, Callable

import trio

from clients import narrate
from clients.bot import make_bot
from clients.terminal import TerminalClient
from protocol import abandon, engine as E, games, genesis as G, wire
from protocol.identity import fingerprint
from protocol.verify import verify_bytes

from . import discovery, lobby, mdns
from .client_api import BotDecider, ClientDecider, TcpClientPort, spawn_bot, stdio_channel
from .game import GameNode, Progress
from .spectators import Spectators
from .store import GameStore, load_identity

log = logging.getLogger("caravan.runner")


class Status:
    """Human status on stderr (rich when available; NO_COLOR respected), or JSON lines on
    stdout with --json."""

    def __init__(self, json_lines: bool = False, quiet: bool = False):
        self.json_lines, self.quiet = json_lines, quiet
        self.lobby_page: Callable[[str], None] | None = None
        """--client web before the game: the page shows the lobby's lines too."""
        self.console = None
        if not json_lines:
            try:
                from rich.console import Console
                self.console = Console(stderr=True, highlight=False)
            except ImportError:
                pass

    def __call__(self, text: str, kind: str = "status", **fields: Any) -> None:
        if self.lobby_page is not None and kind in ("lobby", "invite", "hint", "status", "bots", "genesis", "warning"):
            self.lobby_page(text)
        if self.json_lines:
            print(json.dumps({"type": kind, "text": text, **fields}, default=str), flush=True)
        elif not self.quiet:
            if self.console is not None:
                self.console.print(text, markup=False)
            else:
                print(text, file=sys.stderr, flush=True)


@dataclass
class Seat:
    """How this node decides and where it lives."""
    data_dir: Path
    bind: str = "0.0.0.0"
    port: int = 0
    bot: str | None = None
    bot_cmd: str | None = None
    client: str | None = None
    out: Path | None = None
    seed: int | None = None
    status: Status = field(default_factory=Status)
    bot_delay: float = 0.0
    trace: Path | None = None
    name: str | None = None
    confirm_forced: bool = False
    web_port: int | None = None
    no_browser: bool = False
    client_port: TcpClientPort | None = None
    web_client: Any = None
    """--client web: the page server, opened when the node starts."""
    think: float = 1.0                 # --bot search: seconds per decision
    iterations: int | None = None      # --bot search: iterations per decision instead
    game_id: str | None = None
    """Set once the game is stored: what the CLI names when it is interrupted (None: lobby)."""
    relay: Any = None
    """--relay / an invite: the MQTT broker (a relay_url.RelayUrl) all links go through."""
    relay_auth: str | None = None
    """--relay-auth FILE: USER:PASSWORD for the broker (an invite's or a resumed game's)."""
    spectators: bool | None = None
    """host --spectators yes|no (None: yes on a LAN, no through a broker)."""


async def open_client_port(seat: Seat) -> TcpClientPort:
    """Open --client tcp:PORT as soon as the node starts, and print where and with what token."""
    seat.client_port = await TcpClientPort.open(int(seat.client.split(":", 1)[1]))
    seat.status(f"client API on 127.0.0.1:{seat.client_port.port}: connect and send this token as the "
                f"first line: {seat.client_port.token}", "client_port", port=seat.client_port.port,
                token=seat.client_port.token)
    return seat.client_port


LINGER_BOTS = 10.0
"""How long `host --with-bots` waits for its bot nodes to finish after the game."""

RESULT_GRACE = 5.0
"""How long a client gets to read the result before the node stops it."""


async def _let_client_read(decider: Any) -> None:
    """A bot process gets its stdin closed and a moment to read `result` and exit by itself;
    a web page stays served until the player has seen the result (or RESULT_GRACE)."""
    process = getattr(decider, "process", None)
    try:
        if process is not None:
            await decider.channel.send_stream.aclose()
            await process.wait()
        elif hasattr(decider, "seen_result"):
            await decider.seen_result.wait()
        elif isinstance(decider, ClientDecider):
            while await decider.channel.recv() is not None:      # until the client closes its end
                pass
    except (trio.BrokenResourceError, trio.ClosedResourceError, OSError, ValueError):
        pass                                                    # it went away: nothing left to read


def _presenter(engine: E.Engine, node_ref: list) -> Any:
    """present(view, legal, kind): each legal action in words, grouped, with its board place."""
    def describe(action: Any) -> str:
        node = node_ref[0]
        return engine.describe(node.session.state, node.seat, action)

    def present(view: Any, legal: list[Any], kind: str) -> list[dict[str, Any]]:
        return narrate.moves(engine.name, view, legal, node_ref[0].seat, describe)
    return present


async def _decider(seat: Seat, game: str, nursery: trio.Nursery, info: dict[str, Any], present, store):
    if seat.bot:
        return BotDecider(make_bot(seat.bot, game, seat.seed, seat.think, seat.iterations), seat.bot_delay)
    if seat.client == "terminal":
        decider: Any = TerminalClient(game, info["seat"], info["names"], present, seat.confirm_forced,
                                      out=sys.stderr if seat.status.json_lines else sys.stdout)
    elif seat.client == "web":
        decider = await _web(seat, game, nursery, info, present, store)
    elif seat.bot_cmd:
        decider, _ = await spawn_bot(seat.bot_cmd, nursery)
        decider.present = present
    elif seat.client == "stdio":
        decider = ClientDecider(await stdio_channel(), present)
    else:
        client_port = seat.client_port or await open_client_port(seat)
        seat.status(f"waiting for the deciding program on 127.0.0.1:{client_port.port}", "waiting")
        decider = ClientDecider(await client_port.accept(), present)
    await decider.hello(info)
    return decider


async def open_web(seat: Seat, nursery: trio.Nursery, saved: dict[str, Any] | None = None) -> Any:
    """--client web: serve the page from the start (the lobby, then the game), on the port and
    with the token of the last session when resuming (so an open page reconnects)."""
    from .web import WebClient

    saved = saved or {}
    port = seat.web_port if seat.web_port is not None else int(saved.get("port", 0))
    client = WebClient(saved.get("token"))
    try:
        url = await nursery.start(client.serve, port)
    except OSError as exc:
        if seat.web_port is not None or not port:
            raise
        seat.status(f"port {port} of the last session is taken ({exc.strerror}); serving on another", "warning")
        url = await nursery.start(client.serve, 0)
    client.url = url
    seat.web_client = client
    seat.status.lobby_page = client.note
    seat.status(f"play in your browser: {url}", "web", url=url)
    if not seat.no_browser:
        import webbrowser
        await trio.to_thread.run_sync(webbrowser.open, url)
    return client


async def _serving_page(seat: Seat, run) -> dict[str, Any] | None:
    """--client web: serve the page for the whole of host/join (the lobby first, then the game)."""
    async with trio.open_nursery() as nursery:
        await open_web(seat, nursery)
        result = await run()
        nursery.cancel_scope.cancel()
    return result


async def _web(seat: Seat, game: str, nursery: trio.Nursery, info: dict[str, Any], present, store) -> Any:
    """The page's decider; the page is served already (host/join) or from now on (resume)."""
    from .web import WebDecider, load_settings, save_settings

    client = seat.web_client or await open_web(seat, nursery, load_settings(store.dir))
    seat.status.lobby_page = None
    save_settings(store.dir, {"port": int(client.url.rsplit(":", 1)[1].split("/", 1)[0]), "token": client.token})
    return WebDecider(client, game, info["names"], present)


class Narrator:
    """Feeds every applied event to this seat's Table (sentences for its own player, delivered
    in order to its client by `deliver`) and to a spectator's (the status lines: never a
    private value)."""

    def __init__(self, engine: E.Engine, genesis: Any, seat: int, names: list[str], status: Status,
                 client: Any, knowledge):
        players, options = len(genesis.seats), genesis.options
        self.seat, self.names = seat, names
        self.mine = narrate.Table(engine, options, players, seat, names)
        self.public = None if status.quiet else narrate.Table(engine, options, players, None, names)
        self.status, self.client, self.knowledge = status, client, knowledge
        self.echo = not isinstance(client, TerminalClient)     # a terminal narrates for itself
        self.outbox, self._inbox = trio.open_memory_channel[tuple](math.inf)

    def __call__(self, event: Any, session: Any, replayed: bool = False) -> None:
        try:
            info, lines = self.mine.apply(event, self.knowledge())
            synced = True
        except E.IllegalAction:                  # the mirror missed an event: take the replica's state
            log.warning("narration resynchronised with the game state at %r", event)
            info, lines, synced = narrate.event_dict(event), [], False
            for table in (self.mine, self.public):
                if table is not None:
                    table.resync(table.engine.clone(session.state), self.knowledge() if table is self.mine else None)
        msg = {"type": "event", "seat": narrate.acting_seat(info), "text": "\n".join(lines), "event": info}
        waiting = session.waiting_for()
        self.outbox.send_nowait((msg, self.mine.view, waiting, replayed, time.time()))
        if self.public is not None and synced:
            _, said = self.public.apply(event)
            if self.echo and not replayed:
                where = _where(self.public.view)
                for line in said:
                    self.status(f"{where}{line}", "event", seat=msg["seat"], event=info)

    def waiting_text(self, waiting: list[int]) -> str:
        if not waiting:
            return "the game is over"
        if waiting == [self.seat]:
            return "your decision"
        who = ", ".join(narrate.seat_name(self.names, s) + (" (you)" if s == self.seat else "") for s in waiting)
        return f"waiting for {who}"

    async def deliver(self) -> None:
        """Hand events to the client in order (a web page also gets the replayed ones)."""
        history = getattr(self.client, "wants_history", False)
        async for msg, view, waiting, replayed, applied_at in self._inbox:
            if replayed and not history:
                continue
            if hasattr(self.client, "event"):
                await self.client.event(msg)
            if hasattr(self.client, "show") and not self._inbox.statistics().current_buffer_used:
                self.client.show(view, self.waiting_text(waiting), applied_at)    # only the latest picture


def _where(view: dict[str, Any]) -> str:
    for key in ("round", "turn"):
        if key in view:
            return f"{key} {view[key]}: "
    return ""


def _progress(narrator: list, status: Status) -> Progress:
    def tell(event: Any, session: Any, replayed: bool) -> None:
        if narrator[0] is None:
            return
        try:
            narrator[0](event, session, replayed)
        except Exception:                          # a narration bug must never stop the game
            log.error("could not narrate %r (a bug in Caravan's narration; the game goes on)", event,
                      exc_info=log.isEnabledFor(logging.DEBUG))

    def on_event(event: Any, session: Any) -> None:
        tell(event, session, False)

    def on_reject(exc: Any, source: str) -> None:
        status(f"refused a message from {source}: {exc}", "warning")

    def on_replayed(event: Any, session: Any) -> None:
        tell(event, session, True)

    return Progress(on_event, on_reject, on_replayed)


def _tracer(path: Path):
    """Append "kind sha256(raw) monotonic_ns" lines (the clock is shared by local processes)."""
    fh = path.open("a", buffering=1)

    def trace(kind: str, raw: bytes) -> None:
        fh.write(f"{kind} {hashlib.sha256(raw).hexdigest()[:24]} {time.monotonic_ns()}\n")
    return trace


async def play(setup: lobby.Setup, seat: Seat, listeners: list[trio.SocketListener] | None,
               dial_all: bool = False, relay: Any = None) -> dict[str, Any] | None:
    """Run the game on this node to the end; returns the result. With `seat.relay`, every
    link goes through the broker (`relay`: the node's open connection to it, if any)."""
    if seat.relay is not None and relay is None:
        from . import relay as relay_mod
        async with relay_mod.connect(seat.relay, load_identity(seat.data_dir).public) as opened:
            return await play(setup, seat, None, dial_all, opened)
    key = load_identity(seat.data_dir)
    store = GameStore(seat.data_dir, setup.game_id)
    if not store.exists():
        peers = {"peers": {str(k): list(v) for k, v in setup.peers.items()}, "port": seat.port,
                 "names": {str(i): n for i, n in enumerate(setup.names) if n}, "spectators": setup.spectators}
        if seat.relay is not None:
            peers["relay"] = seat.relay.with_credentials()     # peers.json is private (0600)
        store = GameStore.create(seat.data_dir, setup.genesis_raw, setup.game_id,
                                 {"secret": setup.secret, "committed": wire.encode([]), "seat": setup.seat}, peers)
    seat.game_id = setup.game_id.hex()
    status = seat.status
    async with trio.open_nursery() as nursery:
        genesis = G.parse(store.genesis())
        engine_name = genesis.game
        engine = games.get(engine_name)
        names = [(setup.names[s] if s < len(setup.names) else "") or f"seat {s}" for s in range(len(genesis.seats))]
        if seat.name:
            names[setup.seat] = lobby.clean_name(seat.name) or names[setup.seat]
        info = {"game": engine_name, "title": engine.title, "seat": setup.seat, "game_id": setup.game_id.hex(),
                "seats": len(genesis.seats), "names": names, "options": genesis.options,
                "time_limit": genesis.time_limit}
        node_ref: list = [None]
        present = _presenter(engine, node_ref)
        decider = await _decider(seat, engine_name, nursery, info, present, store)
        narrator: list = [None]
        progress = _progress(narrator, status)
        if seat.trace:
            progress.on_trace = _tracer(seat.trace)
        narrator[0] = Narrator(engine, genesis, setup.seat, names, status, decider,
                               lambda: node_ref[0].player.knowledge if node_ref[0] else {})
        node = GameNode(store, key, decider, (seat.bind, seat.port), setup.peers, progress,
                        relay=relay.endpoint(setup.game_id) if relay is not None else None)
        node.spectators = Spectators(node, setup.spectators)
        node_ref[0] = node
        nursery.start_soon(narrator[0].deliver)
        status(f"game {setup.game_id.hex()[:16]} ({engine.title}): seat {setup.seat} of {node.session.n}, "
               f"key {fingerprint(key.public)}", "start", game_id=setup.game_id.hex(), seat=setup.seat)
        if relay is not None and setup.spectators:
            from .watch import watch_invite
            invite = watch_invite(seat.relay, setup.game_id, key.public)
            status(f"others may watch with:  caravan watch {invite}", "watch_invite", invite=invite)
        result = await node.run(listeners=listeners, dial_all=dial_all)
        if node.abandon_record is not None:
            stalled = abandon.parse_record(node.abandon_record)[0]
            status(f"game {node.outcome_text}", "abandoned", stalled=stalled)
        elif node.outcome in ("gave-up", "store-failed"):
            status(node.outcome_text, node.outcome)
        narrator[0].outbox.close()
        with trio.move_on_after(RESULT_GRACE):
            while narrator[0].outbox.statistics().current_buffer_used:
                await trio.sleep(0.01)
            if hasattr(decider, "result"):
                await decider.result(result)
            await _let_client_read(decider)
        nursery.cancel_scope.cancel()
    path = store.dir / "transcript.caravan"
    if node.outcome == "store-failed":
        return None
    if seat.out:
        shutil.copyfile(path, seat.out)
        path = seat.out
    report = verify_bytes(path.read_bytes())
    if result is None:
        status(f"transcript: {path}", "transcript", path=str(path), verified=False)
        return None
    winners = ", ".join(f"seat {w}" for w in (result or {}).get("winners", []))
    status(f"game over: won by {winners}; scores {(result or {}).get('scores')}", "result", result=result)
    status(f"transcript: {path} ({'verified' if report.ok else 'NOT verified: ' + str(report.error)})",
           "transcript", path=str(path), verified=report.ok)
    return result


def start_bots(kinds: list[str], port: int | str, seat: Seat) -> list[Any]:
    """`host --with-bots`: each bot seat is a full node of its own (an OS process joining this
    lobby on loopback, or with the invite through the relay), exactly as if a friend had
    joined with `caravan join --bot KIND`."""
    import subprocess

    procs = []
    target = port if isinstance(port, str) else f"127.0.0.1:{port}"
    for i, kind in enumerate(kinds, start=1):
        home = seat.data_dir / "bots" / f"bot{i}"
        home.mkdir(parents=True, exist_ok=True)
        seed = [] if seat.seed is None else ["--seed", str(seat.seed + i)]
        procs.append(subprocess.Popen(
            [sys.executable, "-m", "node", "join", target, "--bot", kind, "--bind", "127.0.0.1",
             "--data-dir", str(home), "--name", f"{kind} bot {i}", "-q", *seed],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=(home / "node.log").open("ab"),
            start_new_session=True))
    return procs


async def host(game: str, players: int, options: dict[str, Any], seat: Seat, announce: bool = True,
               time_limit: int = 0, bots: list[str] = (),
               discovery_target: str = discovery.BROADCAST, discovery_port: int = discovery.DISCOVERY_PORT,
               task_status=trio.TASK_STATUS_IGNORED) -> dict[str, Any] | None:
    if seat.client == "web" and seat.web_client is None:
        return await _serving_page(seat, partial(host, game, players, options, seat, announce, time_limit, bots,
                                                 discovery_target, discovery_port, task_status=task_status))
    key = load_identity(seat.data_dir)
    if seat.client and seat.client.startswith("tcp:"):
        await open_client_port(seat)
    watchable = seat.spectators if seat.spectators is not None else seat.relay is None
    the_lobby = lobby.Lobby(key, game, players, options, seat.status, time_limit, seat.name or "", watchable)
    if seat.relay is not None:
        return await _host_relayed(the_lobby, seat, bots, task_status)
    listeners = await trio.open_tcp_listeners(seat.port, host=seat.bind)
    port = listeners[0].socket.getsockname()[1]
    seat.port = port
    seat.status(f"hosting {the_lobby.title} for {players} players: lobby {the_lobby.lobby_id.hex()[:8]} on port {port}",
                "lobby", lobby=the_lobby.lobby_id.hex(), port=port)
    seat.status(f"others join with:  caravan join {the_lobby.lobby_id.hex()[:8]}   "
                f"(or: caravan join HOST:{port})", "hint")
    secret = os.urandom(32)
    the_lobby.port = port
    announcer = None
    if announce and mdns.available():
        try:
            announcer = await trio.to_thread.run_sync(mdns.Announcer, the_lobby.status(), seat.bind)
        except Exception as exc:                  # zeroconf raises its own types too
            seat.status(f"no mDNS announcement ({exc}); the UDP beacon still runs", "warning")
    helpers = start_bots(list(bots), port, seat) if bots else []
    if helpers:
        seat.status(f"{len(helpers)} bot(s) joining: {', '.join(bots)}", "bots")
    try:
        async with trio.open_nursery() as nursery:
            if announce:
                nursery.start_soon(discovery.announce, the_lobby.status, discovery_target, discovery_port)
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
    await _wait_for_bots(helpers)
    return result


async def _host_relayed(the_lobby: lobby.Lobby, seat: Seat, bots: list[str], task_status) -> dict[str, Any] | None:
    """`host --relay URL`: the lobby and then the game through the broker; prints the invite."""
    from . import relay as relay_mod

    async with relay_mod.connect(seat.relay, the_lobby.key.public) as relay:
        endpoint = relay.endpoint(the_lobby.lobby_id, "host")
        await relay.subscribe(f"{relay_mod.ROOT}/{endpoint.scope}/host/+/+")
        invite = seat.relay.invite(the_lobby.lobby_id.hex())
        seat.status(f"hosting {the_lobby.title} for {the_lobby.players} players: lobby "
                    f"{the_lobby.lobby_id.hex()[:8]} through the broker {seat.relay}", "lobby",
                    lobby=the_lobby.lobby_id.hex(), port=None, relay=str(seat.relay))
        seat.status(f"others join with:  caravan join {invite}", "invite", invite=invite)
        relay.announce(the_lobby.lobby_id, {**the_lobby.status(), "port": None})
        helpers = start_bots(list(bots), seat.relay.invite(the_lobby.lobby_id.hex(), credentials=True), seat) if bots else []
        if helpers:
            seat.status(f"{len(helpers)} bot(s) joining: {', '.join(bots)}", "bots")
        task_status.started(invite)
        try:
            setup = await the_lobby.run(endpoint, os.urandom(32))
        finally:
            relay.clear(the_lobby.lobby_id)
            endpoint.close()
        seat.status("every seat signed the genesis; play starts", "genesis", game_id=setup.game_id.hex())
        result = await play(setup, seat, None, relay=relay)
    await _wait_for_bots(helpers)
    return result


async def _wait_for_bots(helpers: list[Any]) -> None:
    """The bot nodes end with the game; if this node is interrupted instead, they stay and wait
    for `caravan resume` (or name this seat in an abandon record after the time limit)."""
    with trio.move_on_after(LINGER_BOTS):
        while any(proc.poll() is None for proc in helpers):
            await trio.sleep(0.1)
    for proc in helpers:
        if proc.poll() is None:
            proc.terminate()


async def join_relayed(invite: str, seat: Seat) -> dict[str, Any] | None:
    """`caravan join caravan+mqtt://HOST:PORT/LOBBY_ID`: the lobby, then the game, through the broker."""
    from . import relay as relay_mod
    from .relay_url import parse_invite, with_auth

    url, lobby_id = parse_invite(invite)
    seat.relay = seat.relay or with_auth(url, seat.relay_auth)
    key = load_identity(seat.data_dir)
    if seat.client and seat.client.startswith("tcp:"):
        await open_client_port(seat)
    async with relay_mod.connect(seat.relay, key.public) as relay:
        found = await relay.lookup(lobby_id)
        if found is None:
            seat.status(f"the broker {seat.relay} holds no announcement of lobby {lobby_id[:8]}; trying it anyway",
                        "warning")
        endpoint = relay.endpoint(bytes.fromhex(lobby_id))
        try:
            setup = await lobby.join(key, seat.relay.host, seat.relay.port, 0, os.urandom(32), seat.status,
                                     name=seat.name or "", relay=endpoint)
        finally:
            endpoint.close()
        return await play(setup, seat, None, relay=relay)


async def join(target: str | None, seat: Seat, discovery_port: int = discovery.DISCOVERY_PORT,
               discovery_bind: str = "0.0.0.0", wait: float = 5.0, via: str = "both") -> dict[str, Any] | None:
    """Join by HOST:PORT, or by (a prefix of) a lobby id found by discovery, or the only lobby."""
    if seat.client == "web" and seat.web_client is None:
        return await _serving_page(seat, partial(join, target, seat, discovery_port, discovery_bind, wait, via))
    if target and target.startswith("caravan+"):
        return await join_relayed(target, seat)
    if target and ":" in target:
        host_, _, port_s = target.rpartition(":")
        address = (host_.strip("[]"), int(port_s))
    else:
        seat.status(f"looking for lobbies on the LAN ({via}: UDP port {discovery_port}"
                    f"{', mDNS' if via != 'udp' and mdns.available() else ''})...")
        try:
            found = await discovery.find_one(target, "join", wait, discovery_port, discovery_bind, via)
        except LookupError as exc:
            raise lobby.LobbyError(str(exc)) from None
        address = (found.host, found.port)
    key = load_identity(seat.data_dir)
    if seat.client and seat.client.startswith("tcp:"):
        await open_client_port(seat)
    listeners = await trio.open_tcp_listeners(seat.port, host=seat.bind)
    seat.port = listeners[0].socket.getsockname()[1]
    setup = await lobby.join(key, address[0], address[1], seat.port, os.urandom(32), seat.status,
                             name=seat.name or "")
    return await play(setup, seat, listeners)


async def resume(game_prefix: str, seat: Seat) -> dict[str, Any] | None:
    """Restart a stored game after a crash: replay, reconnect, resync, continue."""
    store = GameStore.find(seat.data_dir, game_prefix)
    secrets = store.secrets()
    peers = store.peers()
    seat.port = seat.port or int(peers.get("port") or 0)
    known = peers.get("names") if isinstance(peers.get("names"), dict) else {}
    setup = lobby.Setup(store.genesis(), bytes.fromhex(store.dir.name), int(secrets.get("seat", -1)),
                        secrets["secret"], {int(k): tuple(v) for k, v in peers["peers"].items()},
                        [lobby.clean_name(known.get(str(i))) for i in range(len(G.parse(store.genesis()).seats))],
                        peers.get("spectators", not peers.get("relay")) is True)
    if seat.relay is None and peers.get("relay"):
        from .relay_url import parse_relay_url, with_auth
        seat.relay = with_auth(parse_relay_url(peers["relay"]), seat.relay_auth)
    seat.status(f"resuming game {store.dir.name[:16]}" + (f" through the broker {seat.relay}" if seat.relay else ""),
                "resume")
    if seat.relay is not None:
        return await play(setup, seat, None, dial_all=True)
    listeners = await trio.open_tcp_listeners(seat.port, host=seat.bind)
    return await play(setup, seat, listeners, dial_all=True)
