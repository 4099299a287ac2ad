"""Watching a game live as a spectator (specs/node.md "Spectators"; `caravan watch`, the home's Watch).

The watcher dials a player's node (a game's HOST:PORT, or its lobby's: then it waits there
for the game to start), gets the signed genesis and every message so far, then each new
one, and feeds them to the same strict Session the verifier uses: each message is checked
(signature, chain link, proofs, rules) on arrival, in the order the node logged it. It
holds no seat and signs no game message (its handshake key is thrown away), sees only the
public view, and at the end writes the transcript, byte for byte the players' own.
"""

from __future__ import annotations

import logging
import os
import sys
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, AsyncIterator

import trio

from clients import narrate, render
from clients.replay import badge
from protocol import games, genesis as G, transcript
from protocol.errors import Rejected
from protocol.identity import SigningKey
from protocol.need import EngineFault
from protocol.session import Session
from protocol.verify import Report, error_report, verify_bytes

from .chat import ChatError, Lines, Repeated
from ..cli.checks import host_port
from ..storage.files import write_atomic
from ..net.frames import Connection, FrameError
from .game import ALONE_AFTER, DIAL_BACKOFF, HANDSHAKE_FRAME, LINGER, MAX_UNAUTHENTICATED, peer_name
from ..net.handshake import HandshakeError, HandshakeSlots, handshake
from .lobby import HANDSHAKE_TRIES, LobbyError, open_tcp, clean_name
from .output import plain
from .spectators import Spectators

log = logging.getLogger("caravan.watch")

GAME_STARTS_WITHIN = 15.0
"""After the lobby closes, how long the game's node may take to listen on the same port."""
REFUSED_RETRY = 3.0
"""How long a refused connection is tried again (see _reach)."""
SILENCE = 24 * 3600.0
"""A feed may be quiet this long (players think); TCP tells us when the node goes away."""

REDIALS = 3
"""A link that breaks before the end (a relay frame lost, a broker or a node restarting, this
watcher starved at its low priority) is dialled again; the node sends the game from its
start, and the messages verified already are only compared. At most this many links in a
row that bring no new message (a node that keeps dropping the watcher)."""
REDIAL_PATIENCE = ALONE_AFTER
"""Each time, the link is dialled again for up to this long, as a player's node waits for its
peers (node/app/game.py: "nobody left"), DIAL_BACKOFF apart."""

PAGE_WAIT = 300.0
"""After a bad message, how long the page stays served for someone to open it and read why;
after the result, how long at most for the page to be sent it."""
PAGE_ALONE = 30.0
"""After the result, how long the watcher waits with no page connected: one that fell behind
on a busy machine was dropped and reconnects a second later for the whole state. 10 s was
too short once on a loaded one-core run: the watcher stopped and the page was left saying
"node unreachable" without the result (issue 31)."""

EXIT_OK, EXIT_FAILED = 0, 1


class WatchError(Exception):
    """Watching cannot go on: one line for the user."""


