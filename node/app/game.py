"""A running game on one node: the replica, this seat's player, the peer mesh and the store.

The node only moves bytes, keeps time and persists; every decision about validity is
the session's. Messages are gossiped (each new message is forwarded to every other
peer) and each side periodically tells the other how many messages it holds per author;
the other then sends every message the first lacks, in log order, a page at a time, so a
node missing any number of messages catches up from whoever holds them.

Liveness and one truth per game (specs/node.md "Stalls", specs/protocol.md §11): a node
signs nothing before it has heard from every peer how many of its own messages they hold
and caught up to that (a lost log never makes it sign a used seq again); when the game
waits too long for other seats, it *proposes* to abandon them for the exact state — a
promise that binds only once every other seat that would sign has proposed the same — and
plays on meanwhile; with every proposal in, it signs the abandon statement, signs nothing
after it, and stops once a complete record is known (the one on the earliest state, if
several exist). So one node's view of silence (a fast clock, a one-sided link) never costs
it its seat. A node that cannot form a record (its co-signers are gone) gives up after a
stated time; one that hears from nobody at all stops too.

The logic of both is sans-I/O in protocol/seat/ (`Mesh`: heads, catch-up, intake, the gate
to signing; `Ballot`: the abandon vote; `Watchdog`: each tick of the stall watch;
`PostboxSeat`: a turn-based table's postbox seat, its drained inbox and when it is idle), fed
frames and trio's clock; this module is their shell: links, tasks, timers, the store, the
decider and the log lines.
"""

from __future__ import annotations

import logging
import os
import time
from dataclasses import dataclass
from typing import Any, Awaitable, Callable

import trio

from protocol import games, genesis as G
from protocol.errors import Rejected
from protocol.identity import SigningKey, fingerprint
from protocol.player import Player
from protocol.seat.core import SeatCore
from protocol.seat.mesh import MAX_EARLY_BYTES, digest_of
from protocol.seat.postbox import MAIL_DRAIN, MAIL_QUIET, PostboxSeat
from protocol.seat.turn import Turn
from protocol.seat.vote import Hooks, limit_text
from protocol.seat.vote_memory import VoteKeeper
from protocol.seat.watch import Watchdog
from protocol.session import ProofJob, Session

from ..net.frames import MAX_FRAME, Connection, FrameError, pack
from ..net.handshake import HandshakeError, HandshakeSlots, handshake
from .spectators import LOBBY_WATCHERS_DUE
from ..storage.store import CannotContinue, GameStore, StoreWriteError
from ..storage.vote_memory import VoteMemory, load as load_votes, save as save_votes

log = logging.getLogger("caravan.node")

SYNC_INTERVAL = 0.25
DIAL_BACKOFF = (0.05, 1.0)
"""A failed dial of a peer is tried again after the first pause, doubled up to the second (s)."""
FLUSH_INTERVAL = 0.05
"""The log is fsync'd behind the game at most this often (each fsync covers every record
written before it): one worker-thread hand-off per fsync, not per message."""
RELAY_HEADS_IDLE = 2.0
"""Through a relay, unchanged heads are repeated only this often (the broker carries each frame)."""
LINGER = 5.0
"""After the end, keep serving peers this long at most, until all have every message."""
GIVE_UP_FACTOR = 4
MIN_GIVE_UP = 10.0
"""A node that sees a stall and no complete abandon record gives up (exit 1, unfinished
transcript) GIVE_UP_FACTOR × the time limit (at least MIN_GIVE_UP s) after noticing it; a
node holding a record keeps announcing it that long at most, until every peer has it."""
ALONE_AFTER = float(os.environ.get("CARAVAN_TEST_ALONE_AFTER") or 60.0)     # the variable: tests only
"""A node that hears nothing from any other seat's node for this long after it starts (or,
without a time limit, at any time) stops: a resumed node whose peers all finished or left
would otherwise wait forever."""
MAX_UNAUTHENTICATED = 32
"""Incoming connections still in their handshake; a new one closes the oldest that has not sent
a valid hello (node/net/handshake.py HandshakeSlots), so a flood cannot keep a real peer out."""
HANDSHAKE_FRAME = 4096
"""The largest frame a peer may send before it has authenticated."""

Decider = Callable[[Any, list[Any], str], Awaitable[Any]]
"""async decider(view, legal_actions, kind) -> one of legal_actions; a decider whose
`wants_view` is False gets None for the view."""


@dataclass
class Progress:
    """What the node reports as the game goes (for status lines and the client API)."""
    on_event: Callable[[Any, Any], None] = lambda event, session: None
    on_reject: Callable[[Rejected, str], None] = lambda exc, source: None
    on_replayed: Callable[[Any, Any], None] = lambda event, session: None
    """Events of the stored messages applied again at start (a resumed node's history)."""
    on_trace: Callable[[str, bytes | None], None] | None = None
    """(mark, raw message or None): for latency measurements (caravan ... --trace FILE); the
    marks of a hop in order: "recv" (a peer's message decoded), "apply" (accepted), "ask"
    (this seat's next message looked for: an automatic one, then the decider's), "sign"
    (this node's next message signed), "sent" (written to every link); and "end" once the
    game is over here."""
    on_state: Callable[[Any], None] = lambda session: None
    """The replica changed (an event, or a contribution held without one: a seat chose in secret)."""


