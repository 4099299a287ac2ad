"""Glue for the command line: host or join a lobby, then run the game node with a decider,
report progress, and write the transcript."""

from __future__ import annotations

import atexit
import errno
import hashlib
import json
import logging
import math
import os
import shutil
import signal
import sys
import time
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, Awaitable, Callable

import trio

from clients import narrate
from clients.bot import make_bot
from clients.terminal import TerminalClient
from protocol import abandon, engine as E, games, genesis as G, wire
from protocol.identity import fingerprint
from protocol.verify import verify_bytes

from . import discovery, lobby, mdns, output, seat_memory
from .output import Status
from .client_api import BotDecider, ClientDecider, TcpClientPort, spawn_bot, stdio_channel
from .chat import Chat
from .game import GameNode, Progress, fetch_genesis
from .handshake import key_pin
from .spectators import Spectators
from .store import GameStore, load_identity

log = logging.getLogger("caravan.runner")


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
    join_timeout: float = lobby.JOIN_TIMEOUT
    """--join-timeout: how long a joiner keeps asking a lobby through a broker that does not answer."""
    bot_homes: list[str] = field(default_factory=list)
    """The data dirs of the bot nodes seated with this person (`--with-bots`, the home)."""
    bot_kinds: list[str] = field(default_factory=list)
    """Their kinds (re-seated by `caravan rematch`)."""
    role: str | None = None
    """"host" or "join": who may offer to play again (the host opens the new lobby)."""
    home_url: str | None = None
    """Seated from the home: the table page's game-over box links back to it (and to Play again)."""
    spectators: bool | None = None
    """host --spectators yes|no (None: yes on a LAN, no through a broker)."""
    spectators_chat: bool = True
    """host --spectators-chat yes|no: may the spectators read the table talk."""
    bots: Any = None
    """The BotKeeper watching the bot nodes seated with this person while the game runs."""
    notify: Callable[[str], None] | None = None
    """The home in the background: called with the table page's URL when a decision waits for
    this person and no page of the table is open."""
    bot_seats: list[int] | None = None
    """The home's New table: the seat each bot (in `bots` order) was put at; they sit there,
    whoever joins first (None: in the order they join, as `--with-bots`)."""
    bot_places: dict[bytes, int] = field(default_factory=dict)
    """Each such bot's key and its seat, for the lobby."""
    bot_keys: dict[bytes, str] = field(default_factory=dict)
    """Every bot started with this node: its key and kind (a lobby's page says which seat is a bot)."""
    lobby: Any = None
    """The lobby this node hosts while it is open (the home shows its seats from it)."""
    advert: dict[str, Any] | None = None
    """The advert of the lobby this node joined (the home shows its game and options)."""
    lobby_seats: list[dict[str, Any]] = field(default_factory=list)
    """A joiner's: who sits where in the lobby it waits in, as its host last said."""
    until_idle: str | None = None
    """--until-idle on a turn-based table through a broker: "genesis" (host, join: stop once the
    game is stored and the seat's postbox open) or "idle" (resume: once nothing is left to do)."""


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
    if seat.notify is not None:
        client.when_asked_alone = lambda: seat.notify(url)
    seat.web_client = client
    seat.status.lobby_page = client.note
    seat.status(f"play in your browser: {url}", "web", url=url)
    if not seat.no_browser:                      # through a file: the token stays off every argv
        from .browser import open_page
        await trio.to_thread.run_sync(open_page, url, seat.data_dir, "table.html")
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
    return WebDecider(client, game, info["names"], present, store.dir / "transcript.caravan")