class Replica:
    """The spectator's replica: the verifier's strict Session (every message must apply, in
    the order sent) and the spectator's running narration of it."""

    def __init__(self, genesis_raw: bytes, names: dict[str, str]):
        self.genesis_raw = genesis_raw
        self.genesis = G.parse(genesis_raw)
        self.engine = games.get(self.genesis.game)
        n = len(self.genesis.seats)
        self.names = [clean_name(names.get(str(s))) or f"seat {s}" for s in range(n)]
        self.session = Session(self.genesis, self.engine, strict=True)
        self.table = narrate.Table(self.engine, self.genesis.options, n, None, self.names)
        self.verified = 0
        self.received: list[bytes] = []
        """Every message verified, in the order received (a joint step's parts are logged only together)."""
        self.error: dict[str, Any] | None = None
        self.abandoned: tuple[bytes, list[bytes], Report] | None = None
        """An abandon record that verified: (it, the frames it covers, the verifier's report)."""
        self.chat = Lines(self.genesis.game_id, list(self.genesis.seats), self.names)
        """The table talk the node passed on (its host allowed it), each line checked as the players do."""
        self.chat_refused = 0

    def talk(self, frame: dict) -> tuple[dict[str, Any] | None, str | None]:
        """A `chat` frame: (the line to show, None), or (None, why it was refused: bad lines are
        said, never fatal, as for the players: talk never stops a game), or (None, None) for a
        line already shown (the node sends its talk again on a link dialled again)."""
        try:
            return self.chat.take(frame), None
        except Repeated:
            return None, None
        except ChatError as exc:
            self.chat_refused += 1
            return None, str(exc)

    async def receive(self, raw: bytes) -> list[dict[str, Any]] | None:
        """Check and apply one message; its events as client-API event lines, or None when it
        fails (then `error` says which message, who signed it and why)."""
        position = self.verified + 1
        job = self.session.proof_checks(raw)
        if job is not None:
            await trio.to_thread.run_sync(job.run)       # a shuffle's proofs take a while: off the loop
        try:
            receipt = self.session.receive(raw, job)
        except Rejected as exc:
            self.error = error_report(position, exc)
            return None
        except EngineFault as exc:
            self.error = {"position": position, "code": "engine-fault", "seat": None, "fingerprint": None,
                          "reason": f"the rules engine failed here (a bug in Caravan): {exc}"}
            return None
        if receipt.status != "applied":
            self.error = {"position": position, "code": "out-of-order", "seat": None, "fingerprint": None,
                          "reason": f"the node sent a message that does not follow its log ({receipt.status})"}
            return None
        self.verified = position
        self.received.append(raw)
        out = []
        for event in receipt.events:
            info, lines = self.table.apply(event)
            out.append({"type": "event", "seat": narrate.acting_seat(info), "text": "\n".join(lines),
                        "event": info})
        return out

    async def adopt_record(self, frame: dict) -> bool:
        """The node's `end` frame of an abandoned game: the record and the frames it covers
        (the first `logged` messages of the log, then the `pending` contributions) are checked
        as the transcript they make, by the verifier. False (and `error` says why, naming the
        seat whose signature fails) unless the record verifies."""
        record, logged, pending = frame.get("record"), frame.get("logged"), frame.get("pending")
        if (type(record) is not bytes or type(logged) is not int or not 0 <= logged <= self.verified
                or type(pending) is not list or not all(type(p) is bytes for p in pending)):
            self.error = {"position": self.verified + 1, "code": "bad-abandon", "seat": None, "fingerprint": None,
                          "reason": "the node ended the game with a malformed abandon record"}
            return False
        frames = self.received[:logged] + pending
        report = await trio.to_thread.run_sync(verify_bytes, transcript.dump(self.genesis_raw, frames + [record]))
        if not (report.valid and report.abandoned_by):
            self.error = report.error or {"position": len(frames) + 1, "code": "bad-abandon", "seat": None,
                                          "fingerprint": None, "reason": "the game does not end with this record"}
            return False
        self.abandoned = record, frames, report
        return True

    def abandon_line(self) -> str:
        """What a verified record says, in the players' names (from the record, not the node's text)."""
        assert self.abandoned is not None
        stalled = self.abandoned[2].abandoned_by
        signers = [s for s in range(len(self.names)) if s not in stalled]
        limit = self.genesis.time_limit
        return (f"game abandoned by {', '.join(narrate.seat_name(self.names, s) for s in stalled)}: "
                f"{'no message within ' + str(limit) + ' s' if limit else 'no message'}; the abandon record "
                f"co-signed by {', '.join(narrate.seat_name(self.names, s) for s in signers)} verifies, as does "
                f"every one of the {len(self.abandoned[1])} messages before it")

    def badge(self) -> tuple[str, str]:
        """(css class, text): how far the game verified, or which message failed."""
        if self.error is not None:
            return badge(Report(False, False, error=self.error))
        if self.abandoned is not None:
            return "warn", "Abandoned: " + self.abandon_line().removeprefix("game abandoned ")
        return "ok", f"verified so far: {self.verified} messages"

    def waiting(self) -> str:
        if self.session.complete:
            return "the game is over"
        who = self.session.waiting_for()
        return "waiting for " + ", ".join(narrate.seat_name(self.names, s) for s in who) if who else ""

    def transcript(self) -> bytes:
        """The game's transcript: the log; an abandoned game's is the record's frames and the record."""
        if self.abandoned is not None:
            record, frames, _ = self.abandoned
            return transcript.dump(self.genesis_raw, frames + [record])
        return transcript.dump(self.genesis_raw, self.session.log)


# ----------------------------------------------------------------------------- reaching the game

def watch_invite(url: Any, game_id: bytes, key: bytes) -> str:
    """What others watch a relayed game with: the broker, the game and one player's inbox."""
    from ..net.handshake import inbox_of
    from ..net.relay_url import INVITE_PREFIX
    return f"{INVITE_PREFIX}{url}/watch/{game_id.hex()}/{inbox_of(key)}"


