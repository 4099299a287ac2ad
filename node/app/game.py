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
"""

from __future__ import annotations

import hashlib
import logging
import os
import time
from dataclasses import dataclass
from typing import Any, Awaitable, Callable

import trio

from protocol import abandon, chain, games, genesis as G
from protocol.errors import Rejected
from protocol.identity import SigningKey, fingerprint
from protocol.player import Player
from protocol.need import EngineFault
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
RESEND_BATCH = 64
RELAY_HEADS_IDLE = 2.0
"""Through a relay, unchanged heads are repeated only this often (the broker carries each frame)."""
LINGER = 5.0
"""After the end, keep serving peers this long at most, until all have every message."""
GIVE_UP_FACTOR = 4
MIN_GIVE_UP = 10.0
"""A node that sees a stall and no complete abandon record gives up (exit 1, unfinished
transcript) GIVE_UP_FACTOR × the time limit (at least MIN_GIVE_UP s) after noticing it; a
node holding a record keeps announcing it that long at most, until every peer has it."""
TURN_BASED_RESEND = 600.0
"""On a turn-based table, the longest pause between two sendings of an abandon proposal or
statement (a live table's is its time limit; a turn-based one's would be a day)."""
MAIL_QUIET = 0.5
MAIL_DRAIN = 30.0
"""A postbox node takes what waited on the broker as all come once its inbox has been quiet
for MAIL_QUIET s (a broker sends a session's queue at once), MAIL_DRAIN s at most; with
`until_idle` it stops once it has had nothing to do for MAIL_QUIET s."""
MAIL_STUCK = 30.0
"""With `until_idle`, a turn of this seat's bot during which nothing happened this long is left."""
ALONE_AFTER = float(os.environ.get("CARAVAN_TEST_ALONE_AFTER") or 60.0)     # the variable: tests only
"""A node that hears nothing from any other seat's node for this long after it starts (or,
without a time limit, at any time) stops: a resumed node whose peers all finished or left
would otherwise wait forever."""
MAX_UNAUTHENTICATED = 32
"""Incoming connections still in their handshake; a new one closes the oldest that has not sent
a valid hello (node/net/handshake.py HandshakeSlots), so a flood cannot keep a real peer out."""
MAX_EARLY_BYTES = 8 << 20
"""Bytes of messages held ahead of the game (not yet applicable) per author."""
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


@dataclass
class Snapshot:
    """One state the replica was in: every accepted message (the log's first `log_len`,
    then the pending contributions in seat order), whom an abandon could name, and when
    (trio clock) this node held it."""
    log_len: int
    pending: tuple[bytes, ...]
    stalled: tuple[int, ...]
    counts: tuple[int, ...]              # accepted messages per author
    since: float
    until: float | None = None
    digest: bytes | None = None
    frames: list[bytes] | None = None    # for a state rebuilt by replay (see GameNode._state_at)

    @property
    def length(self) -> int:
        return self.log_len + len(self.pending)


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
        self.conns: dict[int, Connection] = {}
        self.scopes: dict[int, trio.CancelScope] = {}
        self.peer_heads: dict[int, list[int]] = {}
        self.changed = trio.Event()
        self.blocked: set[int] = set()           # seats whose links are cut (tests, operators)
        self.bound_port: int | None = None
        self.seen: set[bytes] = set()            # sha256 of every message applied (not merely buffered)
        self.verifying: set[bytes] = set()       # sha256 of messages whose proofs a worker thread checks
        self.proof_limiter = trio.CapacityLimiter(1)
        self.in_threads = True
        """Proof checks and fsyncs run in a worker thread so the loop goes on meanwhile. Tests
        on trio's autojump clock set False: while a thread works every task waits, so virtual
        time would race on to the next deadlines (a busy core ran a move time out that way)."""
        self.finished = trio.Event()
        self.order: list[tuple[int, int]] = []   # (seat, seq) of each logged message
        self.history: list[Snapshot] = []
        self._by_counts: dict[tuple[int, ...], Snapshot] = {}
        self.vote: Snapshot | None = None        # the state whose abandon statement this seat signed
        self.proposed: dict[tuple[int, ...], Snapshot] = {}      # states this seat proposed to abandon
        self.proposals: dict[tuple[int, ...], set[int]] = {}    # state counts -> seats that proposed it
        self.latest_proposal: Snapshot | None = None
        self.unplaced_proposals: dict[int, dict] = {}   # proposer -> its latest proposal for a state not reached yet
        self.heard: dict[int, float] = {}        # seat -> when (trio clock) a frame of it last arrived
        self.longest_pause = 0.0                 # seconds this process was stopped (SIGSTOP), at most
        self.down_for = 0.0                      # seconds since the stored log last changed (a resumed node's downtime)
        self.votes: dict[tuple[int, ...], dict[int, bytes]] = {}   # state counts -> verified signatures
        self.unplaced_votes: dict[int, dict] = {}       # voter -> its latest vote for a state not reached yet
        self.unplaced_records: dict[int, dict] = {}     # sender -> a record for a state not reached yet
        self.abandon_record: bytes | None = None
        self.record_frames: list[bytes] = []
        self.record_counts: tuple[int, ...] = ()
        self.record_rank: tuple[int, bytes] = (0, b"")
        self.memory: VoteMemory | None = None    # a postbox node's vote kept across runs (node/storage/vote_memory.py)
        self._memory_saved = b""
        self._held_key: tuple[tuple[int, ...], float] | None = None
        self.mail_drained = False                # a postbox node took what waited on the broker
        self.peer_records: dict[int, bytes] = {}
        self.outcome: str | None = None          # "complete", "abandoned", "gave-up", "store-failed"
        self.outcome_text = ""
        self.recovered = False                   # every peer told us how many of our messages it holds
        self.handshakes = HandshakeSlots(MAX_UNAUTHENTICATED)
        self._rebuilt_at: dict[int, tuple[int, ...]] = {}   # peer -> this node's counts at its last rebuild
        self._rebuilt_by: dict[int, tuple[int, ...]] = {}   # peer -> the rebuilt state it last named
        self._resend_at = 0.0
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
                receipt = self.session.receive(raw)
            except Rejected as exc:
                log.warning("stored message refused on replay: %s", str(exc))
                continue
            self.seen.add(hashlib.sha256(raw).digest())
            for event in receipt.events:
                self.progress.on_replayed(event, self.session)
        if stored:
            log.info("seat %d: replayed %d stored messages (%d applied)", self.seat, len(stored),
                     len(self.session.log))
            self._written.set()                     # fsync'd again before spectators get them
        self._note_state(0.0)

    def counts(self) -> list[int]:
        return [len(a) for a in self.session.accepted]

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
        s = self.session
        pending = tuple(s.pending[x].raw for x in sorted(s.pending))
        last = self.history[-1] if self.history else None
        if last is not None and last.log_len == len(s.log) and last.pending == pending:
            return
        now = self._now() if now is None else now
        if last is not None:
            last.until = now
        snap = Snapshot(len(s.log), pending, tuple(abandon.stalled_seats(s)), tuple(self.counts()), now)
        self.history.append(snap)
        self._by_counts[snap.counts] = snap
        self.progress.on_state(s)
        for voter, frame in list(self.unplaced_votes.items()):
            if self._holds(frame["h"]):
                del self.unplaced_votes[voter]
                self._on_vote(frame)
        for proposer, frame in list(self.unplaced_proposals.items()):
            if self._holds(frame["h"]):
                del self.unplaced_proposals[proposer]
                self._on_proposal(proposer, frame)
        for sender, frame in list(self.unplaced_records.items()):
            if self._holds(frame["h"]):
                del self.unplaced_records[sender]
                self._on_record(sender, frame)

    def _holds(self, counts: list[int]) -> bool:
        return all(c <= have for c, have in zip(counts, self.counts()))

    def _state_at(self, counts: list[int], digest: bytes, who: int) -> Snapshot | None:
        """This node's snapshot of the state holding exactly `counts` messages per author, if
        its digest is `digest`; for a state it never held itself (a partition, a pause),
        rebuilt by replaying the messages it holds. A rebuild costs a replay, so each peer
        `who` gets at most one per state of this node, and keeps at most one rebuilt state."""
        key = tuple(counts)
        snap = self._by_counts.get(key)
        if snap is not None or not self._holds(counts):
            return snap if snap is not None and self._digest(snap) == digest else None
        mine = tuple(self.counts())
        if self._rebuilt_at.get(who) == mine:
            return None
        self._rebuilt_at[who] = mine
        self._sync_order()
        s = self.session
        chosen = [raw for (a, q), raw in zip(self.order, s.log) if q < counts[a]]
        chosen += [m.raw for a, m in sorted(s.pending.items()) if m.seq < counts[a]]
        replica = Session(self.genesis, self.engine)
        try:
            for raw in chosen:
                replica.receive(raw)
        except (Rejected, EngineFault):
            return None
        if tuple(len(a) for a in replica.accepted) != key:
            return None
        snap = Snapshot(len(replica.log), tuple(replica.pending[x].raw for x in sorted(replica.pending)),
                        tuple(abandon.stalled_seats(replica)), key, 0.0, 0.0)
        snap.frames = abandon.state_frames(replica)
        snap.digest = abandon.log_digest(snap.frames)
        if snap.digest != digest:
            return None
        old = self._rebuilt_by.get(who)
        if (old is not None and old != key and old != self.record_counts and old not in self.proposed
                and (self.vote is None or self.vote.counts != old)):
            self._by_counts.pop(old, None)
            self.votes.pop(old, None)
        self._rebuilt_by[who] = key
        self._by_counts[key] = snap
        return snap

    def _frames(self, snap: Snapshot) -> list[bytes]:
        if snap.frames is not None:
            return snap.frames
        return self.session.log[:snap.log_len] + list(snap.pending)

    def _digest(self, snap: Snapshot) -> bytes:
        if snap.digest is None:
            snap.digest = abandon.log_digest(self._frames(snap))
        return snap.digest

    def _sync_order(self) -> None:
        for raw in self.session.log[len(self.order):]:
            msg = chain.parse(raw)
            self.order.append((self.session.seat_of[msg.author], msg.seq))

    def _signed_final(self) -> bool:
        mine = self.session.accepted[self.seat]
        return bool(mine) and mine[-1].kind == "final"

    def may_sign(self) -> bool:
        """This node may sign a chain message now: it has recovered its own chain, signed no
        abandon statement, and its store works."""
        return self.recovered and self.vote is None and self.outcome is None

    def _finish(self, outcome: str, text: str) -> None:
        limit, away = self.genesis.time_limit, max(self.longest_pause, self.down_for)
        need = self.session.need
        if outcome == "gave-up" and limit and away > limit and need is not None and need.kind != "final":
            text += (f"; this seat was away for {away:.0f} s (stopped, or not running), longer than the "
                     f"{self.limit_text()}, so the others have probably abandoned it (their transcripts then end "
                     f"with a record naming seat {self.seat})")
        if self.outcome in (None, "gave-up") or (outcome == "abandoned" and self.outcome == "abandoned"):
            self.outcome, self.outcome_text = outcome, text
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
        digest = hashlib.sha256(raw).digest()
        if digest in self.seen or digest in self.verifying or self.outcome == "store-failed":
            return                                  # a copy we already handled: no re-verification
        proofs = await self._check_proofs(raw, digest)
        if digest in self.seen or self.outcome == "store-failed":
            return                                  # a copy came meanwhile (or the store failed)
        before = self.counts()
        try:
            receipt = self.session.receive(raw, proofs)
        except Rejected as exc:
            log.warning("from %s: refused: %s", address, str(exc))
            self.progress.on_reject(exc, address)
            return
        except EngineFault as exc:
            log.error("from %s: the rules engine failed on this message (a bug, please report it): %s",
                      address, str(exc))
            return
        for exc in receipt.rejected:
            log.warning("buffered message refused: %s", str(exc))
            self.progress.on_reject(exc, address)
        if receipt.status == "buffered":
            self._bound_early(raw)                  # kept (one per author and seq) until it fits; not stored
            return
        self.seen.add(digest)
        if receipt.status == "duplicate":
            return
        new = [(author, msg.raw) for author, had in enumerate(before)    # the buffered ones it unlocked too
               for msg in self.session.accepted[author][had:]]
        accepted = [done for _, done in new]
        if self.progress.on_trace:
            for done in accepted:
                self.progress.on_trace("apply", done)
        try:
            for done in accepted:
                self.store.append(done)                 # fsync'd behind the game (_flush)
                self.seen.add(hashlib.sha256(done).digest())
        except StoreWriteError as exc:
            self._store_failed(exc)
            return
        self._written.set()
        for event in receipt.events:
            self.progress.on_event(event, self.session)
        self._note_state()
        author = next((a for a, done in new if done == raw), None)
        if source is not None and author != source:
            # relayed (not straight from its author): pass it on, in case a link is down;
            # an author sends its own messages to everyone, and resync covers the rest
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

    def _bound_early(self, raw: bytes) -> None:
        """Messages held ahead of the game take at most MAX_EARLY_BYTES per author: past that,
        the one just buffered is dropped (resync brings it again when it fits)."""
        msg = chain.parse(raw)
        seat = self.session.seat_of[msg.author]
        held = sum(len(m.raw) for (s, _), m in self.session.early.items() if s == seat)
        if held > MAX_EARLY_BYTES and self.session.early.get((seat, msg.seq)) is not None:
            del self.session.early[(seat, msg.seq)]
            log.warning("seat %d: seat %d sent over %d bytes of messages ahead of the game; dropped one",
                        self.seat, seat, MAX_EARLY_BYTES)

    async def _publish(self, *raws: bytes) -> bool:
        """Our own messages: already applied by the player; written to the store (fsync'd
        behind the game, see _flush), all before anything is awaited (so every message of
        the session's log is in the store whenever another task runs), then sent. False if
        they could not be written: then nothing is sent and the node stops."""
        for raw in raws:
            if self.progress.on_trace:
                self.progress.on_trace("sign", raw)
            self.seen.add(hashlib.sha256(raw).digest())
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
        await self._send(seat, conn, {"t": "heads", "h": self.counts()})
        for frame in self._abandon_frames(recent=8):
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
        if type(frame) is not dict:
            raise FrameError("a frame is not a map")
        t = frame.get("t")
        self.heard[seat] = self._now()
        if t == "msg" and type(frame.get("m")) is bytes:
            if self.progress.on_trace:
                self.progress.on_trace("recv", frame["m"])
            await self._ingest(frame["m"], seat, conn.address)
        elif (t == "heads" and type(frame.get("h")) is list and len(frame["h"]) == self.session.n
              and all(type(x) is int and x >= 0 for x in frame["h"])):
            self.peer_heads[seat] = frame["h"]
            self._check_recovered()
            if self.mail is not None:
                await self._send_owed(seat, conn)
            else:
                await self._resend(seat, conn, frame["h"])
        elif t == "abandon" and self._vote_shape_ok(frame):
            if self.memory is not None:
                self.memory.hear(seat, frame)
            self._on_vote(frame)
        elif t == "propose" and self._statement_shape_ok({**frame, "by": seat}):
            if self.memory is not None:
                self.memory.hear(seat, frame)
            reply = self._on_proposal(seat, frame)
            if reply is not None:
                await self._send(seat, conn, reply)
        elif t == "record" and type(frame.get("r")) is bytes and len(frame["r"]) <= 1 << 16:
            self._on_record(seat, frame)
        elif t == "chat":
            if self.chat is not None:
                self.chat.receive(seat, frame)
        elif t == "genesis?":                       # a seat that signed but lost the rest (fetch_genesis)
            await self._send(seat, conn, {"t": "genesis", "g": self.genesis_raw,
                                          "peers": {str(s): list(a) for s, a in self.peer_addrs.items()}})
        else:
            raise FrameError(f"unknown or malformed frame {t!r}")

    async def _resend(self, seat: int, conn: Connection, theirs: list[int]) -> None:
        """Send what the peer lacks (every author's messages from the count it reported on),
        in log order so that each applies at once, then the pending contributions; a page
        of RESEND_BATCH per `heads` frame."""
        s = self.session
        if all(theirs[a] >= len(s.accepted[a]) for a in range(s.n)):
            return
        self._sync_order()
        sent = 0
        for (author, seq), raw in list(zip(self.order, s.log)):
            if seq >= theirs[author]:
                await self._send(seat, conn, {"t": "msg", "m": raw})
                sent += 1
                if sent >= RESEND_BATCH:
                    return
        for author, msg in sorted(s.pending.items()):
            if msg.seq >= theirs[author]:
                await self._send(seat, conn, {"t": "msg", "m": msg.raw})

    async def _send_owed(self, seat: int, conn: Connection, everyone_s: bool = True) -> None:
        """A postbox node: send `seat` every message it is owed (protocol/mail/mailbox.py `owed`: never
        sent to it, or sent and learned lost), in log order, then the pending contributions;
        no pages (its next heads may come days later). Other authors' messages only with
        `everyone_s` (in answer to its heads: each author sends its own, and the others fill
        in what a seat's heads show it lacks)."""
        s = self.session
        owed = [o for o in self.mail.mailbox.owed(seat, self.counts()) if everyone_s or o[0] == self.seat]
        if not owed:
            return
        start = {author: first for author, first, _ in owed}
        self._sync_order()
        for (author, seq), raw in list(zip(self.order, s.log)):
            if author in start and seq >= start[author]:
                await self._send(seat, conn, {"t": "msg", "m": raw})
        for author, msg in sorted(s.pending.items()):
            if author in start and msg.seq >= start[author]:
                await self._send(seat, conn, {"t": "msg", "m": msg.raw})

    def _check_recovered(self) -> None:
        """Open the gate to signing once every peer has said how many of this seat's
        messages it holds and this node holds at least as many (it fetched them back)."""
        if self.recovered:
            return
        others = [s for s in range(self.session.n) if s != self.seat]
        if all(s in self.peer_heads for s in others):
            theirs = max((self.peer_heads[s][self.seat] for s in others), default=0)
            if self.counts()[self.seat] >= theirs:
                self.recovered = True
                log.info("seat %d: every peer reported; %d own messages held, signing may go on",
                         self.seat, self.counts()[self.seat])
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
            heads, now = self.counts(), trio.current_time()
            for seat, conn in list(self.conns.items()):
                last = sent.get(seat)
                if last is None or last[0] is not conn or last[1] != heads or now - last[2] >= idle - 0.01:
                    sent[seat] = (conn, heads, now)
                    await self._send(seat, conn, {"t": "heads", "h": heads})

    # ------------------------------------------------------------------ playing
    async def _play(self) -> None:
        while not self.session.complete and not self.finished.is_set():
            changed = self.changed
            if not self.may_sign():
                await changed.wait()
                continue
            if self.progress.on_trace:
                self.progress.on_trace("ask", None)       # (what follows: an automatic message, if any)
            automatic = self.player.automatic()
            if automatic and not await self._publish(*automatic):
                return
            decision = self.player.decision()
            if decision is None:
                if not self.session.complete and changed is self.changed:
                    await self.changed.wait()
                continue
            if self.progress.on_trace:
                self.progress.on_trace("ask", None)
            view = (self.engine.view(self.session.state, self.seat, self.player.knowledge)
                    if getattr(self.decider, "wants_view", True) else None)
            version = self.session.version()
            action = await self.decider(view, decision.legal, decision.kind)
            if self.session.version() != version or not self.may_sign():   # (cheaper than the legal moves again)
                continue                                  # the game moved on meanwhile
            raw = self.player.decide(action)
            if decision.kind == "commit":
                try:
                    self._persist_secrets()               # the value must survive a crash
                except StoreWriteError as exc:
                    self._store_failed(exc)               # not sent: a resume decides again
                    return
            if not await self._publish(raw):
                return

    # ------------------------------------------------------------------ stalls
    def limit_text(self) -> str:
        """The silence limit in words: "time limit of 300 s" (a live table, as always said) or
        "time per move of 24 h" (a turn-based table, whose limit is its time per move)."""
        if self.genesis.turn_based:
            return f"time per move of {G.duration_text(self.genesis.time_limit)}"
        return f"time limit of {self.genesis.time_limit} s"

    def _resend_cap(self) -> float:
        """The longest pause between two sendings of a proposal or statement: the limit (at
        least 2 s) on a live table; on a turn-based one at most TURN_BASED_RESEND, not once a
        day (a peer that reconnects is sent them at once anyway)."""
        limit = self.genesis.time_limit
        return max(2.0, min(limit, TURN_BASED_RESEND) if self.genesis.turn_based else limit)

    def give_up_after(self) -> float:
        return max(MIN_GIVE_UP, GIVE_UP_FACTOR * self.genesis.time_limit)

    async def _watchdog(self) -> None:
        """Propose to abandon the seats the game waits for when they stay silent longer than
        the genesis's time limit (never naming this node's own seat), re-send the proposal (or
        the signed statement) with back-off, and give up when no record can form: this node
        signed and no record followed, or a seat that would have to sign is not heard from,
        for give_up_after()."""
        limit = self.genesis.time_limit
        if not limit:
            return
        tick = min(0.25, limit / 4)
        last = trio.current_time()
        if self.mail is None:
            self.history[-1].since = last             # silence before this process ran is not ours to judge
        stall_since: float | None = None
        self._resend_at, backoff = 0.0, self._first_backoff()
        if self.mail is not None:
            self._resend_at = last + backoff          # each link sent them at its start (`_serve`)
        while not self.finished.is_set():
            await trio.sleep(tick)
            now = trio.current_time()
            cur = self.history[-1]
            if now - last > max(1.5, limit / 2):
                # this process was stopped (SIGSTOP, a suspended machine): it did not watch the
                # others meanwhile, so it watches this state afresh from now on
                log.info("seat %d: this node was paused %.1f s", self.seat, now - last)
                self.longest_pause = max(self.longest_pause, now - last)
                cur.since = now
                if stall_since is not None:
                    stall_since += now - last
            last = now
            others_awaited = (self.session.need is not None and not self.session.complete
                              and self.seat not in self.session.waiting_for())
            if others_awaited and now - cur.since >= limit or not self.recovered:
                stall_since = stall_since if stall_since is not None else now
            elif self.vote is None:
                stall_since = None
            if self._maybe_propose(cur):
                log.info("seat %d: seats %s silent for %d s; proposed to abandon them", self.seat,
                         list(cur.stalled), limit)
                backoff = self._first_backoff()
            if self._maybe_sign(cur):
                backoff = self._first_backoff()
            resend = self.vote is not None or self.latest_proposal is cur
            if resend and now >= self._resend_at:
                await self._send_abandon_frames()
                self._resend_at, backoff = now + backoff, min(backoff * 2, self._resend_cap())
            if (stall_since is not None and now - stall_since >= self.give_up_after()
                    and (self.vote is not None or not self.recovered or self._cosigner_gone(cur, now))):
                why = (f"could not hear from every peer how many of this seat's messages they hold"
                       if not self.recovered else f"waiting for {self.session.describe_need()}")
                self._finish("gave-up", f"gave up after {self.give_up_after():.0f} s without an agreed "
                                        f"abandon record ({why}); the transcript is unfinished")
                return
            self._check_records()
            if self.mail is not None:
                self._remember_votes()

    def _first_backoff(self) -> float:
        """The pause after a proposal or statement is sent before it is sent again: 1 s on
        live links (doubled each time); on postboxes the broker keeps it for each seat, so
        only the longest pause (a lost one is sent again then, and at every run)."""
        return 1.0 if self.mail is None else self._resend_cap()

    def _cosigner_gone(self, snap: Snapshot, now: float) -> bool:
        """A seat that would have to sign a record for this state has sent nothing for
        give_up_after(): no record can form (while every co-signer is heard, a record may yet
        form, or the game go on: this node's own clock alone never ends its game)."""
        signers = [s for s in range(self.session.n) if s != self.seat and s not in snap.stalled]
        return any(now - self.heard.get(s, -1e9) >= self.give_up_after() for s in signers)

    def _eligible(self, snap: Snapshot) -> bool:
        """This node may still propose or sign for `snap`: it names others only, is not at its
        final, has recovered its chain and signed no statement."""
        return (self.vote is None and self.recovered and bool(snap.stalled) and self.seat not in snap.stalled
                and not self._signed_final() and self._caught_up())

    def _caught_up(self) -> bool:
        """A postbox node judges silence only once it has taken and applied everything that
        waited on the broker: a move made in time while this node was away is not silence."""
        return self.mail is None or (self.mail_drained and not self.verifying
                                     and not any(link.waiting() for link in self.mail.links.values()))

    def _maybe_propose(self, snap: Snapshot) -> bool:
        """Propose `snap` once this node itself held it for the time limit (now or before):
        a record then needs every signer's own clock to have seen the whole limit pass."""
        if snap.counts in self.proposed or not self._eligible(snap):
            return False
        held = (snap.until if snap.until is not None else self._now()) - snap.since
        if held < self.genesis.time_limit:
            return False
        self.proposed[snap.counts] = snap
        self.proposals.setdefault(snap.counts, set()).add(self.seat)
        self.latest_proposal = snap
        self._resend_at = 0.0                           # the watchdog sends it at its next tick
        self._maybe_sign(snap)
        return True

    def _maybe_sign(self, snap: Snapshot) -> bool:
        """Sign the statement for `snap` when this node proposed it and so did every other
        seat that must sign: each of them has promised to sign it too, so nobody who signs
        is left alone (even if the game moved on meanwhile here)."""
        if snap.counts not in self.proposed or not self._eligible(snap):
            return False
        have = self.proposals.get(snap.counts, set()) | set(self.votes.get(snap.counts, {}))
        if not all(s in have for s in range(self.session.n) if s not in snap.stalled):
            return False
        self._sign_vote(snap)
        log.info("seat %d: every other signer proposed it too; signed the abandon statement naming seats %s",
                 self.seat, list(snap.stalled))
        return True

    def _proposal_frame(self, snap: Snapshot) -> dict:
        return {"t": "propose", "stalled": list(snap.stalled), "length": snap.length, "digest": self._digest(snap),
                "h": list(snap.counts)}

    def _on_proposal(self, seat: int, frame: dict) -> dict | None:
        """Seat `seat` proposes to abandon a state: checked against this node's snapshot of it
        (one unchecked proposal per seat for a state not reached yet). Returns this node's
        own proposal of that state, if any, as the answer (so both learn it)."""
        if not self._holds(frame["h"]):
            self.unplaced_proposals[seat] = frame
            return None
        snap = self._state_at(frame["h"], frame["digest"], seat)
        if snap is None or tuple(frame["stalled"]) != snap.stalled:
            return None
        known = seat in self.proposals.get(snap.counts, set())
        self.proposals.setdefault(snap.counts, set()).add(seat)
        self._maybe_propose(snap)
        self._maybe_sign(snap)
        self._check_records()
        return self._proposal_frame(snap) if snap.counts in self.proposed and not known else None

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
            if self.heard and self.genesis.time_limit:
                continue                                # a stall now goes by the time limit's rules
            last = max(self.heard.values(), default=started)
            if trio.current_time() - last >= ALONE_AFTER:
                where = ("the game was at its final signatures" if self.session.need is not None
                         and self.session.need.kind == "final" else f"waiting for {self.session.describe_need()}")
                self._finish("gave-up", f"no other seat's node has answered for {ALONE_AFTER:.0f} s (they may have "
                                        f"finished or left; {where}): stopped with {len(self.session.log)} "
                                        f"messages kept — caravan resume {self.session.game_id.hex()[:16]} "
                                        f"fetches the rest once any of them is back")
                return

    def _sign_vote(self, snap: Snapshot) -> None:
        digest = self._digest(snap)
        sig = abandon.sign(self.key, self.session.game_id, list(snap.stalled), snap.length, digest)
        self.vote = snap
        self.votes.setdefault(snap.counts, {})[self.seat] = sig
        self._resend_at = 0.0                           # the watchdog sends it at its next tick
        if self.mail is not None:                       # kept before it can be sent: later runs sign nothing
            self._remember_votes(must=True)
        self._wake()

    def _abandon_frames(self, recent: int = 1) -> list[dict]:
        """What this node tells a peer about abandoning: the record it holds, else its own
        vote and every signature it holds for that statement, else its `recent` latest
        proposals."""
        if self.abandon_record is not None:
            return [{"t": "record", "r": self.abandon_record, "h": list(self.record_counts),
                     "digest": self.record_rank[1]}]
        snap = self.vote
        if snap is None:
            return [self._proposal_frame(p) for p in list(self.proposed.values())[-recent:]]
        return [{"t": "abandon", "stalled": list(snap.stalled), "length": snap.length, "digest": self._digest(snap),
                 "h": list(snap.counts), "sig": sig, "by": voter}
                for voter, sig in sorted(self.votes.get(snap.counts, {}).items())]

    def _statement_shape_ok(self, frame: dict) -> bool:
        """A proposal's or a vote's statement fields are well formed, `by` not named stalled."""
        n = self.session.n
        stalled, by = frame.get("stalled"), frame.get("by")
        return (type(stalled) is list and 0 < len(stalled) < n and all(type(x) is int for x in stalled)
                and stalled == sorted(set(stalled)) and 0 <= stalled[0] and stalled[-1] < n
                and type(frame.get("length")) is int and frame["length"] >= 0
                and type(frame.get("digest")) is bytes and len(frame["digest"]) == 32
                and type(by) is int and 0 <= by < n and by not in stalled and self._counts_ok(frame))

    def _vote_shape_ok(self, frame: dict) -> bool:
        return self._statement_shape_ok(frame) and type(frame.get("sig")) is bytes and len(frame["sig"]) == 64

    def _counts_ok(self, frame: dict) -> bool:
        h = frame.get("h")
        return (type(h) is list and len(h) == self.session.n and all(type(x) is int and x >= 0 for x in h)
                and sum(h) == frame.get("length", sum(h)))

    def _on_vote(self, frame: dict) -> None:
        """A seat's abandon signature: checked against this node's snapshot of that state
        before anything is kept (one unchecked vote per voter for a state not reached yet)."""
        if not self._holds(frame["h"]):
            self.unplaced_votes[frame["by"]] = frame
            return
        stalled = tuple(frame["stalled"])
        if not abandon.signature_ok(self.session.seats[frame["by"]], frame["sig"], self.session.game_id,
                                    list(stalled), frame["length"], frame["digest"]):
            log.warning("seat %d: an abandon signature of seat %d does not verify; ignored", self.seat, frame["by"])
            return
        snap = self._state_at(frame["h"], frame["digest"], frame["by"])
        if snap is None or stalled != snap.stalled:
            return
        self.votes.setdefault(snap.counts, {})[frame["by"]] = frame["sig"]
        self.proposals.setdefault(snap.counts, set()).add(frame["by"])     # a signature is a proposal too
        self._maybe_propose(snap)
        self._maybe_sign(snap)
        self._check_records()

    async def _send_abandon_frames(self) -> None:
        for frame in self._abandon_frames():
            await self.send_all(frame)

    def _check_records(self) -> None:
        """Adopt a complete record made of verified votes."""
        for counts, sigs in list(self.votes.items()):
            snap = self._by_counts[counts]
            signers = [s for s in range(self.session.n) if s not in snap.stalled]
            if all(s in sigs for s in signers):
                self._adopt(abandon.record(list(snap.stalled), snap.length, {s: sigs[s] for s in signers}), snap)

    def _on_record(self, sender: int, frame: dict) -> None:
        raw = frame["r"]
        try:
            parsed = abandon.parse_record(raw)
        except Rejected:
            return
        digest = frame.get("digest")
        if (parsed is None or not self._counts_ok({"h": frame.get("h"), "length": parsed[1]})
                or type(digest) is not bytes or len(digest) != 32):
            return
        stalled, length, sigs = parsed
        if not self._holds(frame["h"]):
            self.unplaced_records[sender] = frame
            return
        try:
            abandon.check_signatures(self.session.seats, self.session.game_id, stalled, length, digest, sigs)
        except Rejected as exc:
            log.warning("seat %d: seat %d sent an invalid abandon record: %s", self.seat, sender, str(exc))
            return
        snap = self._state_at(frame["h"], digest, sender)
        if snap is None or tuple(stalled) != snap.stalled:
            return
        self.peer_records[sender] = raw
        self._adopt(raw, snap)

    def _adopt(self, raw: bytes, snap: Snapshot) -> None:
        """A complete, valid record ends the game here: if several exist (a partition), the one
        on the earliest state wins (fewest messages, then the smaller digest), everywhere."""
        if self.outcome == "complete" or (self.abandon_record is not None
                                          and self.record_rank <= (snap.length, self._digest(snap))):
            return
        self.abandon_record, self.record_frames = raw, self._frames(snap)
        self.record_counts, self.record_rank = snap.counts, (snap.length, self._digest(snap))
        stalled = ", ".join(str(s) for s in snap.stalled) + (" (this seat)" if self.seat in snap.stalled else "")
        self._finish("abandoned", f"abandoned by seat {stalled}: no message within the {self.limit_text()}; "
                                  f"the record is co-signed by seats "
                                  f"{', '.join(str(s) for s in range(self.session.n) if s not in snap.stalled)}")
        log.info("seat %d: %s", self.seat, self.outcome_text)

    async def _play_to_the_end(self) -> None:
        await self._play()
        if self.session.complete:
            self._finish("complete", "the game is complete")

    def everyone_has_everything(self) -> bool:
        mine = self.counts()
        return all(self.peer_heads.get(s) == mine for s in range(self.session.n) if s != self.seat)

    def everyone_has_the_record(self, signers_only: bool = False) -> bool:
        stalled = abandon.parse_record(self.abandon_record)[0] if signers_only else []
        return all(self.peer_records.get(s) == self.abandon_record
                   for s in range(self.session.n) if s != self.seat and s not in stalled)

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
        if self.session.n == 1:
            self.recovered = True
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
                            while not self.everyone_has_the_record(signers_only=phase == "signers"):
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
                        while ((self.mail is None and not self.everyone_has_everything())
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
        self.memory = memory
        cur, now = self.history[-1], trio.current_time()
        cur.since = now
        if memory.held is not None and tuple(memory.held[0]) == cur.counts:
            cur.since = now - max(0.0, time.time() - memory.held[1] / 1000)
            self._held_key = (cur.counts, cur.since)         # kept as it was read
        for frame in memory.mine:
            snap = self._restored_state({**frame, "by": self.seat})
            if snap is not None:
                self.proposed[snap.counts] = self.latest_proposal = snap
                self.proposals.setdefault(snap.counts, set()).add(self.seat)
        if memory.vote is not None:
            snap = self._restored_state(memory.vote)
            if snap is None:                             # still bound by it: sign nothing
                log.warning("seat %d: this seat signed an abandon statement for a state it cannot rebuild; it "
                            "signs nothing more", self.seat)
                self.vote = Snapshot(0, (), tuple(memory.vote.get("stalled") or ()), (), now)
            else:
                self._sign_vote(snap)                    # the same statement: the same signature again
        for seat, frame in memory.heard:
            if frame.get("t") == "abandon" and self._vote_shape_ok(frame):
                self._on_vote(frame)
            elif frame.get("t") == "propose" and self._statement_shape_ok({**frame, "by": seat}):
                self._on_proposal(seat, frame)

    def _restored_state(self, frame: dict) -> Snapshot | None:
        """This node's snapshot of the state a kept frame of its own names, if it still holds it."""
        if not self._statement_shape_ok(frame) or not self._holds(frame["h"]):
            return None
        snap = self._state_at(frame["h"], frame["digest"], self.seat)
        return snap if snap is not None and snap.stalled == tuple(frame["stalled"]) else None

    def _remember_votes(self, must: bool = False) -> None:
        """Keep what `_restore_votes` reads (when it changed). `must`: this seat's signature,
        which nothing may send before it is kept (a failure then stops the node)."""
        if self.memory is None:
            return
        cur = self.history[-1]
        if self._held_key != (cur.counts, cur.since):         # (the wall time once per state: no jitter)
            self._held_key = (cur.counts, cur.since)
            self.memory.held = (list(cur.counts), int((time.time() - (trio.current_time() - cur.since)) * 1000))
        self.memory.mine = [self._proposal_frame(p) for p in self.proposed.values()]
        sig = self.votes.get(self.vote.counts, {}).get(self.seat) if self.vote is not None else None
        if self.vote is not None and type(sig) is bytes and self.memory.vote is None:
            self.memory.vote = {"t": "abandon", **self._proposal_frame(self.vote), "by": self.seat, "sig": sig}
        data = self.memory.encode()
        if data == self._memory_saved:
            return
        try:
            self._memory_saved = save_votes(self.store.dir, self.memory)
        except OSError as exc:
            if must:
                self._store_failed(StoreWriteError(f"cannot keep this seat's abandon signature in "
                                                   f"{self.store.dir}: {exc}"))
            else:
                log.warning("seat %d: cannot keep the abandon votes in %s: %s", self.seat, self.store.dir, exc)

    async def _mail_drained(self) -> None:
        """A postbox node: once what waited on the broker has come (the inbox was quiet for
        MAIL_QUIET), the heads each other seat reported last (kept across runs) stand for any
        it has not sent in this run, so that this node may sign (it holds at least as many of
        its own messages as any seat ever reported); with `until_idle`, stop once nothing is
        left to do."""
        await self.mail.postbox.drained(MAIL_QUIET, MAIL_DRAIN)
        self.mail.mailbox.settle()
        self.mail_drained = True
        for seat, heads in self.mail.reported().items():
            self.peer_heads.setdefault(seat, heads)
        for seat in range(self.session.n):
            if seat != self.seat:
                self.peer_heads.setdefault(seat, [0] * self.session.n)
        self._check_recovered()
        for seat, link in self.mail.links.items():
            await self._send_owed(seat, link, everyone_s=False)
        if not self.recovered:
            mine, theirs = self.counts()[self.seat], max(h[self.seat] for h in self.peer_heads.values())
            log.warning("seat %d: the others reported %d messages of this seat, this node holds %d: it signs "
                        "nothing until they send them back", self.seat, theirs, mine)
        if not self.until_idle:
            while not self.finished.is_set():           # a node left running: losses on the way
                await trio.sleep(1.0)
                self.mail.check(trio.current_time())
                for seat, link in self.mail.links.items():
                    await self._send_owed(seat, link, everyone_s=False)
            return
        quiet_since = trio.current_time()
        while not self.finished.is_set():
            await trio.sleep(MAIL_QUIET / 4)
            now = trio.current_time()
            last_change = max(self.mail.last_activity, self.history[-1].since if self.history else 0.0)
            mine = (self.decides_alone and self.may_sign() and self.seat in self.session.waiting_for()
                    and now - last_change < MAIL_STUCK)        # (a bot that cannot move is not waited for)
            if (mine or self.verifying or self.mail.busy() or self.mail.last_activity > quiet_since
                    or self._abandon_due()):
                quiet_since = max(now, self.mail.last_activity)
                continue
            if now - quiet_since >= MAIL_QUIET:           # (nothing left to publish: not busy)
                self._finish("idle", self.idle_text())
                return

    def _abandon_due(self) -> bool:
        """The watchdog is about to propose, sign or send an abandon statement (an idle postbox
        node waits for it before it stops)."""
        cur = self.history[-1]
        due = (cur.counts not in self.proposed and self._eligible(cur)
               and trio.current_time() - cur.since >= self.genesis.time_limit)
        return due or ((self.vote is not None or self.latest_proposal is cur) and self._resend_at == 0.0)

    def idle_text(self) -> str:
        """Why a postbox node has nothing to do now."""
        if not self.recovered:
            return ("nothing to do until the others send back this seat's own messages (they reported more "
                    "than this node holds)")
        waiting = self.session.waiting_for()
        if self.vote is not None:
            return "nothing to do: this seat signed an abandon statement; waiting for the other signers"
        if self.latest_proposal is self.history[-1]:
            seats = ", ".join(str(s) for s in self.latest_proposal.stalled)
            return (f"nothing to do: this seat proposed to abandon seat {seats} (silent longer than the "
                    f"{self.limit_text()}); waiting for the other signers to propose it too")
        if self.seat in waiting:
            return f"your move: {self.session.describe_need()}"
        seats = ", ".join(str(s) for s in waiting)
        return (f"nothing to do until seat{'s' if len(waiting) > 1 else ''} {seats} "
                f"act{'' if len(waiting) > 1 else 's'} ({self.session.describe_need()})")

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