class Narrator:
    """Feeds every applied event to this seat's Table (sentences for its own player, delivered
    in order to its client by `deliver`) and to a spectator's (the status lines: never a
    private value)."""

    def __init__(self, engine: E.Engine, genesis: Any, seat: int, names: list[str], status: Status,
                 client: Any, knowledge):
        players, options = len(genesis.seats), genesis.options
        self.seat, self.names = seat, names
        reads = hasattr(client, "event") or hasattr(client, "show")
        # a client that takes no events (an in-process bot) gets no narration, and a quiet node
        # prints none: neither is built then (issue #25: it cost more than the move)
        self.mine = narrate.Table(engine, options, players, seat, names) if reads else None
        self.public = None if status.quiet else narrate.Table(engine, options, players, None, names)
        self.status, self.client, self.knowledge = status, client, knowledge
        self.echo = not isinstance(client, TerminalClient)     # a terminal narrates for itself
        self.outbox, self._inbox = trio.open_memory_channel[tuple](math.inf)
        self._last_key: tuple | None = None

    def __call__(self, event: Any, session: Any, replayed: bool = False) -> None:
        synced, info = True, None
        if self.mine is not None:
            try:
                info, lines = self.mine.apply(event, self.knowledge())
            except E.IllegalAction:              # the mirror missed an event: take the replica's state
                log.warning("narration resynchronised with the game state at %r", event)
                info, lines, synced = narrate.event_dict(event), [], False
                for table in (self.mine, self.public):
                    if table is not None:
                        table.resync(table.engine.clone(session.state),
                                     self.knowledge() if table is self.mine else None)
            msg = {"type": "event", "seat": narrate.acting_seat(info), "text": "\n".join(lines), "event": info}
            self.outbox.send_nowait((msg, self.mine.view, self._table(session), replayed, time.time()))
        if self.public is not None and synced:
            before = self.public.view
            try:
                public_info, said = self.public.apply(event)
            except E.IllegalAction:              # (without a mirror of its own to catch it first)
                log.warning("narration resynchronised with the game state at %r", event)
                self.public.resync(self.public.engine.clone(session.state))
                return
            info = info if info is not None else public_info
            if self.echo and not replayed:
                where = _where(before)
                for line in said:
                    self.status(f"{where}{line}", "event", seat=narrate.acting_seat(info), event=info)

    def on_state(self, session: Any) -> None:
        """A change without an event (a seat's secret choice held until all have chosen): the
        page learns who has chosen and since when the others are awaited."""
        if self.mine is None:
            return
        last = self._last_key
        table = self._table(session)
        if table["key"] != last:            # the status line and the clock follow it
            self.outbox.send_nowait((None, self.mine.view, table, False, time.time()))

    def _table(self, session: Any) -> dict[str, Any]:
        """Whom the game waits for, who has already made the secret choice it waits on, and
        their key (a change without an event is sent once, and only when one of them changed:
        each picture costs a render)."""
        waiting = session.waiting_for()
        need = session.need
        chosen = [s for s in need.seats if s not in waiting] if need is not None and need.kind == "commit" else []
        what, person = session.need_words(), session.needs_a_person()
        key = (tuple(waiting), tuple(chosen), what)
        self._last_key = key
        return {"waiting": waiting, "chosen": chosen, "what": what, "person": person, "key": key}

    def waiting_text(self, table: dict[str, Any]) -> str:
        """The table's status line: "your decision", or whom the game waits for and for what."""
        waiting, chosen = table["waiting"], table["chosen"]
        if not waiting:
            return "the game is over"
        if waiting == [self.seat] and table["person"]:
            return "your decision"
        done = "".join(f"{'you have' if s == self.seat else narrate.seat_name(self.names, s) + ' has'} chosen; "
                       for s in chosen)
        return f"{done}waiting for {narrate.awaited(self.names, waiting, table['what'], table['person'], self.seat)}"

    async def deliver(self) -> None:
        """Hand events to the client in order (a web page also gets the replayed ones)."""
        history = getattr(self.client, "wants_history", False)
        async for msg, view, table, replayed, applied_at in self._inbox:
            if replayed and not history:
                continue
            if msg is not None and hasattr(self.client, "event"):
                await self.client.event(msg)
            if hasattr(self.client, "show") and not self._inbox.statistics().current_buffer_used:
                self.client.show(view, self.waiting_text(table), applied_at,     # only the latest picture
                                 {"waiting": table["waiting"], "chosen": table["chosen"], "since": applied_at})


