"""A running game on one node: the replica, this seat's player, the peer mesh and the store.

The node only moves bytes, keeps time and persists; every decision about validity is
the session's. Messages are gossiped (each new message is forwarded to every other
peer) and each side periodically tells the other how many messages it holds per author,
so whatever a peer missed while a link was down is resent verbatim.
"""

from __future__ import annotations

import hashlib
import logging
from dataclasses import dataclass
from typing import Any, Awaitable, Callable

import trio

from protocol import abandon, chain, games, genesis as G
from protocol.errors import Rejected
from protocol.identity import SigningKey, fingerprint
from protocol.player import Player
from protocol.need import EngineFault
from protocol.session import Session

from .frames import Connection, FrameError
from .handshake import HandshakeError, handshake
from .store import GameStore

log = logging.getLogger("caravan.node")

SYNC_INTERVAL = 0.25
RESEND_BATCH = 64
LINGER = 5.0
"""After the end, keep serving peers this long at most, until all have every message."""

Decider = Callable[[Any, list[Any], str], Awaitable[Any]]
"""async decider(view, legal_actions, kind) -> one of legal_actions."""


@dataclass
class Progress:
    """What the node reports as the game goes (for status lines and the client API)."""
    on_event: Callable[[Any, Any], None] = lambda event, session: None
    on_reject: Callable[[Rejected, str], None] = lambda exc, source: None
    on_replayed: Callable[[Any, Any], None] = lambda event, session: None
    """Events of the stored messages applied again at start (a resumed node's history)."""
    on_trace: Callable[[str, bytes], None] | None = None
    """("sign" | "apply", raw message): for latency measurements (caravan ... --trace FILE)."""