def parse_watch_invite(text: str) -> tuple[Any, bytes, str]:
    """`caravan+mqtt://HOST:PORT/watch/GAME_ID/INBOX` -> (the broker, the game id, the inbox)."""
    from ..net.relay_url import INVITE_PREFIX, parse_relay_url
    head, _, path = text.removeprefix(INVITE_PREFIX).partition("/watch/")
    game, _, inbox = path.lower().partition("/")
    hexdigits = set("0123456789abcdef")
    if len(game) != 64 or len(inbox) != 16 or not set(game + inbox) <= hexdigits:
        raise ValueError(f"{text!r} is not a watch invite: it must end with /watch/GAME_ID/INBOX (64 and 16 hex "
                         "digits; copy the whole line a player's node printed)")
    return parse_relay_url(head), bytes.fromhex(game), inbox


class ClosedEarly(WatchError):
    """The node closed the connection before its first frame: a lobby closing as the game
    starts on the same port (dialled again), or a node going away."""


async def _first(conn: Connection, where: str) -> dict:
    try:
        with trio.fail_after(10):
            frame = await conn.recv()
    except (trio.TooSlowError, FrameError) as exc:
        raise WatchError(f"{where} is not a Caravan game or lobby ({str(exc) or 'it sent nothing for 10 s'})") from None
    if frame is None:
        raise ClosedEarly(f"{where} closed the connection without a word")
    if type(frame) is not dict or frame.get("t") not in ("lobby", "hello"):
        raise WatchError(f"{where} is not a Caravan game or lobby")
    return frame


async def _refused(conn: Connection, where: str) -> dict:
    """The next frame; a refusal becomes the WatchError that says why."""
    frame = await conn.recv()
    if frame is None:
        raise WatchError(f"{where} closed the link")
    if type(frame) is not dict:
        raise WatchError(f"{where} sent something that is not a frame map")
    if frame.get("t") == "refused":
        raise WatchError(f"{where} refused this spectator: {frame.get('why')}")
    return frame


async def _wait_in_lobby(conn: Connection, info: dict, where: str, say, key: SigningKey | None = None,
                         host_pin: bytes | None = None) -> bytes | None:
    """Wait in an open lobby (it says whether the table may be watched) until it closes: its
    game then starts on the same port (through a broker: the host's inbox in that game). The
    game id, when the host told it (`host_pin`: only that key is taken as the host)."""
    if info.get("spectators") is False:
        raise WatchError(f"{where}: this table does not allow spectators (its host chose --spectators no)")
    lobby_id = info.get("lobby")
    if type(lobby_id) is not str:
        raise WatchError(f"{where} sent a lobby without an id")
    await handshake(conn, key or SigningKey.generate(), bytes.fromhex(lobby_id), dialer=True, expect=host_pin)
    await conn.send({"t": "watch"})
    frame = await conn.recv()
    if type(frame) is dict and frame.get("t") == "lobby":     # the host's advert again, now sealed: trusted
        info = frame
        frame = await conn.recv()
    if frame is None:
        return                                        # the lobby filled up and closed meanwhile
    if type(frame) is dict and frame.get("t") == "refused":
        raise WatchError(f"{where} refused this spectator: {frame.get('why')}")
    if type(frame) is not dict or frame.get("t") != "watching":
        raise WatchError(f"{where} answered {frame.get('t')!r} to a spectator (a different Caravan version?)")
    say(f"waiting in lobby {lobby_id[:8]} for {info.get('title')} to start "
        f"({frame.get('seated')}/{frame.get('players')} seated)", "status", lobby=lobby_id)
    game_id = None
    try:
        while (frame := await conn.recv()) is not None:
            if type(frame) is dict and frame.get("t") == "started" and type(frame.get("game_id")) is bytes:
                game_id = frame["game_id"]
                say(f"the game {game_id.hex()[:16]} started: joining it as a spectator", "status",
                    game_id=game_id.hex())
    except (FrameError, trio.BrokenResourceError, trio.ClosedResourceError, OSError):
        pass
    await conn.aclose()
    return game_id


async def _reach(host: str, port: int, where: str) -> Connection:
    """A TCP connection; a refused one is tried again for REFUSED_RETRY seconds (a host's
    node closes its lobby and opens its game on the same port, a moment apart)."""
    deadline = trio.current_time() + REFUSED_RETRY
    while True:
        try:
            return await open_tcp(host, port, where)
        except LobbyError as exc:
            if "refused" not in str(exc) or trio.current_time() >= deadline:
                raise WatchError(f"{exc}; is the game over, or is it another port?") from None
            await trio.sleep(0.2)