def store_genesis(seat: Seat, setup: lobby.Setup) -> GameStore:
    """Store a signed genesis with this seat's secrets and its peers' addresses (fsync'd): the
    host does it before the start (holding its signature) leaves it, a joiner on receiving it."""
    peers = {"peers": {str(k): list(v) for k, v in setup.peers.items()}, "port": seat.port,
             "names": {str(i): n for i, n in enumerate(setup.names) if n}, "spectators": setup.spectators,
             "spectators_chat": setup.spectators_chat}
    if seat.relay is not None:
        peers["relay"] = seat.relay.with_credentials()     # peers.json is private (0600)
    store = GameStore.create(seat.data_dir, setup.genesis_raw, setup.game_id,
                             {"secret": setup.secret, "committed": wire.encode([]), "seat": setup.seat}, peers)
    seat_memory.remember(store.dir, seat)
    seat.game_id = setup.game_id.hex()         # from now on a ^C pauses this game (resume continues it)
    return store


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
            from . import relay as relay_mod
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


def _after_game_links(seat: Seat, game_dir: Path, result: Any) -> None:
    """A table opened from the home: its game-over box links back home and to Play again."""
    links = {"home": seat.home_url}
    if (game_dir / "transcript.caravan").exists():       # the home serves them from disk, also once this node stops
        links["home_replay"] = f"{seat.home_url}replay/{game_dir.name}"
        links["home_transcript"] = f"{seat.home_url}transcript/{game_dir.name}"
    role = seat_memory.recall(game_dir).get("role")
    if result is not None and role in ("host", "join"):
        links["play_again"] = f"{seat.home_url}#again={seat.game_id}"
    if result is not None and role == "join":             # a friend may say "not this time" instead
        links["decline"] = f"{seat.home_url}#decline={seat.game_id}"
    seat.web_client.after_game = links


def _where(view: dict[str, Any]) -> str:
    """"round 3: " — from the view *before* the event, so the last action of a round and its
    stewardship carry that round's number, not the next one's."""
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

    def on_state(session: Any) -> None:
        if narrator[0] is not None:
            narrator[0].on_state(session)

    return Progress(on_event, on_reject, on_replayed, on_state=on_state)


def _tracer(path: Path):
    """Append "kind sha256(raw) monotonic_ns cpu" lines (the clock is shared by local
    processes; "-" for a mark without a message). `cpu`, the process's CPU ns, is read at the
    first mark and at "end" only (a syscall: "-" elsewhere). Buffered, written out at exit:
    a write per line would be on the path it measures."""
    fh = path.open("a")
    atexit.register(fh.close)
    first = [True]

    def trace(kind: str, raw: bytes | None) -> None:
        cpu = time.process_time_ns() if first[0] or kind == "end" else "-"
        first[0] = False
        fh.write(f"{kind} {hashlib.sha256(raw).hexdigest()[:24] if raw is not None else '-'} "
                 f"{time.monotonic_ns()} {cpu}\n")
    return trace


MAIL_FLUSH = 30.0
"""How long a postbox node waits at its end for the broker to acknowledge what it sent."""


async def play(setup: lobby.Setup, seat: Seat, listeners: list[trio.SocketListener] | None,
               dial_all: bool = False, relay: Any = None) -> dict[str, Any] | None:
    """Run the game on this node to the end; returns the result. With `seat.relay`, every
    link goes through the broker (`relay`: the node's open connection to it, if any)."""
    postboxes_only = seat.relay is not None and G.parse(setup.genesis_raw).turn_based and not setup.spectators
    if seat.relay is not None and relay is None and not postboxes_only:
        # (a turn-based table's seats talk through postboxes: its relay connection only serves spectators)
        from . import relay as relay_mod
        async with relay_mod.connect(seat.relay, load_identity(seat.data_dir).public) as opened:
            return await play(setup, seat, None, dial_all, opened)
    key = load_identity(seat.data_dir)
    store = GameStore(seat.data_dir, setup.game_id)
    if not store.exists():
        if os.environ.get("CARAVAN_TEST_DIE_BEFORE_STORE") == "1":     # tests only: killed right after the genesis
            os.kill(os.getpid(), signal.SIGKILL)
        store = store_genesis(seat, setup)
    store.lock()                                    # before anything starts: one process per game
    seat.game_id = setup.game_id.hex()
    seat_memory.remember(store.dir, seat)
    status = seat.status
    genesis = G.parse(store.genesis())
    if genesis.turn_based and seat.relay is not None:
        from .postbox import open_postbox
        async with open_postbox(seat.relay, setup.game_id, key.public, genesis.time_limit) as box:
            if seat.until_idle == "genesis":
                text = (f"game {setup.game_id.hex()[:16]} stored; this seat's postbox is open on the broker "
                        f"{seat.relay}: play on with  caravan resume {setup.game_id.hex()[:16]} --until-idle")
                status(text, "idle", game_id=setup.game_id.hex(), waiting_for=[])
                return {"idle": text}
            return await _play(setup, seat, listeners, dial_all, relay, key, store, genesis, box)
    if seat.until_idle:
        status("--until-idle is for a turn-based table played through a broker; this one plays on as usual",
               "warning")
    return await _play(setup, seat, listeners, dial_all, relay, key, store, genesis, None)