class GameNode:
    def __init__(self, store: GameStore, key: SigningKey, decider: Decider,
                 listen: tuple[str, int], peers: dict[int, tuple[str, int]],
                 progress: Progress | None = None, decision_timeout: float | None = None, relay: Any = None,
                 mail: Any = None, until_idle: bool = False):
        self.store = store
        self.relay = relay
        """A relay Endpoint (node/net/relay.py): links go through an MQTT broker instead of TCP."""
        self.mail = mail
        """A MailTransport (node/net/mail_links.py): a turn-based table's seats talk through postboxes
        on the broker, never over live links (the relay endpoint then serves spectators only)."""
        self.until_idle = until_idle
        """With `mail`: stop (outcome "idle") once this node has done all it can without others."""
        self.decides_alone = True
        """Its decider is a bot (with `until_idle`, a person's turn is left to the person)."""
        self.key = key
        self.decider = decider
        self.listen = listen
        self.peer_addrs = peers
        self.progress = progress or Progress()
        self.genesis_raw = store.genesis()
        self.genesis = G.parse(self.genesis_raw)
        self.engine = games.get(self.genesis.game)
        self.session = Session(self.genesis, self.engine)
        if key.public not in self.genesis.seats:
            raise CannotContinue(f"this node's key ({fingerprint(key.public)}, identity.key) holds no seat in game "
                                 f"{self.genesis.game_id.hex()[:16]}: use the --data-dir the game was played from")
        self.seat = self.genesis.seats.index(key.public)
        secrets = store.secrets()
        try:
            self.player = Player(self.session, self.seat, key, secrets["secret"],
                                 Player.load_secrets(secrets["committed"]))
        except ValueError as exc:
            raise CannotContinue(f"{store.dir / 'secrets.bin'} is not this seat's ({exc}); restore this game's "
                                 "secrets.bin from a backup of this data directory") from None
        hooks = Hooks(self._signed, self._adopted, self._note, self._caught_up)
        self.core = SeatCore(self.session, self.seat, key, hooks, postbox=mail is not None, on_heard=self._heard)
        """This seat between its links, without them (protocol/seat/); its clock is trio's."""
        self.mesh = self.core.mesh          # heads, catch-up, intake and the gate to signing
        self.ballot = self.core.ballot      # the abandon vote
        self.watchdog = Watchdog(self.ballot, postbox=mail is not None)
        self.turn = Turn(self.core, self.player)    # the signing steps of the game loop
        self.postseat = PostboxSeat(self.turn, self.watchdog, mail.mailbox) if mail is not None else None
        """With `mail`: what this seat is owed, the drained inbox, when it is idle (protocol/seat/postbox.py)."""
        self.conns: dict[int, Connection] = {}
        self.scopes: dict[int, trio.CancelScope] = {}
        self.changed = trio.Event()
        self.blocked: set[int] = set()           # seats whose links are cut (tests, operators)
        self.bound_port: int | None = None
        self.verifying: set[bytes] = set()       # sha256 of messages whose proofs a worker thread checks
        self.proof_limiter = trio.CapacityLimiter(1)
        self.in_threads = True
        """Proof checks and fsyncs run in a worker thread so the loop goes on meanwhile. Tests
        on trio's autojump clock set False: while a thread works every task waits, so virtual
        time would race on to the next deadlines (a busy core ran a move time out that way)."""
        self.finished = trio.Event()
        self.longest_pause = 0.0                 # seconds this process was stopped (SIGSTOP), at most
        self.down_for = 0.0                      # seconds since the stored log last changed (a resumed node's downtime)
        self.votes: VoteKeeper | None = None     # a postbox node's vote kept across runs (node/storage/vote_memory.py)
        self.outcome: str | None = None          # "complete", "abandoned", "gave-up", "store-failed"
        self.outcome_text = ""
        self.handshakes = HandshakeSlots(MAX_UNAUTHENTICATED)
        self.durable_log_len = 0                 # the first messages of session.log known fsync'd here
        self._written = trio.Event()             # set when the store holds records not fsync'd yet
        self._syncs_started = self._syncs_done = 0   # fsyncs of the log (see `durable`)
        self._synced = trio.Event()              # set (and replaced) after each fsync
        self.spectators: Any = None              # node/app/spectators.py: serves keys that hold no seat
        self.chat: Any = None                    # node/app/chat.py: talk beside the game, never in the transcript
        store.lock()                             # one process per game folder (GameLocked otherwise)
        self.down_for = store.idle_for()
        try:
            self._replay()
            store.open_log()
        except BaseException:
            store.close()
            raise

    # ------------------------------------------------------------------ state
    def _replay(self) -> None:
        """Re-apply every stored message (after a restart); bad ones are logged and skipped."""
        stored = self.store.messages()
        for raw in stored:
            try:
                events = self.mesh.replay(raw)
            except Rejected as exc:
                log.warning("stored message refused on replay: %s", str(exc))
                continue
            for event in events:
                self.progress.on_replayed(event, self.session)
        if stored:
            log.info("seat %d: replayed %d stored messages (%d applied)", self.seat, len(stored),
                     len(self.session.log))
            self._written.set()                     # fsync'd again before spectators get them
        self._note_state(0.0)

    def _wake(self) -> None:
        self.changed.set()
        self.changed = trio.Event()

    def _persist_secrets(self) -> None:
        s = self.store.secrets()
        s["committed"] = self.player.secrets()
        self.store.save_secrets(s)

    def _now(self) -> float:
        try:
            return trio.current_time()
        except RuntimeError:
            return 0.0

    def _note_state(self, now: float | None = None) -> None:
        """Record a new snapshot if the replica changed, and look again at votes and records
        that named a state this node had not reached."""
        now = self._now() if now is None else now
        if self.ballot.note_state(now):
            self.progress.on_state(self.session)
            self.ballot.place_unplaced(now)

    # the ballot's hooks (protocol/seat/vote.py Hooks)
    def _signed(self) -> None:
        """This seat signed an abandon statement: a postbox node keeps it before it can be sent."""
        if self.mail is not None:                       # kept before it can be sent: later runs sign nothing
            self._remember_votes(must=True)
        self._wake()

    def _adopted(self, text: str) -> None:
        self._finish("abandoned", text)
        log.info("seat %d: %s", self.seat, self.outcome_text)

    def _heard(self, seat: int, frame: dict) -> None:
        """A proposal or vote of `seat`: a postbox node keeps it across runs."""
        if self.votes is not None:
            self.votes.memory.hear(seat, frame)

    def _note(self, level: str, text: str) -> None:
        log.log(logging.WARNING if level == "warning" else logging.INFO, "%s", text)

    @property
    def abandon_record(self) -> bytes | None:
        """The complete abandon record that ended the game here, if any (spectators get it)."""
        return self.ballot.record

    @property
    def record_frames(self) -> list[bytes]:
        """The messages the record covers."""
        return self.ballot.record_frames

    def may_sign(self) -> bool:
        """This node may sign a chain message now: it has recovered its own chain, signed no
        abandon statement, and its store works."""
        return self.turn.may_sign(stopped=self.outcome is not None)

    def _finish(self, outcome: str, text: str) -> None:
        limit, away = self.genesis.time_limit, max(self.longest_pause, self.down_for)
        need = self.session.need
        if outcome == "gave-up" and limit and away > limit and need is not None and need.kind != "final":
            text += (f"; this seat was away for {away:.0f} s (stopped, or not running), longer than the "
                     f"{limit_text(self.genesis)}, so the others have probably abandoned it (their transcripts "
                     f"then end with a record naming seat {self.seat})")
        if self.outcome in (None, "gave-up") or (outcome == "abandoned" and self.outcome == "abandoned"):
            self.outcome, self.outcome_text = outcome, text
        self.ballot.game_complete = self.outcome == "complete"
        self.finished.set()
        self._wake()

    def _store_failed(self, exc: StoreWriteError) -> None:
        log.error("seat %d: %s", self.seat, str(exc))
        self.outcome = "store-failed"
        self.outcome_text = str(exc)
        self.finished.set()
        self._wake()

    # ------------------------------------------------------------------ messages
    async def _ingest(self, raw: bytes, source: int | None, address: str) -> None:
        """A message from a peer (`source`, at `address`): its proofs checked off the loop,
        then taken by the mesh; what it accepted is stored, reported and, if relayed, passed on."""
        digest = digest_of(raw)
        if not self.mesh.is_new(digest) or digest in self.verifying or self.outcome == "store-failed":
            return                                  # a copy we already handled: no re-verification
        proofs = await self._check_proofs(raw, digest)
        if self.outcome == "store-failed":
            return                                  # the store failed meanwhile
        intake = self.mesh.receive(raw, source, proofs)   # "old": a copy came meanwhile
        if intake.refused is not None:
            log.warning("from %s: refused: %s", address, str(intake.refused))
            self.progress.on_reject(intake.refused, address)
        elif intake.fault is not None:
            log.error("from %s: the rules engine failed on this message (a bug, please report it): %s",
                      address, str(intake.fault))
        for exc in intake.rejected:
            log.warning("buffered message refused: %s", str(exc))
            self.progress.on_reject(exc, address)
        if intake.dropped_early is not None:
            log.warning("seat %d: seat %d sent over %d bytes of messages ahead of the game; dropped one",
                        self.seat, intake.dropped_early, MAX_EARLY_BYTES)
        if not intake.accepted:
            return
        if self.progress.on_trace:
            for done in intake.accepted:
                self.progress.on_trace("apply", done)
        try:
            for done in intake.accepted:
                self.store.append(done)                 # fsync'd behind the game (_flush)
        except StoreWriteError as exc:
            self._store_failed(exc)
            return
        self._written.set()
        for event in intake.events:
            self.progress.on_event(event, self.session)
        self._note_state()
        if intake.forward:
            await self._broadcast(raw, exclude=source)
        self._check_recovered()
        self._wake()

    async def _check_proofs(self, raw: bytes, digest: bytes) -> ProofJob | None:
        """Run the message's deck proof checks (a shuffle takes tens of ms) in a worker thread,
        so that the event loop goes on receiving, forwarding and applying meanwhile; the
        session itself is only ever touched from the loop. One message at a time."""
        job = self.session.proof_checks(raw)
        if job is None:
            return None
        self.verifying.add(digest)
        try:
            await self._off_loop(job.run, limiter=self.proof_limiter)
        finally:
            self.verifying.discard(digest)
        return job

    async def _off_loop(self, work: Callable[[], Any], limiter: trio.CapacityLimiter | None = None) -> Any:
        """`work()` in a worker thread (or, with `in_threads` off, right here)."""
        if not self.in_threads:
            return work()
        return await trio.to_thread.run_sync(work, limiter=limiter)

    async def _publish(self, *raws: bytes) -> bool:
        """Our own messages: already applied by the player; written to the store (fsync'd
        behind the game, see _flush), all before anything is awaited (so every message of
        the session's log is in the store whenever another task runs), then sent. False if
        they could not be written: then nothing is sent and the node stops."""
        for raw in raws:
            if self.progress.on_trace:
                self.progress.on_trace("sign", raw)
            self.mesh.own(raw)
            try:
                self.store.append(raw, own=True)
            except StoreWriteError as exc:
                self._store_failed(exc)
                return False
        self._written.set()
        for event in self.player.take_events():
            self.progress.on_event(event, self.session)
        self._note_state()
        for raw in raws:
            await self._broadcast(raw)
            if self.progress.on_trace:
                self.progress.on_trace("sent", raw)
        self._wake()
        return True

    async def _flush(self) -> None:
        """fsync the log behind the game, in a worker thread, one fsync at a time and at
        most every FLUSH_INTERVAL, each covering every record written before it began
        (specs/node.md "Durability guarantees": a message is sent once written, before it
        is durable; a machine crash may lose the last ones, which the peers hold and give
        back before this node signs again). `durable_log_len` follows, for spectators, who
        get only durable messages. A failed fsync stops the node as a failed write does."""
        while True:
            await self._written.wait()
            self._written = trio.Event()
            logged = len(self.session.log)
            self._syncs_started += 1
            started = self._syncs_started
            try:
                await self._off_loop(self.store.sync)
            except StoreWriteError as exc:
                self._store_failed(exc)
                return
            self._syncs_done = started
            self._synced.set()
            self._synced = trio.Event()
            if self.outcome == "store-failed":
                return                              # the log may lack what the session holds
            if logged > self.durable_log_len:
                self.durable_log_len = logged
                self._wake()
            await trio.sleep(FLUSH_INTERVAL)

    async def durable(self) -> bool:
        """Wait until everything written to the store before this call is fsync'd (True), or
        the store failed (False). What a postbox publishes waits for it (node/net/mail_links.py)."""
        target = self._syncs_started + 1                 # an fsync that begins after this call
        self._written.set()
        while self._syncs_done < target:
            if self.outcome == "store-failed":
                return False
            synced = self._synced
            with trio.move_on_after(1.0):                # (a failed store sets nothing)
                await synced.wait()
        return self.outcome != "store-failed"

    async def _broadcast(self, raw: bytes, exclude: int | None = None) -> None:
        await self.send_all({"t": "msg", "m": raw}, exclude)

    async def send_all(self, frame: Any, exclude: int | None = None) -> None:
        """Send `frame` (encoded once) to every linked peer but `exclude`: first to the seats
        the game waits for now (on loopback each send may hand the CPU to its receiver, so
        the next mover's copy goes first: issue #25)."""
        data = pack(frame)
        waiting = self.session.waiting_for()
        for seat, conn in sorted(self.conns.items(), key=lambda item: item[0] not in waiting):
            if seat != exclude:
                await self._send(seat, conn, data)

    async def _send(self, seat: int, conn: Connection, frame: Any) -> None:
        """Send a frame (or its `pack`ed bytes) to `seat`; a failed link is dropped."""
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
        await self._send(seat, conn, self.mesh.heads())
        for frame in self.ballot.frames(recent=8):
            await self._send(seat, conn, frame)
        scope = trio.CancelScope()
        self.scopes[seat] = scope
        try:
            with scope:
                while True:
                    frame = await conn.recv()
                    if frame is None:
                        break
                    try:
                        await self._on_frame(seat, conn, frame)
                    except FrameError as exc:
                        if not getattr(conn, "keeps_going", False):
                            raise
                        log.warning("seat %d: dropped a frame of seat %d (%s): %s", self.seat, seat, conn.address,
                                    str(exc))
        except (FrameError, trio.BrokenResourceError, trio.ClosedResourceError, OSError) as exc:
            log.warning("seat %d: dropping %s (seat %d): %s", self.seat, conn.address, seat, str(exc))
        finally:
            self._drop(seat, conn, "closed")
            await conn.aclose()

    async def _on_frame(self, seat: int, conn: Connection, frame: Any) -> None:
        """A frame of `seat`: the core takes it (FrameError if it is none it knows); this shell
        checks and stores a message, answers, and serves chat and the genesis."""
        reaction = self.core.on_frame(seat, frame, self._now())
        if reaction.message is not None:
            if self.progress.on_trace:
                self.progress.on_trace("recv", reaction.message)
            await self._ingest(reaction.message, seat, conn.address)
        if reaction.opened:
            self._opened()
        if reaction.kind == "heads" and self.postseat is not None:
            await self._send_owed(seat, conn)
        for reply in reaction.replies:                   # a page of what it lacks, or a proposal
            await self._send(seat, conn, reply)
        if reaction.kind == "chat" and self.chat is not None:
            self.chat.receive(seat, frame)
        elif reaction.kind == "genesis?":           # a seat that signed but lost the rest (fetch_genesis)
            await self._send(seat, conn, {"t": "genesis", "g": self.genesis_raw,
                                          "peers": {str(s): list(a) for s, a in self.peer_addrs.items()}})

    async def _send_owed(self, seat: int, conn: Connection, everyone_s: bool = True) -> None:
        """A postbox node: send `seat` what it is owed (PostboxSeat.owed)."""
        for frame in self.postseat.owed(seat, everyone_s):
            await self._send(seat, conn, frame)

    async def _send_own_owed(self) -> None:
        """A postbox node: send every seat the messages of this seat it is owed."""
        for seat, frame in self.postseat.own_owed():
            await self._send(seat, self.mail.links[seat], frame)

    def _check_recovered(self) -> None:
        """Open the gate to signing once every peer has said how many of this seat's
        messages it holds and this node holds at least as many (it fetched them back)."""
        if self.mesh.check_recovered():
            self._opened()

    def _opened(self) -> None:
        log.info("seat %d: every peer reported; %d own messages held, signing may go on",
                 self.seat, self.mesh.counts()[self.seat])
        self._wake()

    async def _incoming(self, stream: trio.SocketStream) -> None:
        await self._accept(Connection(stream, peer_name(stream)))

    async def _accept(self, conn: Connection) -> None:
        """An incoming link (a TCP connection, or a relay link): handshake, then serve it."""
        address = conn.address
        conn.max_frame = HANDSHAKE_FRAME
        peer = None
        with self.handshakes.slot() as proven:
            try:
                peer = await handshake(conn, self.key, self.genesis.game_id, dialer=False, on_hello=proven)
            except (HandshakeError, FrameError, trio.BrokenResourceError, trio.ClosedResourceError, OSError) as exc:
                log.warning("seat %d: handshake with %s failed: %s", self.seat, address, str(exc))
                await conn.aclose()
                return
        if peer is None:                             # a newer link took its slot
            log.warning("seat %d: %s dropped: %d newer links were in their handshake", self.seat, address,
                        MAX_UNAUTHENTICATED)
            await conn.aclose()
            return
        conn.max_frame = MAX_FRAME
        if peer not in self.session.seat_of and self.spectators is not None:
            await self.spectators.serve(conn, address)
            return
        if self.mail is not None and peer in self.session.seat_of and peer != self.key.public:
            log.warning("seat %d: %s is seat %d on a live link; on this turn-based table the seats talk "
                        "through their postboxes only; dropped", self.seat, address, self.session.seat_of[peer])
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
        delay = DIAL_BACKOFF[0]
        while True:
            if seat in self.conns or seat in self.blocked:
                await trio.sleep(SYNC_INTERVAL)
                continue
            if seat not in self.peer_addrs and self.relay is None:
                await trio.sleep(SYNC_INTERVAL)
                continue
            try:
                conn = await self._open_link(seat)
            except (OSError, trio.TooSlowError):
                await trio.sleep(delay)
                delay = min(DIAL_BACKOFF[1], delay * 2)
                continue
            delay = DIAL_BACKOFF[0]
            try:
                peer = await handshake(conn, self.key, self.genesis.game_id, dialer=True)
            except (HandshakeError, FrameError, trio.BrokenResourceError, trio.ClosedResourceError, OSError) as exc:
                log.warning("seat %d: handshake with %s failed: %s", self.seat, conn.address, str(exc))
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

    async def _open_link(self, seat: int) -> Connection:
        """A fresh link to `seat`: through the relay, or a TCP connection to its address."""
        if self.relay is not None:
            return await self.relay.dial(self.genesis.seats[seat])
        host, port = self.peer_addrs[seat]
        with trio.fail_after(3):
            stream = await trio.open_tcp_stream(host, port)
        return Connection(stream, f"{host}:{port}")

    async def _sync(self) -> None:
        """Send `heads` to every peer each SYNC_INTERVAL; through a relay, unchanged heads
        only every RELAY_HEADS_IDLE (each frame is a message the broker carries)."""
        idle = SYNC_INTERVAL if self.relay is None else RELAY_HEADS_IDLE
        sent: dict[int, tuple[Connection, list[int], float]] = {}
        while True:
            await trio.sleep(SYNC_INTERVAL)
            heads, now = self.mesh.counts(), trio.current_time()
            for seat, conn in list(self.conns.items()):
                last = sent.get(seat)
                if last is None or last[0] is not conn or last[1] != heads or now - last[2] >= idle - 0.01:
                    sent[seat] = (conn, heads, now)
                    await self._send(seat, conn, {"t": "heads", "h": heads})

    # ------------------------------------------------------------------ playing
    async def _play(self) -> None:
        """Sign what this seat owes and what the decider chooses (protocol/seat/turn.py)."""
        while not self.session.complete and not self.finished.is_set():
            changed = self.changed
            if not self.may_sign():
                await changed.wait()
                continue
            if self.progress.on_trace:
                self.progress.on_trace("ask", None)       # (what follows: an automatic message, if any)
            automatic = self.turn.owed()
            if automatic and not await self._publish(*automatic):
                return
            question = self.turn.question(wants_view=False)
            if question is None:
                if not self.session.complete and changed is self.changed:
                    await self.changed.wait()
                continue
            if self.progress.on_trace:
                self.progress.on_trace("ask", None)
            view = self.turn.view() if getattr(self.decider, "wants_view", True) else None
            action = await self.decider(view, question.legal, question.kind)
            raw = self.turn.answer(question, action, stopped=self.outcome is not None)
            if raw is None:
                continue                                  # the game moved on meanwhile
            if question.kind == "commit":
                try:
                    self._persist_secrets()               # the value must survive a crash
                except StoreWriteError as exc:
                    self._store_failed(exc)               # not sent: a resume decides again
                    return
            if not await self._publish(raw):
                return

    # ------------------------------------------------------------------ stalls
    def give_up_after(self) -> float:
        return max(MIN_GIVE_UP, GIVE_UP_FACTOR * self.genesis.time_limit)

    async def _watchdog(self) -> None:
        """Tick the stall watch (protocol/seat/watch.py) while the table has a time limit:
        say what it decided, send what it gives, stop when it gives up."""
        limit = self.genesis.time_limit
        if not limit:
            return
        tick = min(0.25, limit / 4)
        self.watchdog.start(trio.current_time(), self.give_up_after())
        while not self.finished.is_set():
            await trio.sleep(tick)
            now = trio.current_time()
            done = self.watchdog.tick(now)
            if done.paused is not None:
                log.info("seat %d: this node was paused %.1f s", self.seat, done.paused)
                self.longest_pause = max(self.longest_pause, done.paused)
            if done.proposed is not None:
                log.info("seat %d: seats %s silent for %d s; proposed to abandon them", self.seat,
                         list(done.proposed), limit)
            for frame in done.send:
                await self.send_all(frame)
            if done.give_up is not None:
                self._finish("gave-up", done.give_up)
                return
            if self.mail is not None:
                self._remember_votes()

    def _caught_up(self) -> bool:
        """A postbox node judges silence only once it has taken and applied everything that
        waited on the broker: a move made in time while this node was away is not silence."""
        return self.postseat is None or self.postseat.caught_up(
            bool(self.verifying), any(link.waiting() for link in self.mail.links.values()))

    async def _watch_company(self) -> None:
        """Stop when no other seat's node has sent anything for ALONE_AFTER seconds — since
        this run started, or (without a time limit, which would otherwise settle it) since
        the last one went quiet: say so, and keep what this node holds (a later `caravan
        resume` fetches the rest from any peer that is back)."""
        if self.session.n == 1:
            return
        started = trio.current_time()
        while not self.finished.is_set():
            await trio.sleep(1.0)
            if self.mesh.heard and self.genesis.time_limit:
                continue                                # a stall now goes by the time limit's rules
            last = max(self.mesh.heard.values(), default=started)
            if trio.current_time() - last >= ALONE_AFTER:
                where = ("the game was at its final signatures" if self.session.need is not None
                         and self.session.need.kind == "final" else f"waiting for {self.session.describe_need()}")
                self._finish("gave-up", f"no other seat's node has answered for {ALONE_AFTER:.0f} s (they may have "
                                        f"finished or left; {where}): stopped with {len(self.session.log)} "
                                        f"messages kept — caravan resume {self.session.game_id.hex()[:16]} "
                                        f"fetches the rest once any of them is back")
                return

    async def _send_abandon_frames(self) -> None:
        for frame in self.ballot.frames():
            await self.send_all(frame)

    async def _play_to_the_end(self) -> None:
        await self._play()
        if self.session.complete:
            self._finish("complete", "the game is complete")

    def _write_transcript(self) -> None:
        frames = self.record_frames + [self.abandon_record] if self.abandon_record else self.session.log
        try:
            self.store.write_transcript(self.genesis_raw, frames)
        except StoreWriteError as exc:
            self._store_failed(exc)

    async def run(self, task_status=trio.TASK_STATUS_IGNORED, dial_all: bool = False,
                  listeners: list[trio.SocketListener] | None = None) -> dict[str, Any] | None:
        """Play until the game is complete, abandoned, given up or the store fails; then keep
        serving peers a while (until all have every message, or the record). The result is
        None unless the game is complete (see `outcome`)."""
        if listeners is None and self.relay is None and self.mail is None:
            host, port = self.listen
            listeners = await trio.open_tcp_listeners(port, host=host)
        if listeners:
            self.bound_port = listeners[0].socket.getsockname()[1]
        try:
            return await self._run(task_status, dial_all, listeners)
        finally:
            self.store.close()                      # the log, and the game's lock

    async def _run(self, task_status, dial_all: bool, listeners: list[trio.SocketListener] | None) -> dict[str, Any] | None:
        if self.mail is not None:
            self._restore_votes()
        async with trio.open_nursery() as nursery:
            if listeners:
                nursery.start_soon(trio.serve_listeners, self._incoming, listeners)
            if self.relay is not None:
                await nursery.start(self.relay.serve, self._accept)
            if self.mail is not None:
                nursery.start_soon(self.mail.receive)
                nursery.start_soon(self.mail.pump, self.durable)
                for seat, link in self.mail.links.items():
                    nursery.start_soon(self._serve, link, seat)
                nursery.start_soon(self._mail_drained)
            else:
                for seat in range(self.session.n):
                    if seat != self.seat and (dial_all or seat > self.seat):
                        nursery.start_soon(self._dial, seat)
                nursery.start_soon(self._watch_company)   # (a postbox's seats may be away for days)
            nursery.start_soon(self._sync)
            nursery.start_soon(self._flush)
            nursery.start_soon(self._play_to_the_end)
            nursery.start_soon(self._watchdog)
            task_status.started(self.bound_port)
            await self.finished.wait()
            if self.progress.on_trace:
                self.progress.on_trace("end", None)
            if self.outcome != "store-failed":
                written = self.abandon_record
                self._write_transcript()
                if self.outcome == "abandoned" and self.mail is not None:
                    await self._send_abandon_frames()      # the record waits on the broker for each seat
                elif self.outcome == "abandoned":
                    # every co-signer must hold the record (bounded by the give-up time); the
                    # stalled seats get LINGER seconds more to come back and meet it
                    for phase, bound in (("signers", self.give_up_after()), ("everyone", LINGER)):
                        with trio.move_on_after(bound):
                            while not self.ballot.everyone_has_the_record(signers_only=phase == "signers"):
                                await self._send_abandon_frames()
                                if self.abandon_record is not written:      # an earlier record won
                                    written = self.abandon_record
                                    self._write_transcript()
                                await trio.sleep(SYNC_INTERVAL * 2)
                    if self.abandon_record is not written:
                        self._write_transcript()
                    with trio.move_on_after(self._linger()):     # the spectators get the record too
                        while self.spectators and not self.spectators.caught_up():
                            await trio.sleep(SYNC_INTERVAL / 2)
                elif self.outcome == "complete":
                    with trio.move_on_after(self._linger()):
                        while ((self.mail is None and not self.mesh.everyone_has_everything())
                               or (self.spectators and not self.spectators.caught_up())):
                            await trio.sleep(SYNC_INTERVAL / 2)
            if self.mail is not None and self.outcome != "store-failed":
                self._remember_votes()
            nursery.cancel_scope.cancel()
        return self.session.result() if self.outcome == "complete" else None

    def _restore_votes(self) -> None:
        """A postbox node's start: since when it holds its state (by this machine's clock,
        across its runs), its own proposals and signature, and the others' it took in earlier
        runs (node/storage/vote_memory.py)."""
        try:
            memory = load_votes(self.store.dir)
        except ValueError as exc:
            log.warning("seat %d: %s; the abandon votes of earlier runs are forgotten", self.seat, str(exc))
            memory = VoteMemory()
        self.votes, now = VoteKeeper(memory), trio.current_time()
        if not self.votes.restore(self.ballot, now, time.time()):     # still bound by it: sign nothing
            log.warning("seat %d: this seat signed an abandon statement for a state it cannot rebuild; it "
                        "signs nothing more", self.seat)
        self.votes.hear_again(self.ballot, now)

    def _remember_votes(self, must: bool = False) -> None:
        """Keep what `_restore_votes` reads (when it changed). `must`: this seat's signature,
        which nothing may send before it is kept (a failure then stops the node)."""
        if self.votes is None or self.votes.changed(self.ballot, trio.current_time(), time.time()) is None:
            return
        try:
            self.votes.saved = save_votes(self.store.dir, self.votes.memory)
        except OSError as exc:
            if must:
                self._store_failed(StoreWriteError(f"cannot keep this seat's abandon signature in "
                                                   f"{self.store.dir}: {exc}"))
            else:
                log.warning("seat %d: cannot keep the abandon votes in %s: %s", self.seat, self.store.dir, exc)

    async def _mail_drained(self) -> None:
        """A postbox node: once what waited on the broker has come, take it as all come
        (PostboxSeat.drained_at) and send each seat what it is owed of this seat; then, left
        running, look for losses every second, or with `until_idle` stop once idle."""
        await self.mail.postbox.drained(MAIL_QUIET, MAIL_DRAIN)
        drained = self.postseat.drained_at(self.mail.reported(), trio.current_time())
        if drained.opened:
            self._opened()
        await self._send_own_owed()
        if drained.shut is not None:
            log.warning("%s", drained.shut_text(self.seat))
        while not self.finished.is_set():
            if not self.until_idle:                     # a node left running: losses on the way
                await trio.sleep(1.0)
                self.mail.check(trio.current_time())
                await self._send_own_owed()
                continue
            await trio.sleep(MAIL_QUIET / 4)
            if self.postseat.idle(trio.current_time(), self.mail.busy(), self.mail.last_activity,
                                  bool(self.verifying), self.decides_alone, stopped=self.outcome is not None):
                self._finish("idle", self.postseat.idle_text())
                return

    def _linger(self) -> float:
        """How long to stay after the game for peers and spectators: LINGER, or longer while
        a spectator told of the game in the lobby has yet to come (node/app/spectators.py)."""
        if self.spectators and self.spectators.awaiting():
            log.info("waiting up to %.0f s for the spectators the lobby told of this game", LOBBY_WATCHERS_DUE)
            return max(LINGER, LOBBY_WATCHERS_DUE)
        return LINGER

    def cut(self, seat: int) -> None:
        """Cut the link to `seat` and refuse it until `restore` (for tests of lossy networks)."""
        self.blocked.add(seat)
        scope = self.scopes.get(seat)
        if scope is not None:
            scope.cancel()

    def restore(self, seat: int) -> None:
        self.blocked.discard(seat)