async def open_feed(target: str, say) -> tuple[Connection, bytes]:
    """A sealed link to a player's node that will send this spectator the game, and the game
    id the node proved in the handshake."""
    host, port = host_port(target)
    where = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    switch_by = trio.current_time() + GAME_STARTS_WITHIN
    while True:                     # a lobby closing as its game opens there closes us without a word
        conn = await _reach(host, port, where)
        try:
            first = await _first(conn, where)
            break
        except ClosedEarly:
            await conn.aclose()
            if trio.current_time() >= switch_by:
                raise
            await trio.sleep(0.2)
    if first["t"] == "lobby":
        try:
            await _wait_in_lobby(conn, first, where, say)
        except (HandshakeError, FrameError, trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            await conn.aclose()                       # the lobby filled up and closed meanwhile: its game starts
        with trio.move_on_after(GAME_STARTS_WITHIN):
            while True:
                try:
                    conn = await _reach(host, port, where)
                    first = await _first(conn, where)
                    break
                except (LobbyError, WatchError, trio.BrokenResourceError, OSError):
                    await trio.sleep(0.2)
        if first["t"] != "hello":
            raise WatchError(f"the lobby at {where} closed but no game started there within "
                             f"{GAME_STARTS_WITHIN:.0f} s")
    scope = first.get("scope")
    if type(scope) is not bytes:
        raise WatchError(f"{where} is not a Caravan game")
    for attempt in range(1, HANDSHAKE_TRIES + 1):
        try:
            await handshake(conn, SigningKey.generate(), scope, dialer=True, received=first)
            return conn, scope
        except (HandshakeError, FrameError, trio.BrokenResourceError, trio.ClosedResourceError, OSError) as exc:
            await conn.aclose()               # a busy node (or this watcher, starved at its low priority) timed out
            if attempt == HANDSHAKE_TRIES:
                raise WatchError(f"the handshake with {where} failed {attempt} times, the last: {exc}") from None
            log.warning("%s: the handshake failed (%s); trying again (%d/%d)", where, exc, attempt + 1,
                        HANDSHAKE_TRIES)
            await trio.sleep(0.5 * attempt)
            conn = await _reach(host, port, where)
            first = await _first(conn, where)
            if first["t"] != "hello" or first.get("scope") != scope:
                raise WatchError(f"{where} is no longer that game")
    raise AssertionError("unreachable")


# ----------------------------------------------------------------------------- showing it

class Terminal:
    """The game in words on stdout, with the spectator's picture at the start and the end."""

    def __init__(self, out=sys.stdout):
        self.out = out

    def start(self, replica: Replica) -> None:
        print(render.text(replica.engine.name, replica.table.view, replica.names), file=self.out, flush=True)

    def events(self, replica: Replica, msgs: list[dict[str, Any]]) -> None:
        for msg in msgs:
            for line in filter(None, msg["text"].split("\n")):
                print(f"[{replica.verified:>4} verified] {line}", file=self.out, flush=True)

    def failed(self, replica: Replica) -> None:
        pass

    def chat(self, line: dict[str, Any]) -> None:
        print(plain(f"[chat] {line['name']}: {line['text']}"), file=self.out, flush=True)

    async def end(self, replica: Replica, result: Any) -> None:
        print(render.text(replica.engine.name, replica.table.view, replica.names), file=self.out, flush=True)


class Page:
    """The table page in spectator mode (node/pages/web.py serves it): the spectator's picture,
    the narration, a badge with the count of verified messages; no moves."""

    def __init__(self, client: Any):
        self.client = client

    def _board(self, replica: Replica) -> None:
        kind, text = replica.badge()
        status = replica.waiting()
        self.client.board = {"type": "board", "svg": render.svg(replica.engine.name, replica.table.view, replica.names),
                             "status": status, "at": None, "badge": {"kind": kind, "text": text}}
        self.client.broadcast(self.client.board)

    def start(self, replica: Replica) -> None:
        g = replica.genesis
        self.client.hello_msg = {"type": "hello", "spectator": True, "game": g.game, "title": replica.engine.title,
                                 "seat": None, "seats": len(g.seats), "names": replica.names,
                                 "game_id": g.game_id.hex(), "options": g.options}
        self.client.broadcast(self.client.hello_msg)
        self.client.attach_chat(replica.chat)          # the table talk, read-only (Lines.say refuses)
        self._board(replica)

    def events(self, replica: Replica, msgs: list[dict[str, Any]]) -> None:
        for msg in msgs:
            self.client.event(msg)
        self._board(replica)

    def chat(self, line: dict[str, Any]) -> None:
        pass                                           # the page has it: attach_chat

    def failed(self, replica: Replica) -> None:
        self.client.event({"type": "event", "seat": None, "text": replica.badge()[1], "event": None})
        self._board(replica)

    async def end(self, replica: Replica, result: Any) -> None:
        """Keep the page served until it has shown the end: the result, or (after a bad
        message) the badge naming it, for which a page may still be opened (PAGE_WAIT)."""
        if replica.error is None:
            await self.client.result(result)
            if not await self.client.wait_result_seen(PAGE_WAIT, PAGE_ALONE):
                log.warning("stopping without a page having been sent the result: no page connected "
                            "for %g s (or none took it within %g s)", PAGE_ALONE, PAGE_WAIT)
            return
        with trio.move_on_after(PAGE_WAIT):
            while not self.client.pages:
                await trio.sleep(0.1)
            await trio.sleep(1)                        # its snapshot (with the badge) goes out


class Quiet:
    """--json: the lines are the status lines; nothing else to show."""

    def start(self, replica: Replica) -> None:
        pass

    def events(self, replica: Replica, msgs: list[dict[str, Any]]) -> None:
        pass

    def failed(self, replica: Replica) -> None:
        pass

    def chat(self, line: dict[str, Any]) -> None:
        pass

    async def end(self, replica: Replica, result: Any) -> None:
        pass


# ----------------------------------------------------------------------------- watching

@asynccontextmanager
async def _reach_node(target: str, say, relay_auth: str | None) -> AsyncIterator[Any]:
    """For the whole watch, how to reach the player's node: an async function returning a
    fresh link to it and the game id it proved. Over TCP each link is dialled afresh (a
    lobby's HOST:PORT serves its game once it starts); through a broker one connection to it
    is kept for the whole watch (as a player's node keeps its own: paho reconnects after an
    outage) and each link dials the player's inbox in the game's scope (a relayed lobby's
    invite: its host's inbox, waiting in the lobby the first time)."""
    if not target.startswith("caravan+"):
        async def dial_tcp() -> tuple[Any, bytes]:
            return await open_feed(target, say)
        yield dial_tcp
        return
    from ..net import relay as relay_mod
    from ..net.handshake import pin_inbox
    from ..net.relay_url import parse_invite, with_auth

    lobby = host_pin = game_id = None
    if "/watch/" in target:
        url, game_id, inbox = parse_watch_invite(target)
    else:                                              # a lobby's invite: wait there for its game
        invite = parse_invite(target)
        url, lobby, host_pin, inbox = invite.url, bytes.fromhex(invite.lobby), invite.host_pin, pin_inbox(invite.host_pin)
    key = SigningKey.generate()
    endpoints: dict[bytes, Any] = {}

    async def dial_relayed() -> tuple[Any, bytes]:
        nonlocal game_id
        patient = False
        if game_id is None:
            game_id = await _wait_in_relayed_lobby(relay, lobby, inbox, key, host_pin, target, say)
            patient = True
        if game_id not in endpoints:
            endpoints[game_id] = relay.endpoint(game_id)
        for attempt in range(1, HANDSHAKE_TRIES + 1):      # a busy node (or this watcher) may time out
            link = await _dial_game(endpoints[game_id], inbox, target, game_id, patient)
            why: Exception | None = None
            try:
                first = await _first(link, target)
                if first["t"] == "hello" and first.get("scope") == game_id:
                    await handshake(link, key, game_id, dialer=True, received=first, expect=host_pin)
                    return link, game_id
            except (HandshakeError, FrameError, trio.BrokenResourceError, trio.ClosedResourceError, OSError,
                    WatchError) as exc:
                why = exc
            except BaseException:
                with trio.CancelScope(shield=True):
                    await link.aclose()
                raise
            with trio.CancelScope(shield=True):
                await link.aclose()
            if why is None:
                raise WatchError(f"the player at {target} is not in that game")
            if attempt == HANDSHAKE_TRIES:
                raise WatchError(f"the handshake with the player at {target} failed {attempt} times, "
                                 f"the last: {why}")
            log.info("watch: the handshake with %s failed (%s); dialling again", target, why)
        raise AssertionError("unreachable: the last attempt returns or raises")

    async with relay_mod.connect(with_auth(url, relay_auth), key.public) as relay:
        try:
            yield dial_relayed
        finally:
            for endpoint in endpoints.values():
                endpoint.close()


async def _wait_in_relayed_lobby(relay: Any, lobby: bytes, inbox: str, key: SigningKey, host_pin: bytes,
                                 where: str, say) -> bytes:
    """Wait in a lobby through the broker, as over TCP; the game id its host tells at the start."""
    endpoint = relay.endpoint(lobby)
    try:
        try:
            conn = await endpoint.dial(inbox)
        except OSError as exc:
            raise WatchError(f"no lobby answered: {exc}") from None
        first = await _first(conn, where)
        if first["t"] != "lobby" or first.get("lobby") != lobby.hex():
            raise WatchError(f"{where}: the host's node is not in that lobby (its game may have started: ask a "
                             "player for the watch invite their node printed)")
        try:
            game_id = await _wait_in_lobby(conn, first, where, say, key, host_pin)
        except (HandshakeError, FrameError, trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            game_id = None
        finally:
            await conn.aclose()
    finally:
        endpoint.close()
    if game_id is None:
        raise WatchError(f"the lobby at {where} closed without telling its game (a different Caravan version?)")
    return game_id


async def _dial_game(endpoint: Any, inbox: str, where: str, game_id: bytes, patient: bool) -> Any:
    """A link to the player's node at `inbox` in the game; `patient`: its game node may take a
    moment to come up after its lobby closed (tried again for GAME_STARTS_WITHIN seconds)."""
    deadline = trio.current_time() + (GAME_STARTS_WITHIN if patient else 0)
    while True:
        try:
            return await endpoint.dial(inbox)
        except OSError as exc:
            if trio.current_time() >= deadline:
                raise WatchError(f"no player's node answered for game {game_id.hex()[:16]} at {where}: {exc}") from None
            await trio.sleep(0.2)


class Relayed:
    """This watcher's verified log, served to other spectators (`--serve PORT`) by the same
    node/app/spectators.py code a player's node uses: they verify every message themselves, so
    they need not trust this watcher either."""

    def __init__(self, replica: Replica):
        self.genesis_raw, self.session = replica.genesis_raw, replica.session
        self.names = {str(s): n for s, n in enumerate(replica.names)}
        self.changed = trio.Event()
        self.outcome: str | None = None
        self.outcome_text = ""
        self.abandon_record: bytes | None = None     # as a GameNode's: passed on in the end frame
        self.record_frames: list[bytes] = []

    def wake(self) -> None:
        self.changed.set()
        self.changed = trio.Event()

    def end(self, outcome: str, text: str) -> None:
        self.outcome, self.outcome_text = outcome, text
        self.wake()


async def _serve_others(relayed: Relayed, spectators: Spectators, bind: str, port: int, say,
                        task_status=trio.TASK_STATUS_IGNORED) -> None:
    """Accept other spectators on bind:port (the same handshake, scope: the game id)."""
    key, game_id = SigningKey.generate(), relayed.session.game_id
    handshakes = HandshakeSlots(MAX_UNAUTHENTICATED)      # as a player's node: a flood cannot keep them out

    async def incoming(stream: trio.SocketStream) -> None:
        conn = Connection(stream, peer_name(stream), max_frame=HANDSHAKE_FRAME)
        shaken = False
        with handshakes.slot() as proven:
            try:
                await handshake(conn, key, game_id, dialer=False, on_hello=proven)
            except (HandshakeError, FrameError, trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                await conn.aclose()
                return
            shaken = True
        if not shaken:                                     # a newer link took its slot
            await conn.aclose()
            return
        await spectators.serve(conn, conn.address)

    listeners = await trio.open_tcp_listeners(port, host=bind)
    bound = listeners[0].socket.getsockname()[1]
    say(f"serving other spectators on port {bound} (at most {spectators.limit}): caravan watch HOST:{bound}",
        "serving", port=bound)
    task_status.started(bound)
    await trio.serve_listeners(incoming, listeners)


DIAL_ERRORS = (WatchError, LobbyError, HandshakeError, FrameError, OSError, trio.BrokenResourceError,
               trio.ClosedResourceError, trio.TooSlowError)
"""What dialling a player's node may fail with (a relay's RelayError is an OSError)."""


async def _open_game(reach: Any, target: str) -> tuple[Any, bytes, dict]:
    """A link to the player's node (`reach`), the game id it proved and its genesis frame."""
    conn, scope = await reach()
    try:
        frame = await _refused(conn, target)
        if frame.get("t") != "genesis" or type(frame.get("g")) is not bytes:
            raise WatchError(f"{target} did not send the game's genesis (a different Caravan version?)")
    except BaseException:
        with trio.CancelScope(shield=True):
            await conn.aclose()
        raise
    return conn, scope, frame


async def _redial(reach: Any, target: str, replica: Replica) -> tuple[Any, dict]:
    """The link again after it broke, as a player's node redials a peer (node/app/game.py): tried
    again and again, DIAL_BACKOFF apart, for up to REDIAL_PATIENCE seconds (a broker
    restarting, a node being resumed, the players' own links coming back first)."""
    deadline = trio.current_time() + REDIAL_PATIENCE
    delay, longest = DIAL_BACKOFF
    while True:
        try:
            with trio.fail_at(deadline):
                conn, scope, frame = await _open_game(reach, target)
        except DIAL_ERRORS as exc:
            if trio.current_time() + delay >= deadline:
                raise WatchError(f"no answer for {REDIAL_PATIENCE:.0f} s (the last try: "
                                 f"{str(exc) or type(exc).__name__})") from None
            log.info("dialling the player's node again failed (%s); trying again in %.2f s", exc, delay)
            await trio.sleep(delay)
            delay = min(longest, delay * 2)
            continue
        if scope != replica.genesis.game_id or frame["g"] != replica.genesis_raw:
            with trio.CancelScope(shield=True):
                await conn.aclose()
            raise WatchError(f"{target} sent another game's genesis when dialled again")
        return conn, frame


async def watch(target: str, out_dir: Path, out: Path | None, show: Any, say, relay_auth: str | None = None,
                serve: tuple[str, int] | None = None) -> int:
    """Watch until the game ends or a message fails; the exit code. `serve` (bind, port):
    relay the verified messages to other spectators meanwhile."""
    replica: Replica | None = None
    relayed = spectators = None
    async with _reach_node(target, say, relay_auth) as reach, trio.open_nursery() as nursery:
        conn, scope, frame = await _open_game(reach, target)
        try:
            replica = _replica(frame, scope, target)
        except BaseException:
            with trio.CancelScope(shield=True):
                await conn.aclose()
            raise
        g = replica.genesis
        say(f"watching game {g.game_id.hex()[:16]} ({replica.engine.title}, {len(g.seats)} players) "
            f"from {target}", "watching", game=g.game, game_id=g.game_id.hex(), seats=len(g.seats),
            names=replica.names)
        show.start(replica)
        if serve is not None:
            relayed = Relayed(replica)
            spectators = Spectators(relayed, True, names=lambda: relayed.names)
            spectators.read_chat(replica.chat)           # only lines it checked: what the node passed on
            await nursery.start(_serve_others, relayed, spectators, serve[0], serve[1], say)
        redials = 0
        while True:
            before = replica.verified
            try:
                outcome, broken = await _follow(conn, replica, show, say, relayed)
            finally:
                with trio.CancelScope(shield=True):
                    await conn.aclose()
            if not broken or replica.session.complete:
                break
            redials = 1 if replica.verified > before else redials + 1     # a link that brought news: a fresh count
            if redials > REDIALS:
                outcome += f" ({REDIALS} links in a row brought no new message)"
                break
            say(f"{outcome}: dialling it again ({redials} of {REDIALS})", "status")
            try:
                conn, frame = await _redial(reach, target, replica)
            except DIAL_ERRORS as exc:
                outcome = f"dialling the player's node again failed: {exc}"
                break
        if relayed is not None:
            relayed.end("complete" if replica.session.complete else
                        "abandoned" if replica.abandoned is not None else "stopped", outcome)
            with trio.move_on_after(LINGER):
                while not spectators.caught_up():
                    await trio.sleep(0.05)
        nursery.cancel_scope.cancel()
    path = out or out_dir / "watched" / f"{replica.genesis.game_id.hex()}.caravan"
    path.parent.mkdir(parents=True, exist_ok=True)
    if out is None:                  # in the data dir: never through a link planted there (node/storage/files.py)
        write_atomic(path, replica.transcript(), 0o644)
    else:                            # where the user said, as the user said it
        path.write_bytes(replica.transcript())
    report = verify_bytes(path.read_bytes())
    if replica.error is not None:
        say(f"transcript so far (up to the message before the bad one): {path}", "transcript",
            path=str(path), verified=False)
        await show.end(replica, None)
        return EXIT_FAILED
    result = replica.session.result() if replica.session.complete and replica.abandoned is None else None
    abandoned = replica.abandoned is not None and report.valid and bool(report.abandoned_by)
    if result is not None:
        winners = ", ".join(narrate.seat_name(replica.names, w) for w in result.get("winners", []))
        say(f"game over: won by {winners}; scores {result.get('scores')}", "result", result=result)
    elif abandoned:
        line = replica.abandon_line()
        say(line, "abandoned", stalled=report.abandoned_by)
        show.events(replica, [{"type": "event", "seat": None, "text": line[0].upper() + line[1:] + ".", "event": None}])
    else:
        say(f"the game did not finish here: {outcome}", "unfinished", outcome=outcome)
    verdict = ("verified" if report.ok else "verified: abandoned, the record and the messages before it check out"
               if abandoned else "NOT verified: " + str((report.error or {}).get("reason")))
    say(f"transcript: {path} ({verdict})", "transcript", path=str(path), verified=report.ok or abandoned,
        messages=report.messages)
    await show.end(replica, result)
    return EXIT_OK if report.ok else EXIT_FAILED


def _replica(frame: dict, scope: bytes, target: str) -> Replica:
    """The replica of the genesis a node sent, checked against the game id its handshake proved."""
    try:
        replica = Replica(frame["g"], frame.get("names") if isinstance(frame.get("names"), dict) else {})
    except (Rejected, KeyError) as exc:
        raise WatchError(f"{target} sent a genesis that does not verify: {exc}") from None
    if replica.genesis.game_id != scope:
        raise WatchError(f"{target} sent the genesis of another game than the one it named")
    return replica


async def _follow(conn: Connection, replica: Replica, show: Any, say,
                  relayed: Relayed | None = None) -> tuple[str, bool]:
    """Apply every message the node sends until its end frame; stop at the first bad one.
    The node sends the game from its start: messages verified on an earlier link are only
    compared. (How it ended, whether the link broke before the end.)"""
    resent, already = 0, list(replica.received)
    while True:
        try:
            with trio.fail_after(SILENCE):
                frame = await conn.recv()
        except (FrameError, trio.BrokenResourceError, trio.ClosedResourceError, OSError, trio.TooSlowError) as exc:
            return f"the link to the player's node broke ({exc})", True
        if frame is None:
            return "the player's node closed the link before the end", True
        if type(frame) is not dict:
            return "the player's node sent something that is not a frame map", False
        if frame.get("t") == "msg" and resent < len(already):
            if frame.get("m") != already[resent]:
                return (f"the player's node sent message #{resent + 1} unlike the one it sent before (the link "
                        "was dialled again); stopped", False)
            resent += 1
            continue
        if frame.get("t") == "end":
            if frame.get("outcome") == "abandoned" and "record" in frame:
                if not await replica.adopt_record(frame):
                    return _failed(replica, show, say), False
                if relayed is not None:
                    relayed.abandon_record, relayed.record_frames = replica.abandoned[0], replica.abandoned[1]
            return str(frame.get("text") or frame.get("outcome")), False
        if frame.get("t") == "chat":
            _talk(replica, frame, show, say)
            continue
        if frame.get("t") != "msg" or type(frame.get("m")) is not bytes:
            return f"the player's node sent an unexpected {frame.get('t')!r} frame", False
        msgs = await replica.receive(frame["m"])
        if msgs is None:
            return _failed(replica, show, say), False
        for msg in msgs:
            say(msg["text"], "event", seat=msg["seat"], event=msg["event"], verified=replica.verified)
        show.events(replica, msgs)
        if relayed is not None:
            relayed.wake()


def _talk(replica: Replica, frame: dict, show: Any, say) -> None:
    """One line of the table talk: shown, or said to be refused (the 1st, 2nd, 4th… refusal,
    so that a node sending bad lines cannot flood the output); the watch goes on either way."""
    line, why = replica.talk(frame)
    if line is not None:
        say(f"{line['name']}: {line['text']}", "chat", seat=line["seat"], name=line["name"], said=line["text"])
        show.chat(line)
    elif why is not None and replica.chat_refused & (replica.chat_refused - 1) == 0:
        say(f"a chat line the player's node passed on was refused: {why} ({replica.chat_refused} refused so far)",
            "chat_refused", reason=why, refused=replica.chat_refused)


def _failed(replica: Replica, show: Any, say) -> str:
    """Say which message (or record) failed and who signed it; the line."""
    kind, text = replica.badge()
    err = replica.error or {}
    say(text, "invalid", **{k: err.get(k) for k in ("position", "seat", "fingerprint", "code", "reason")})
    show.failed(replica)
    return text


# ----------------------------------------------------------------------------- its process and its page

def lower_priority() -> str:
    """Let this watcher run only on CPU time nobody else wants: a spectator is never
    latency-critical, so on a machine where a player's node runs too it must never take a
    core from it (bench_spectate). Linux: SCHED_IDLE; elsewhere: nice 19. Threads started
    afterwards (the proof checks) inherit it. What it became, for the log."""
    try:
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
        return "idle (SCHED_IDLE)"
    except (AttributeError, OSError):
        pass
    try:
        os.nice(19)
        return "nice 19"
    except (AttributeError, OSError):
        return "unchanged (this system cannot lower it)"


async def serve_page(nursery: trio.Nursery, say, port: int = 0, open_page: Any = None) -> Any:
    """The table page in spectator mode, served in `nursery` (its link told by `say`), and
    given to `open_page(url)` when given (a BrowserOpener)."""
    from ..pages.web import WebClient

    client = WebClient()
    url = await nursery.start(client.serve, port)
    say(f"watch in your browser: {url}", "web", url=url)
    if open_page is not None:
        open_page(url)
    return client