async def _play(setup: lobby.Setup, seat: Seat, listeners: list[trio.SocketListener] | None, dial_all: bool,
                relay: Any, key: Any, store: GameStore, genesis: Any, box: Any) -> dict[str, Any] | None:
    """`play` once the game is stored (and, for a turn-based table through a broker, the
    seat's postbox `box` is open: the seats then talk through postboxes, node/mail_links.py)."""
    status = seat.status
    transport = None
    if box is not None:
        from .mail_links import MailTransport, load_state
        from .mailbox import Mailbox
        try:
            state = load_state(store.dir)
            mailbox = Mailbox(setup.game_id, list(genesis.seats), setup.seat, key, state)
        except ValueError as exc:                   # only the transport's numbering: start it afresh
            status(f"{exc}; this seat's postbox numbering starts afresh (the others then get some messages "
                   "twice, and drop the copies)", "warning")
            mailbox = Mailbox(setup.game_id, list(genesis.seats), setup.seat, key)
        transport = MailTransport(box, mailbox, store.dir)
    async with trio.open_nursery() as nursery:
        engine_name = genesis.game
        engine = games.get(engine_name)
        names = [(setup.names[s] if s < len(setup.names) else "") or f"seat {s}" for s in range(len(genesis.seats))]
        if seat.name:
            names[setup.seat] = lobby.clean_name(seat.name) or names[setup.seat]
        info = {"game": engine_name, "title": engine.title, "seat": setup.seat, "game_id": setup.game_id.hex(),
                "seats": len(genesis.seats), "names": names, "options": genesis.options,
                "time_limit": genesis.time_limit, "pace": genesis.pace,
                "spectators_read_chat": bool(setup.spectators and setup.spectators_chat)}
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
                        relay=relay.endpoint(setup.game_id) if relay is not None else None,
                        mail=transport, until_idle=seat.until_idle == "idle")
        node.decides_alone = bool(seat.bot or seat.bot_cmd)
        node.spectators = Spectators(node, setup.spectators, expected=setup.watchers)
        node_ref[0] = node
        node.chat = Chat(store.dir, key, setup.game_id, list(genesis.seats), names)
        node.chat.send = node._send_all
        if setup.spectators and setup.spectators_chat:
            node.spectators.read_chat(node.chat)         # the table talk, to the spectators too
        if hasattr(decider, "attach_chat"):
            decider.attach_chat(node.chat)
        nursery.start_soon(narrator[0].deliver)
        status(f"game {setup.game_id.hex()[:16]} ({engine.title}): seat {setup.seat} of {node.session.n}, "
               f"key {fingerprint(key.public)}", "start", game_id=setup.game_id.hex(), seat=setup.seat)
        if relay is not None and setup.spectators:
            from .watch import watch_invite
            invite = watch_invite(seat.relay, setup.game_id, key.public)
            status(f"others may watch with:  caravan watch {invite}", "watch_invite", invite=invite)
        result = await node.run(listeners=listeners, dial_all=dial_all)
        if transport is not None and node.outcome != "store-failed":
            await transport.push()                      # the store is closed (synced) by now
            if not await box.flush(MAIL_FLUSH):
                status(f"the broker {seat.relay} has not acknowledged {box.unacknowledged()} envelope(s) within "
                       f"{MAIL_FLUSH:.0f} s; if it lost them, the next envelope to each seat shows the gap and "
                       "they are sent again", "warning")
        if node.outcome == "idle":
            status(node.outcome_text, "idle", game_id=setup.game_id.hex(), waiting_for=node.session.waiting_for())
        if node.abandon_record is not None:
            stalled = abandon.parse_record(node.abandon_record)[0]
            status(f"game {node.outcome_text}", "abandoned", stalled=stalled)
        elif node.outcome in ("gave-up", "store-failed"):
            status(node.outcome_text, node.outcome)
        narrator[0].outbox.close()
        with trio.move_on_after(RESULT_GRACE):
            while narrator[0].outbox.statistics().current_buffer_used:
                await trio.sleep(0.01)
            if seat.home_url and seat.web_client is not None:
                _after_game_links(seat, store.dir, result)
            if hasattr(decider, "result"):
                await decider.result(result)
            await _let_client_read(decider)
        nursery.cancel_scope.cancel()
    path = store.dir / "transcript.caravan"
    if node.outcome == "store-failed":
        return None
    if node.outcome == "idle":
        return {"idle": node.outcome_text}
    if seat.out:
        shutil.copyfile(path, seat.out)
        path = seat.out
    report = verify_bytes(path.read_bytes())
    if result is None:
        status(f"transcript: {path}", "transcript", path=str(path), verified=False)
        return None
    winners = ", ".join(f"seat {w}" for w in (result or {}).get("winners", []))
    if status.json_lines or not isinstance(decider, TerminalClient):    # a terminal player was told already
        scores = ", ".join(f"seat {s} {v}" for s, v in enumerate((result or {}).get("scores", [])))
        status(f"game over: won by {winners}; scores {scores}", "result", result=result)
    status(f"transcript: {path} ({'verified' if report.ok else 'NOT verified: ' + str(report.error)})",
           "transcript", path=str(path), verified=report.ok)
    return result


