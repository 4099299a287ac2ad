"""Glue for the command line: host or join a lobby, then run the game node with a decider,
report progress, and write the transcript."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import trio

from clients.bot import make_bot
from protocol import abandon, engine as E, games, genesis as G, wire
from protocol.identity import fingerprint
from protocol.verify import verify_bytes

from . import discovery, lobby, mdns
from .client_api import BotDecider, ClientDecider, TerminalDecider, spawn_bot, stdio_channel, tcp_channel
from .game import GameNode, Progress
from .store import GameStore, load_identity


class Status:
    """Human status on stderr (rich when available; NO_COLOR respected), or JSON lines on
    stdout with --json."""

    def __init__(self, json_lines: bool = False, quiet: bool = False):
        self.json_lines, self.quiet = json_lines, quiet
        self.console = None
        if not json_lines:
            try:
                from rich.console import Console
                self.console = Console(stderr=True, highlight=False)
            except ImportError:
                pass

    def __call__(self, text: str, kind: str = "status", **fields: Any) -> None:
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
    think: float = 1.0                 # --bot search: seconds per decision
    iterations: int | None = None      # --bot search: iterations per decision instead


def check_decider(seat: Seat) -> None:
    chosen = [x for x in (seat.bot, seat.bot_cmd, seat.client) if x]
    if len(chosen) != 1:
        raise ValueError("choose exactly one way to decide for this seat: --bot random|heuristic|search, "
                         "--bot-cmd COMMAND, or --client terminal|stdio|tcp:PORT")
    if seat.client and not (seat.client in ("stdio", "terminal") or seat.client.startswith("tcp:")):
        raise ValueError("--client is terminal, stdio or tcp:PORT")


async def _decider(seat: Seat, game: str, nursery: trio.Nursery, info: dict[str, Any], describe):
    if seat.bot:
        return BotDecider(make_bot(seat.bot, game, seat.seed, seat.think, seat.iterations), seat.bot_delay)
    if seat.client == "terminal":
        return TerminalDecider(describe)
    if seat.bot_cmd:
        decider, _ = await spawn_bot(seat.bot_cmd, nursery)
        decider.describe = describe
    elif seat.client == "stdio":
        decider = ClientDecider(await stdio_channel(), describe)
    else:
        decider = ClientDecider(await tcp_channel(int(seat.client.split(":", 1)[1]), seat.status), describe)
    await decider.hello(info)
    return decider


def _progress(node_ref: list, status: Status, decider: Any) -> Progress:
    def on_event(event: Any, session: Any) -> None:
        if isinstance(event, E.Act):
            node = node_ref[0]
            text = node.engine.describe(session.state, event.seat, event.action) if node else str(event.action)
            where, fields = "", {}
            if node and not status.quiet:
                public = node.engine.view(session.state, None)       # a spectator's view: no secrets
                for key in ("round", "turn"):
                    if key in public:
                        where, fields = f"{key} {public[key]}: ", {key: public[key]}
                        break
            status(f"[{len(session.log):4d}] {where}{text}", "event", seat=event.seat,
                   messages=len(session.log), **fields)
            if isinstance(decider, ClientDecider):
                trio.lowlevel.spawn_system_task(decider.event, text, event.action)

    def on_reject(exc: Any, source: str) -> None:
        status(f"refused a message from {source}: {exc}", "warning")

    return Progress(on_event, on_reject)


def _tracer(path: Path):
    """Append "kind sha256(raw) monotonic_ns" lines (the clock is shared by local processes)."""
    fh = path.open("a", buffering=1)

    def trace(kind: str, raw: bytes) -> None:
        fh.write(f"{kind} {hashlib.sha256(raw).hexdigest()[:24]} {time.monotonic_ns()}\n")
    return trace


async def play(setup: lobby.Setup, seat: Seat, listeners: list[trio.SocketListener] | None,
               dial_all: bool = False) -> dict[str, Any] | None:
    """Run the game on this node to the end; returns the result."""
    key = load_identity(seat.data_dir)
    store = GameStore(seat.data_dir, setup.game_id)
    if not store.exists():
        store = GameStore.create(seat.data_dir, setup.genesis_raw, setup.game_id,
                                 {"secret": setup.secret, "committed": wire.encode([]), "seat": setup.seat},
                                 {"peers": {str(k): list(v) for k, v in setup.peers.items()},
                                  "port": seat.port})
    status = seat.status
    async with trio.open_nursery() as nursery:
        genesis = G.parse(store.genesis())
        engine_name = genesis.game
        engine = games.get(engine_name)
        info = {"game": engine_name, "title": engine.title, "seat": setup.seat, "game_id": setup.game_id,
                "seats": len(genesis.seats), "options": genesis.options, "time_limit": genesis.time_limit}
        node_ref: list = [None]

        def describe(action: Any) -> str:
            node = node_ref[0]
            return engine.describe(node.session.state, node.seat, action)

        decider = await _decider(seat, engine_name, nursery, info, describe)
        progress = _progress(node_ref, status, decider)
        if seat.trace:
            progress.on_trace = _tracer(seat.trace)
        node = GameNode(store, key, decider, (seat.bind, seat.port), setup.peers, progress)
        node_ref[0] = node
        status(f"game {setup.game_id.hex()[:16]} ({engine.title}): seat {setup.seat} of {node.session.n}, "
               f"key {fingerprint(key.public)}", "start", game_id=setup.game_id.hex(), seat=setup.seat)
        result = await node.run(listeners=listeners, dial_all=dial_all)
        if node.abandon_record is not None:
            stalled = abandon.parse_record(node.abandon_record)[0]
            status(f"game abandoned: seat(s) {stalled} sent nothing within {node.genesis.time_limit} s; "
                   "the others co-signed an abandon record", "abandoned", stalled=stalled)
        if isinstance(decider, ClientDecider):
            await decider.result(result)
        nursery.cancel_scope.cancel()
    path = store.dir / "transcript.caravan"
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


async def host(game: str, players: int, options: dict[str, Any], seat: Seat, announce: bool = True,
               time_limit: int = 0,
               discovery_target: str = discovery.BROADCAST, discovery_port: int = discovery.DISCOVERY_PORT,
               task_status=trio.TASK_STATUS_IGNORED) -> dict[str, Any] | None:
    key = load_identity(seat.data_dir)
    the_lobby = lobby.Lobby(key, game, players, options, seat.status, time_limit)
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
    try:
        async with trio.open_nursery() as nursery:
            if announce:
                nursery.start_soon(discovery.announce, the_lobby.status, discovery_target, discovery_port)
            task_status.started(port)
            setup = await the_lobby.run(listeners, secret)
            nursery.cancel_scope.cancel()
    finally:
        if announcer is not None:
            await trio.to_thread.run_sync(announcer.close)
    seat.status("every seat signed the genesis; play starts", "genesis", game_id=setup.game_id.hex())
    listeners = await trio.open_tcp_listeners(port, host=seat.bind)     # the lobby closed its own
    return await play(setup, seat, listeners)


async def join(target: str | None, seat: Seat, discovery_port: int = discovery.DISCOVERY_PORT,
               discovery_bind: str = "0.0.0.0", wait: float = 5.0, via: str = "both") -> dict[str, Any] | None:
    """Join by HOST:PORT, or by (a prefix of) a lobby id found by discovery, or the only lobby."""
    if target and ":" in target:
        host_, _, port_s = target.rpartition(":")
        address = (host_.strip("[]"), int(port_s))
    else:
        seat.status(f"looking for lobbies on the LAN ({via}: UDP port {discovery_port}"
                    f"{', mDNS' if via != 'udp' and mdns.available() else ''})...")
        found = await discovery.discover(wait, discovery_port, discovery_bind,
                                          until_first=bool(target), via=via)
        if target:
            found = [a for a in found if a.lobby.startswith(target.lower())]
        if not found:
            raise lobby.LobbyError("no open lobby found; try caravan join HOST:PORT")
        if len(found) > 1:
            raise lobby.LobbyError("several lobbies are open; name one:\n  " +
                                   "\n  ".join(a.describe() for a in found))
        address = (found[0].host, found[0].port)
    key = load_identity(seat.data_dir)
    listeners = await trio.open_tcp_listeners(seat.port, host=seat.bind)
    seat.port = listeners[0].socket.getsockname()[1]
    setup = await lobby.join(key, address[0], address[1], seat.port, os.urandom(32), seat.status)
    return await play(setup, seat, listeners)


async def resume(game_prefix: str, seat: Seat) -> dict[str, Any] | None:
    """Restart a stored game after a crash: replay, reconnect, resync, continue."""
    store = GameStore.find(seat.data_dir, game_prefix)
    secrets = store.secrets()
    peers = store.peers()
    seat.port = seat.port or int(peers.get("port") or 0)
    setup = lobby.Setup(store.genesis(), bytes.fromhex(store.dir.name), int(secrets.get("seat", -1)),
                        secrets["secret"], {int(k): tuple(v) for k, v in peers["peers"].items()})
    listeners = await trio.open_tcp_listeners(seat.port, host=seat.bind)
    seat.status(f"resuming game {store.dir.name[:16]}", "resume")
    return await play(setup, seat, listeners, dial_all=True)