async def fetch_genesis(key: SigningKey, body: bytes, peers: dict[int, tuple[str, int]],
                        within: float = ALONE_AFTER, relay: Any = None) -> tuple[bytes, dict[int, tuple[str, int]]]:
    """The signed genesis of the game whose body this seat signed, taken back from another
    seat's node (a node killed between its signature and storing the genesis: specs/node.md
    "Store"), with the addresses that node knows: (genesis, peers). Asks every known address
    (through `relay`, an Endpoint in the game: every other seat's key) in turn, again and
    again, for `within` seconds; raises LookupError naming who was asked."""
    game_id = G.game_id_of(body)
    seats = list(G.wire.decode(body)["seats"])
    tried: list[str] = []
    if relay is not None:
        peers = {s: ("relay", 0) for s, k in enumerate(seats) if k != key.public}

    async def open_link(seat: int, host: str, port: int) -> Any:
        if relay is not None:
            return await relay.dial(seats[seat])
        return Connection(await trio.open_tcp_stream(host, port), f"{host}:{port}")

    with trio.move_on_after(within):
        while True:
            for seat, (host, port) in sorted(peers.items()):
                where = "the broker" if relay is not None else f"{host}:{port}"
                try:
                    with trio.fail_after(10):
                        conn = await open_link(seat, host, port)
                        try:
                            conn.max_frame = HANDSHAKE_FRAME
                            peer = await handshake(conn, key, game_id, dialer=True)
                            conn.max_frame = MAX_FRAME
                            if peer != seats[seat]:
                                raise HandshakeError(f"{where} is not seat {seat}")
                            await conn.send({"t": "genesis?"})
                            while True:
                                frame = await conn.recv()
                                if frame is None:
                                    raise FrameError("closed before it sent the genesis")
                                if type(frame) is dict and frame.get("t") == "genesis":
                                    break
                        finally:
                            await conn.aclose()
                    raw = frame.get("g")
                    if type(raw) is not bytes or G.parse(raw).body != body:
                        raise FrameError("it sent another genesis")
                    known = {int(s): (str(a[0]), int(a[1])) for s, a in (frame.get("peers") or {}).items()
                             if type(a) is list and len(a) == 2}
                    return raw, ({} if relay is not None else {**known, **{seat: (host, port)}})
                except (OSError, trio.TooSlowError, HandshakeError, FrameError, trio.BrokenResourceError,
                        trio.ClosedResourceError, Rejected, ValueError, TypeError) as exc:
                    if f"seat {seat} at {where}" not in tried:
                        tried.append(f"seat {seat} at {where}")
                    log.info("the genesis from seat %d at %s: %s", seat, where, exc)
            await trio.sleep(1.0)
    raise LookupError(f"no other seat's node gave back the signed genesis within {within:.0f} s "
                      f"(asked {', '.join(tried) or 'nobody: no address is known'})")


def peer_name(stream: Any) -> str:
    try:
        host, port = stream.socket.getpeername()[:2]
        return f"{host}:{port}"
    except (OSError, AttributeError):
        return "?"