def _bot_process(args: list[str], home: Path) -> Any:
    """A bot node bound to this process: its stdin is a pipe from here, and it pauses (exit
    130) when the pipe closes: when this node pauses or dies, so that it never co-signs an
    abandon record against its paused person (`--with-parent`)."""
    import subprocess

    loud = ["-v"] if log.isEnabledFor(logging.INFO) else []      # this node runs with -v: its bots too
    with (home / "node.log").open("ab") as errors:
        proc = subprocess.Popen([sys.executable, "-m", "node", *args, "--bind", "127.0.0.1", "--data-dir", str(home),
                                 "-q", *loud, "--with-parent"],
                                stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=errors,
                                start_new_session=True)
    proc.caravan_args = args                           # what it was started with (BotKeeper starts it again)
    return proc


def start_bots(kinds: list[str], port: int | str, seat: Seat) -> list[Any]:
    """`host --with-bots`: each bot seat is a full node of its own (an OS process joining this
    lobby on loopback, or with the invite through the relay), exactly as if a friend had
    joined with `caravan join --bot KIND`. A broker's login goes to each bot in a 0600 file
    of its own data dir, never on its command line."""
    procs = []
    target = port if isinstance(port, str) else f"127.0.0.1:{port}"
    seat.bot_homes, seat.bot_kinds = [], list(kinds)
    for i, kind in enumerate(kinds, start=1):
        home = (seat.data_dir / "bots" / f"bot{i}").resolve()
        home.mkdir(parents=True, exist_ok=True)
        seed = [] if seat.seed is None else ["--seed", str(seat.seed + i)]
        auth: list[str] = []
        if seat.relay is not None and seat.relay.username is not None:
            from .store import write_private
            write_private(home / "relay-auth", f"{seat.relay.username}:{seat.relay.password or ''}\n".encode())
            auth = ["--relay-auth", str(home / "relay-auth")]
        kind, _, think = kind.partition("@")                  # the home's "search@SECONDS"
        if think:
            seed += ["--think", think]
        number = i
        bot_key = load_identity(home).public                  # made now (the bot reads it): a page names it a bot
        seat.bot_keys[bot_key] = kind
        if seat.bot_seats is not None and i <= len(seat.bot_seats):     # the lobby seats it there
            number = seat.bot_seats[i - 1]
            seat.bot_places[bot_key] = number
        procs.append(_bot_process(["join", target, "--bot", kind, "--name", f"{kind} bot {number}", *seed, *auth],
                                  home))
        seat.bot_homes.append(str(home))
    return procs