class GameNode:
    def __init__(self, store: GameStore, key: SigningKey, decider: Decider,
                 listen: tuple[str, int], peers: dict[int, tuple[str, int]],
                 progress: Progress | None = None, decision_timeout: float | None = None):
        self.store = store
        self.key = key
        self.decider = decider
        self.listen = listen
        self.peer_addrs = peers
        self.progress = progress or Progress()
        self.genesis_raw = store.genesis()
        self.genesis = G.parse(self.genesis_raw)
        self.engine = games.get(self.genesis.game)
        self.session = Session(self.genesis, self.engine)
        self.seat = self.genesis.seats.index(key.public)
        secrets = store.secrets()
        self.player = Player(self.session, self.seat, key, secrets["secret"],
                             Player.load_secrets(secrets["committed"]))
        self.conns: dict[int, Connection] = {}
        self.scopes: dict[int, trio.CancelScope] = {}
        self.peer_heads: dict[int, list[int]] = {}
        self.changed = trio.Event()
        self.blocked: set[int] = set()           # seats whose links are cut (tests, operators)
        self.bound_port: int | None = None
        self.seen: set[bytes] = set()            # sha256 of every message handled
        self.finished = trio.Event()
        self.abandon_votes: dict[tuple, dict[int, bytes]] = {}
        self.abandon_record: bytes | None = None
        self._replay()

    # ------------------------------------------------------------------ state
    def _replay(self) -> None:
        """Re-apply every stored message (after a restart); bad ones are logged and skipped."""
        stored = self.store.messages()
        for raw in stored:
            try:
                receipt = self.session.receive(raw)
            except Rejected as exc:
                log.warning("stored message refused on replay: %s", exc)
                continue
            for event in receipt.events:
                self.progress.on_replayed(event, self.session)
        if stored:
            log.info("seat %d: replayed %d stored messages (%d applied)", self.seat, len(stored),
                     len(self.session.log))

    def counts(self) -> list[int]:
        return [len(a) for a in self.session.accepted]

    def _wake(self) -> None:
        self.changed.set()
        self.changed = trio.Event()

    def _persist_secrets(self) -> None:
        s = self.store.secrets()
        s["committed"] = self.player.secrets()
        self.store.save_secrets(s)

    # ------------------------------------------------------------------ messages
    async def _ingest(self, raw: bytes, source: int | None, address: str) -> None:
        digest = hashlib.sha256(raw).digest()
        if digest in self.seen:
            return                                  # a copy we already handled: no re-verification
        try:
            receipt = self.session.receive(raw)
        except Rejected as exc:
            log.warning("from %s: refused: %s", address, exc)
            self.progress.on_reject(exc, address)
            return
        except EngineFault as exc:
            log.error("from %s: the rules engine failed on this message (a bug, please report it): %s",
                      address, exc)
            return
        for exc in receipt.rejected:
            log.warning("buffered message refused: %s", exc)
            self.progress.on_reject(exc, address)
        self.seen.add(digest)
        if receipt.status == "duplicate":
            return
        if receipt.status == "applied" and self.progress.on_trace:
            self.progress.on_trace("apply", raw)
        self.store.append(raw)
        for event in receipt.events:
            self.progress.on_event(event, self.session)
        if source is not None and self.genesis.seats[source] != _author(raw):
            # relayed (not straight from its author): pass it on, in case a link is down;
            # an author sends its own messages to everyone, and resync covers the rest
            await self._broadcast(raw, exclude=source)
        self._wake()

    async def _publish(self, raw: bytes) -> None:
        """Our own message: already applied by the player; persist, then send."""
        if self.progress.on_trace:
            self.progress.on_trace("sign", raw)
        self.seen.add(hashlib.sha256(raw).digest())
        self.store.append(raw)
        for event in self.player.take_events():
            self.progress.on_event(event, self.session)
        await self._broadcast(raw)
        self._wake()

    async def _broadcast(self, raw: bytes, exclude: int | None = None) -> None:
        for seat, conn in list(self.conns.items()):
            if seat != exclude:
                await self._send(seat, conn, {"t": "msg", "m": raw})

    async def _send(self, seat: int, conn: Connection, frame: Any) -> None:
        try:
            await conn.send(frame)
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            self._drop(seat, conn, "send failed")

    def _drop(self, seat: int, conn: Connection, why: str) -> None:
        if self.conns.get(seat) is conn:
            del self.conns[seat]
            log.info("seat %d: link to seat %d (%s) down: %s", self.seat, seat, conn.address, why)

    # ------------------------------------------------------------------ connections
    async def _serve(self, conn: Connection, seat: int) -> None:
        old = self.conns.get(seat)
        self.conns[seat] = conn
        if old is not None and old is not conn:
            await old.aclose()
        log.debug("seat %d: link to seat %d (%s) up", self.seat, seat, conn.address)
        await self._send(seat, conn, {"t": "heads", "h": self.counts()})
        scope = trio.CancelScope()
        self.scopes[seat] = scope
        try:
            with scope:
                while True:
                    frame = await conn.recv()
                    if frame is None:
                        break
                    await self._on_frame(seat, conn, frame)
        except (FrameError, trio.BrokenResourceError, trio.ClosedResourceError, OSError) as exc:
            log.warning("seat %d: dropping %s (seat %d): %s", self.seat, conn.address, seat, exc)
        finally:
            self._drop(seat, conn, "closed")
            await conn.aclose()

    async def _on_frame(self, seat: int, conn: Connection, frame: Any) -> None:
        if type(frame) is not dict:
            raise FrameError("a frame is not a map")
        t = frame.get("t")
        if t == "msg" and type(frame.get("m")) is bytes:
            await self._ingest(frame["m"], seat, conn.address)
        elif (t == "heads" and type(frame.get("h")) is list and len(frame["h"]) == self.session.n
              and all(type(x) is int and x >= 0 for x in frame["h"])):
            self.peer_heads[seat] = frame["h"]
            await self._resend(seat, conn, frame["h"])
        elif (t == "abandon" and type(frame.get("stalled")) is list and type(frame.get("length")) is int
              and all(type(x) is int for x in frame["stalled"]) and type(frame.get("sig")) is bytes):
            key = (tuple(frame["stalled"]), frame["length"])
            voter = frame.get("by", seat)
            if type(voter) is int and 0 <= voter < self.session.n:
                self.abandon_votes.setdefault(key, {})[voter] = frame["sig"]
            self._check_abandon()
        else:
            raise FrameError(f"unknown or malformed frame {t!r}")

    async def _resend(self, seat: int, conn: Connection, theirs: list[int]) -> None:
        """Send what the peer lacks, oldest first, a batch at a time."""
        sent = 0
        for author, have in enumerate(theirs):
            for msg in self.session.accepted[author][have:]:
                if sent >= RESEND_BATCH:
                    return
                await self._send(seat, conn, {"t": "msg", "m": msg.raw})
                sent += 1

    async def _incoming(self, stream: trio.SocketStream) -> None:
        address = _peer_name(stream)
        conn = Connection(stream, address)
        try:
            peer = await handshake(conn, self.key, self.genesis.game_id, dialer=False)
        except (HandshakeError, FrameError, trio.BrokenResourceError, trio.ClosedResourceError, OSError) as exc:
            log.warning("seat %d: handshake with %s failed: %s", self.seat, address, exc)
            await conn.aclose()
            return
        if peer not in self.session.seat_of or peer == self.key.public:
            log.warning("seat %d: %s proved key %s, which holds no other seat in this game; dropped",
                        self.seat, address, fingerprint(peer))
            await conn.aclose()
            return
        seat = self.session.seat_of[peer]
        if seat in self.blocked:
            await conn.aclose()
            return
        await self._serve(conn, seat)

    async def _dial(self, seat: int) -> None:
        """Keep a link to `seat` up (this side dials seats with a higher number, and
        everyone after a restart)."""
        delay = 0.05
        while True:
            if seat in self.conns or seat in self.blocked:
                await trio.sleep(SYNC_INTERVAL)
                continue
            if seat not in self.peer_addrs:
                await trio.sleep(SYNC_INTERVAL)
                continue
            host, port = self.peer_addrs[seat]
            try:
                with trio.fail_after(3):
                    stream = await trio.open_tcp_stream(host, port)
            except (OSError, trio.TooSlowError):
                await trio.sleep(delay)
                delay = min(1.0, delay * 2)
                continue
            delay = 0.05
            conn = Connection(stream, f"{host}:{port}")
            try:
                peer = await handshake(conn, self.key, self.genesis.game_id, dialer=True)
            except (HandshakeError, FrameError, trio.BrokenResourceError, trio.ClosedResourceError, OSError) as exc:
                log.warning("seat %d: handshake with %s failed: %s", self.seat, conn.address, exc)
                await conn.aclose()
                await trio.sleep(0.5)
                continue
            if peer != self.genesis.seats[seat]:
                log.warning("seat %d: %s is not seat %d (key %s); dropped", self.seat, conn.address, seat,
                            fingerprint(peer))
                await conn.aclose()
                await trio.sleep(1)
                continue
            await self._serve(conn, seat)

    async def _sync(self) -> None:
        while True:
            await trio.sleep(SYNC_INTERVAL)
            heads = self.counts()
            for seat, conn in list(self.conns.items()):
                await self._send(seat, conn, {"t": "heads", "h": heads})

    # ------------------------------------------------------------------ playing
    async def _play(self) -> None:
        while not self.session.complete:
            changed = self.changed
            for raw in self.player.automatic():
                await self._publish(raw)
            decision = self.player.decision()
            if decision is None:
                if not self.session.complete and changed is self.changed:
                    await self.changed.wait()
                continue
            view = self.engine.view(self.session.state, self.seat, self.player.knowledge)
            action = await self.decider(view, decision.legal, decision.kind)
            if self.player.decision() != decision:
                continue                                  # the game moved on meanwhile
            raw = self.player.decide(action)
            if decision.kind == "commit":
                self._persist_secrets()                   # the value must survive a crash
            await self._publish(raw)

    # ------------------------------------------------------------------ stalls
    def _progress_mark(self) -> tuple:
        return (sum(self.counts()), self.session.complete)

    async def _watchdog(self) -> None:
        """Sign an abandon statement when the seats the game waits for stay silent longer
        than the genesis's time limit (never for this node's own seat)."""
        limit = self.genesis.time_limit
        if not limit:
            return
        mark, since = self._progress_mark(), trio.current_time()
        while not self.finished.is_set():
            await trio.sleep(min(0.25, limit / 4))
            now = self._progress_mark()
            if now != mark:
                mark, since = now, trio.current_time()
                continue
            waiting = self.session.waiting_for()
            if self.session.complete or not waiting or self.seat in waiting or trio.current_time() - since < limit:
                continue
            length = len(self.session.log)
            sig = abandon.sign(self.key, self.session.game_id, waiting, length, abandon.log_digest(self.session.log))
            self.abandon_votes.setdefault((tuple(waiting), length), {})[self.seat] = sig
            log.info("seat %d: seats %s silent for %ds; signing an abandon statement", self.seat, waiting, limit)
            for s, conn in list(self.conns.items()):
                await self._send(s, conn, {"t": "abandon", "stalled": waiting, "length": length,
                                            "sig": sig, "by": self.seat})
            self._check_abandon()

    def _check_abandon(self) -> None:
        """Finish the game as abandoned once every seat the game is not waiting for (this one
        included, unless it is itself stalled) has signed the statement, checked against this
        replica's own log."""
        waiting = tuple(self.session.waiting_for())
        key = (waiting, len(self.session.log))
        votes = self.abandon_votes.get(key, {})
        if not waiting or self.finished.is_set():
            return
        digest = abandon.log_digest(self.session.log)
        good = {s: sig for s, sig in votes.items()
                if abandon.signature_ok(self.session.seats[s], sig, self.session.game_id, list(waiting), key[1], digest)}
        if sorted(good) == [s for s in range(self.session.n) if s not in waiting]:
            self.abandon_record = abandon.record(list(waiting), key[1], good)
            self.finished.set()

    async def _play_to_the_end(self) -> None:
        await self._play()
        self.finished.set()

    async def _announce_abandon(self) -> None:
        """Give the seats that have not seen every vote a last chance to complete the record."""
        stalled, length, sigs = abandon.parse_record(self.abandon_record)
        for s, conn in list(self.conns.items()):
            for voter, sig in sigs.items():
                if voter != s:
                    await self._send(s, conn, {"t": "abandon", "stalled": stalled, "length": length,
                                                "sig": sig, "by": voter})

    def everyone_has_everything(self) -> bool:
        mine = self.counts()
        return all(self.peer_heads.get(s) == mine for s in range(self.session.n) if s != self.seat)

    async def run(self, task_status=trio.TASK_STATUS_IGNORED, dial_all: bool = False,
                  listeners: list[trio.SocketListener] | None = None) -> dict[str, Any] | None:
        """Play until the game is complete (and peers have every message, or LINGER passed).

        `listeners`: already-bound listeners to serve on (else bind `self.listen`)."""
        if listeners is None:
            host, port = self.listen
            listeners = await trio.open_tcp_listeners(port, host=host)
        self.bound_port = listeners[0].socket.getsockname()[1]
        async with trio.open_nursery() as nursery:
            nursery.start_soon(trio.serve_listeners, self._incoming, listeners)
            for seat in range(self.session.n):
                if seat != self.seat and (dial_all or seat > self.seat):
                    nursery.start_soon(self._dial, seat)
            nursery.start_soon(self._sync)
            nursery.start_soon(self._play_to_the_end)
            nursery.start_soon(self._watchdog)
            task_status.started(self.bound_port)
            await self.finished.wait()
            extra = [self.abandon_record] if self.abandon_record else []
            self.store.write_transcript(self.genesis_raw, self.session.log + extra)
            if self.abandon_record:
                await self._announce_abandon()
            with trio.move_on_after(LINGER):
                while not self.everyone_has_everything():
                    await trio.sleep(SYNC_INTERVAL / 2)
            nursery.cancel_scope.cancel()
        self.store.close()
        return self.session.result()

    def cut(self, seat: int) -> None:
        """Cut the link to `seat` and refuse it until `restore` (for tests of lossy networks)."""
        self.blocked.add(seat)
        scope = self.scopes.get(seat)
        if scope is not None:
            scope.cancel()

    def restore(self, seat: int) -> None:
        self.blocked.discard(seat)


def _author(raw: bytes) -> bytes | None:
    try:
        return chain.parse(raw).author
    except chain.ParseError:
        return None


def _peer_name(stream: Any) -> str:
    try:
        host, port = stream.socket.getpeername()[:2]
        return f"{host}:{port}"
    except (OSError, AttributeError):
        return "?"

