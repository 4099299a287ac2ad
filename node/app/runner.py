"""One seat's game on this node, once its lobby made the genesis: the Seat (how this node
decides and where it lives), its decider (a bot, the terminal, the web page, a client
program), the narration, and `play`, which runs the game node to the end, reports progress
and writes the transcript. The operations that lead here (host, join, resume, ...) are in
node/app/operations.py."""

from __future__ import annotations

import atexit
import hashlib
import logging
import math
import os
import shutil
import signal
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import trio

from clients import narrate, table_lines
from clients.bot import make_bot
from clients.terminal import TerminalClient
from protocol import abandon, engine as E, games, genesis as G, wire
from protocol.identity import fingerprint
from protocol.verify import verify_bytes

from . import lobby
from ..storage import seat_memory
from .output import Status
from .client_api import BotDecider, ClientDecider, TcpClientPort, spawn_bot, stdio_channel
from .chat import Chat
from .game import GameNode, Progress
from .spectators import Spectators
from ..storage.store import GameStore, load_identity

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
    tab: str | None = None
    """host --tab URL: the browser tab's address; the host also prints the link that opens it with the invite."""
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
    def present(view: Any, legal: list[Any], kind: str) -> list[dict[str, Any]]:
        return narrate.moves(engine.name, view, legal, node_ref[0].seat)
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
    from ..pages.web import WebClient

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
        from ..pages.browser import open_page
        await trio.to_thread.run_sync(open_page, url, seat.data_dir, "table.html")
    return client


async def _web(seat: Seat, game: str, nursery: trio.Nursery, info: dict[str, Any], present, store) -> Any:
    """The page's decider; the page is served already (host/join) or from now on (resume)."""
    from ..pages.web import WebDecider, load_settings, save_settings

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
            msg = table_lines.event(info, lines)
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
        table = table_lines.table_state(session)
        self._last_key = table["key"]
        return table

    def waiting_text(self, table: dict[str, Any]) -> str:
        """The table's status line: "your decision", or whom the game waits for and for what."""
        return table_lines.waiting_text(self.names, self.seat, table)

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
        from ..net import relay as relay_mod
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
        from ..net.postbox import open_postbox
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
    seat's postbox `box` is open: the seats then talk through postboxes, node/net/mail_links.py)."""
    status = seat.status
    transport = None
    if box is not None:
        from ..net.mail_links import MailTransport, load_state
        from protocol.mail.mailbox import Mailbox
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
        node.chat.send = node.send_all
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