def resume_bots(game_id: str, homes: list[str]) -> list[Any]:
    """The bot nodes seated with this person come back with it (each resumes with its own
    remembered settings)."""
    procs = []
    for home in homes:
        path = Path(home)
        if (path / "games").is_dir() and any((path / "games").glob(f"{game_id}*")):
            procs.append(_bot_process(["resume", game_id], path))
    return procs


def stop_bots(helpers: list[Any]) -> None:
    """This node pauses: its bots pause with it (their stdin closes; they stop cleanly)."""
    for proc in helpers:
        try:
            if proc.stdin is not None:
                proc.stdin.close()
        except OSError:
            pass


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
    async with _keep_bots(helpers, seat):
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


@contextmanager
def _bots_pause_with_me(helpers: list[Any]):
    """If this node stops before the game ends (^C, an error, the home closing), its bots stop too."""
    try:
        yield
    except BaseException:
        stop_bots(helpers)
        raise


async def _host_relayed(the_lobby: lobby.Lobby, seat: Seat, bots: list[str], task_status) -> dict[str, Any] | None:
    """`host --relay URL`: the lobby and then the game through the broker; prints the invite."""
    from . import relay as relay_mod

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
            relay.announce(the_lobby.lobby_id, {**the_lobby.status(), "port": None})
            helpers = start_bots(list(bots), invite, seat) if bots else []
            the_lobby.places = dict(seat.bot_places)
            if helpers:
                seat.status(f"{len(helpers)} bot(s) joining: {', '.join(bots)}", "bots")
            task_status.started(invite)
            with _bots_pause_with_me(helpers):
                try:
                    setup = await the_lobby.run(endpoint, os.urandom(32), listen=game_relay.listen)
                finally:
                    relay.clear(the_lobby.lobby_id)
                    endpoint.close()
        with _bots_pause_with_me(helpers):
            seat.status("every seat signed the genesis; play starts", "genesis", game_id=setup.game_id.hex())
            result = await play(setup, seat, None, relay=game_relay)
    await _wait_for_bots(helpers)
    return result


BOT_RESTARTS = 3
"""How often in a row a bot node seated with a person is started again after it stops during
the game (each run of at least BOT_STEADY s starts the count again) before the person's node
ends the game with one line naming it."""
BOT_STEADY = 60.0


class BotStopped(lobby.LobbyError):
    """A bot node seated with this person stops again and again: the game stops, naming it
    (`caravan resume`, the home's Continue, starts it once more)."""


class BotKeeper:
    """Watches the bot nodes seated with this person while the lobby and the game run. One that
    exits before the game is over (killed, or failed: the last line of its log says why) is
    started again — `caravan resume GAME` in its data dir once it holds the game, else its
    `join` again — and the person's status (the home's table log) says so; after BOT_RESTARTS
    quick failures in a row it raises BotStopped naming the bot and its last line. `helpers`
    (the Popen list the caller holds) is updated in place."""

    def __init__(self, helpers: list[Any], seat: Seat, game_id: str | None = None):
        self.helpers, self.seat, self.game_id = helpers, seat, game_id
        self.failures = [0] * len(helpers)
        self.started = [time.monotonic()] * len(helpers)
        self.marks = [_log_size(_bot_home(p)) for p in helpers]
        self._wake = trio.Event()

    def revive(self) -> None:
        """Continue on a running table: every bot that is gone starts again now, counts reset."""
        self.failures = [0] * len(self.helpers)
        self._wake.set()

    async def watch(self) -> None:
        while True:
            for i, proc in enumerate(self.helpers):
                if proc.poll() is None or proc.returncode == 0:
                    continue                              # running, or done with its game
                home = _bot_home(proc)
                why = _exit_reason(proc.returncode, _log_tail(home, self.marks[i]))
                name = f"bot {home.name.removeprefix('bot')}" if home.name.startswith("bot") else str(home)
                if time.monotonic() - self.started[i] >= BOT_STEADY:
                    self.failures[i] = 0
                if self.failures[i] >= BOT_RESTARTS:
                    raise BotStopped(f"{name} stopped ({why}) {BOT_RESTARTS + 1} times; the game stops here "
                                     f"(its log: {home / 'node.log'})")
                self.failures[i] += 1
                game_id = self.game_id or self.seat.game_id
                args = (["resume", game_id] if game_id and (home / "games" / game_id).is_dir()
                        else proc.caravan_args)
                self.seat.status(f"{name} stopped ({why}); starting it again "
                                 f"({self.failures[i]}/{BOT_RESTARTS})", "warning", bot=str(home))
                self.marks[i] = _log_size(home)
                self.started[i] = time.monotonic()
                if proc.stdin is not None:
                    try:
                        proc.stdin.close()
                    except OSError:
                        pass
                self.helpers[i] = _bot_process(args, home)
            self._wake = trio.Event()
            with trio.move_on_after(0.2):
                await self._wake.wait()


def _bot_home(proc: Any) -> Path:
    args = list(proc.args)
    return Path(args[args.index("--data-dir") + 1])


def _log_size(home: Path) -> int:
    try:
        return (home / "node.log").stat().st_size
    except OSError:
        return 0


def _log_tail(home: Path, since: int) -> str:
    """The last line a bot node wrote to its log since `since` (its error line, when it failed)."""
    try:
        with (home / "node.log").open("rb") as fh:
            fh.seek(max(since, fh.seek(0, 2) - 4096))
            lines = [line.strip() for line in fh.read().decode("utf-8", "replace").splitlines() if line.strip()]
    except OSError:
        return ""
    return lines[-1][:800] if lines else ""


def _exit_reason(code: int, line: str) -> str:
    if code < 0:
        try:
            what = f"killed by {signal.Signals(-code).name}"
        except ValueError:
            what = f"killed by signal {-code}"
    else:
        what = f"exit {code}"
    return f"{what}: {line}" if line else what


@asynccontextmanager
async def _keep_bots(helpers: list[Any], seat: Seat, game_id: str | None = None):
    """While the block runs, a BotKeeper restarts the bots that stop; when it ends, wait for
    them to finish too; if this node stops first (^C, an error, the home closing), they pause."""
    if not helpers:
        yield
        return
    keeper = BotKeeper(helpers, seat, game_id)
    seat.bots = keeper
    try:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(keeper.watch)
            yield
            nursery.cancel_scope.cancel()
        seat.bots = None
        await _wait_for_bots(helpers)
    except BaseException:
        stop_bots(helpers)
        raise
    finally:
        seat.bots = None


async def _wait_for_bots(helpers: list[Any]) -> None:
    """The bot nodes end with the game; if this node is interrupted instead, they stay and wait
    for `caravan resume` (or name this seat in an abandon record after the time limit)."""
    with trio.move_on_after(LINGER_BOTS):
        while any(proc.poll() is None for proc in helpers):
            await trio.sleep(0.1)
    for proc in helpers:
        if proc.poll() is None:
            proc.terminate()
    stop_bots(helpers)                            # close our ends of their pipes (a home runs for days)


async def join_relayed(invite: str, seat: Seat) -> dict[str, Any] | None:
    """`caravan join caravan+mqtt://HOST:PORT/LOBBY_ID`: the lobby, then the game, through the broker."""
    from . import relay as relay_mod
    from .relay_url import parse_invite, with_auth

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
    (finished with its transcript, or abandoned) is said so in one line instead."""
    store = GameStore.find(seat.data_dir, game_prefix)
    store.lock()                                    # before its port or broker is touched
    ended = _ended(store, seat)
    if ended is not None:
        return ended
    secrets = store.secrets()
    peers = store.peers()
    if seat.relay is None and peers.get("relay"):
        from .relay_url import parse_relay_url, with_auth
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
    async with _keep_bots(helpers, seat, store.dir.name):
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
        from .relay_url import parse_relay_url, with_auth
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
    from .stored import describe

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
