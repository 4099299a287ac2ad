"""One seat of a game run by asyncio over the transport-free seat core (issue 32, item 2): the
tab's node, the way node/app/game.py's GameNode is the desktop's, with no trio, no sockets,
no threads and no store, so Pyodide runs it in the tab's worker as CPython runs it here.

It holds the signed genesis, this seat's key and per-game secret, a decider and one `Link`
per other seat (anything with `async send(frame)` and an asyncio queue `inbox` of the
peer's decoded frames, None once it closed), and runs SeatCore (frames in), Mesh (heads,
catch-up, intake, the gate to signing), Ballot and Watchdog (the abandon vote, on tables
with a time limit), Session and Player (through protocol/seat/turn.py) until the game is
complete, abandoned or given up; `transcript()` then gives its `.caravan` bytes. Its clock
is the `now` callable it is given; it only sleeps on asyncio's.

With a `store` (tab_games.StoredGame) it keeps the game as a desktop node does: every message
it accepts or signs is appended, the Player's committed values are kept, and once it signed
something no frame leaves until the store is flushed (to IndexedDB), so a reload never makes
it sign a second, different message at a seq it sent. Its abandon vote is kept there too
(protocol/seat/vote_memory.py, as a desktop postbox node keeps it): once it signed an
abandon statement nothing leaves until that is flushed, and resumed it signs nothing past
it; on a turn-based table it holds its state since when it first did, across reloads.
Built on a store that holds messages (`TabSeat.resume`), it replays them first (as GameNode
does) and goes on where it was.

Table talk rides the same links: a `chat` frame goes to `chat` (TabChat: protocol/seat/chat.py's
rules, the desktop's, on the wall clock), `say` signs and sends this seat's line to every seat,
and with a store the lines are kept beside the game (tab_games chat.jsonl) so a reload shows
them again. Talk never stops a game: a refused line is counted and logged, naming why.

On a turn-based table played through its postbox (`mail`: a tab_mail_links.MailTransport,
whose links are the seat's) it is a postbox seat, as a desktop node with `mail` is: the
decisions are protocol/seat/postbox.py's (what a seat is owed when its heads come, the
drained inbox that opens the gate to signing, silence judged only once caught up); what it
sends is published once the store is flushed. It plays while the page is open; closed, it is
simply gone, and opened again it resumes from its store and its postbox's session.

What a peer sends that is refused (a forged or illegal message) is kept in `refused` with
the peer it came from and logged naming the signer; a frame the core does not know is
dropped and logged naming the peer."""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass, field
from typing import Any, Awaitable, Callable, Protocol

from protocol import games, genesis as G, transcript
from protocol.errors import Rejected
from protocol.identity import SigningKey, fingerprint
from protocol.link.framing import FrameError
from protocol.player import Player
from protocol.seat.core import SeatCore
from protocol.seat.postbox import MAIL_DRAIN, MAIL_QUIET, PostboxSeat
from protocol.seat.turn import Turn
from protocol.seat.vote import Hooks
from protocol.seat.vote_memory import VoteKeeper, VoteMemory
from protocol.seat.watch import Watchdog
from protocol.seat import chat as talk
from protocol.session import Session

log = logging.getLogger("caravan.tab.seat")

SYNC_INTERVAL = 0.25
"""Heads go to every peer this often (as the desktop node's)."""
LINGER = 5.0
"""After the end, keep serving peers this long at most, until all hold every message."""
MAIL_CHECK = 1.0
"""A postbox seat's upkeep (the courier's gaps and resends, what each seat is owed) this often."""
MAIL_FLUSH = 10.0
"""At the end, how long a postbox seat waits for the broker to acknowledge what it published."""
GIVE_UP_FACTOR, MIN_GIVE_UP = 4, 10.0
"""As the desktop node: give up GIVE_UP_FACTOR × the time limit (at least MIN_GIVE_UP s)
after a stall with no complete abandon record."""

Decider = Callable[[Any, list[Any], str], Awaitable[Any]]
"""async decider(view, legal_actions, kind) -> one of legal_actions (as the desktop node's);
a decider whose `wants_view` is False gets None for the view."""


class Link(Protocol):
    """A link to one other seat: frames out (`send` raises ConnectionError, OSError or
    FrameError once the link failed), and the peer's frames in (None: it closed)."""
    inbox: asyncio.Queue

    async def send(self, frame: dict) -> None: ...


def bot_decider(bot: Any) -> Decider:
    """A bot (clients/bots: `choose(view, legal)`, `wants_view`) as a decider."""
    async def decide(view: Any, legal: list[Any], kind: str) -> Any:
        return bot.choose(view, legal)
    decide.wants_view = getattr(bot, "wants_view", True)    # type: ignore[attr-defined]
    return decide


@dataclass
class Refusal:
    """A message a peer sent that this seat refused: the peer it came from and why (the
    Rejected names the signer)."""
    peer: int
    error: Rejected

    def __str__(self) -> str:
        return f"from seat {self.peer}: refused: {self.error}"


@dataclass
class Outcome:
    """How the seat's run ended: "complete", "abandoned", "gave-up" or "failed" (a task of
    it raised: the decider, a link), and in words."""
    kind: str
    text: str
    refused: list[Refusal] = field(default_factory=list)


class TabChat(talk.Lines):
    """This seat's table talk: the desktop's rules (protocol/seat/chat.py) with the lines kept
    in the game's store, when there is one (loaded back on a resume)."""

    def __init__(self, genesis: G.Genesis, key: SigningKey, names: list[str], store: Any = None,
                 clock: Callable[[], float] = time.time):
        super().__init__(genesis.game_id, list(genesis.seats), names, clock, key=key)
        self.store = store
        if store is not None:
            self.load(store.chat())

    def _keep(self, record: dict[str, Any]) -> None:
        if self.store is not None:
            try:
                self.store.keep_chat(talk.record_line(record))
            except OSError as exc:
                log.warning("seat %s: could not keep a chat line: %s", self.seat, exc.strerror or exc)

    def _refused(self, link_seat: int, error: talk.ChatError) -> None:
        log.warning("seat %s: chat line from the link of seat %d refused: %s (%d refused so far)",
                    self.seat, link_seat, error, self.refused)


class TabSeat:
    """One seat of a game (see the module doc)."""

    def __init__(self, genesis_raw: bytes, key: SigningKey, secret: bytes, decider: Decider,
                 links: dict[int, Link], now: Callable[[], float], sync_interval: float = SYNC_INTERVAL,
                 linger: float = LINGER, store: Any = None, mail: Any = None):
        self.genesis_raw = genesis_raw
        self.genesis = G.parse(genesis_raw)
        if key.public not in self.genesis.seats:
            raise ValueError(f"this key ({fingerprint(key.public)}) holds no seat in game "
                             f"{self.genesis.game_id.hex()[:16]}")
        self.seat = self.genesis.seats.index(key.public)
        others = set(range(len(self.genesis.seats))) - {self.seat}
        if set(links) != others:
            raise ValueError(f"seat {self.seat} needs one link to each of seats {sorted(others)}, "
                             f"not to {sorted(links)}")
        self.session = Session(self.genesis, games.get(self.genesis.game))
        self.store = store
        committed = Player.load_secrets(store.secrets()["committed"]) if store is not None else None
        self.player = Player(self.session, self.seat, key, secret, committed)
        hooks = Hooks(self._signed, self._adopted, self._note, self._caught_up)
        self.core = SeatCore(self.session, self.seat, key, hooks, postbox=mail is not None,
                             on_heard=self._heard_vote)
        self.mesh, self.ballot = self.core.mesh, self.core.ballot
        self.watchdog = Watchdog(self.ballot, postbox=mail is not None)
        self.turn = Turn(self.core, self.player)
        self.mail = mail
        self.postseat = PostboxSeat(self.turn, self.watchdog, mail.mailbox) if mail is not None else None
        self.decider, self.links, self.now = decider, links, now
        self.sync_interval, self.linger = sync_interval, linger
        self.refused: list[Refusal] = []
        self.on_events: Callable[[list[Any]], None] | None = None
        """Told the engine events of every message applied here, in order (the table page's
        narration, tab_table.py); [] for one that applied none (a secret choice held)."""
        self.outcome: Outcome | None = None
        self._changed = asyncio.Event()
        self._finished = asyncio.Event()
        self._durable = asyncio.Event()            # clear while own messages wait for the store's flush
        self._durable.set()
        self._vote_unkept = False                  # this seat signed an abandon statement not yet kept
        self._votes_lock = asyncio.Lock()
        self.replayed = self._replay() if store is not None else 0
        self.votes: VoteKeeper | None = None       # the abandon vote kept in the store (`_restore_votes`)
        if store is not None:
            self.votes = self._restore_votes()
        names = store.meta()["names"] if store is not None else []
        names = [str(names[s]) if s < len(names) else f"seat {s}" for s in range(len(self.genesis.seats))]
        self.chat = TabChat(self.genesis, key, names, store)

    @classmethod
    def resume(cls, store: Any, key: SigningKey, decider: Decider, links: dict[int, Link],
               now: Callable[[], float], **kw: Any) -> "TabSeat":
        """The seat of a stored game, its log replayed and its committed values restored."""
        return cls(store.genesis(), key, store.secrets()["secret"], decider, links, now, store=store, **kw)

    def _replay(self) -> int:
        """Re-apply every stored message (as GameNode does); one refused now is logged and skipped."""
        stored = self.store.messages()
        for raw in stored:
            try:
                self.mesh.replay(raw)
            except Rejected as exc:
                log.warning("seat %d: a stored message is refused on replay: %s", self.seat, exc)
        self.player.take_events()
        if stored:
            log.info("seat %d: replayed %d stored messages", self.seat, len(stored))
        return len(stored)

    def _restore_votes(self) -> VoteKeeper:
        """The abandon vote of earlier runs, back in the ballot (the held-since time on a
        turn-based table only: a live table's silence counts while the seats run)."""
        try:
            memory = self.store.votes()
        except ValueError as exc:
            log.warning("seat %d: %s; the abandon votes of earlier runs are forgotten", self.seat, exc)
            memory = VoteMemory()
        self._note_state()
        votes, now = VoteKeeper(memory), self.now()
        if not votes.restore(self.ballot, now, time.time(), held=self.genesis.turn_based):
            log.warning("seat %d: this seat signed an abandon statement for a state it cannot rebuild; it "
                        "signs nothing more", self.seat)
        votes.hear_again(self.ballot, now)
        return votes

    async def _keep_votes(self) -> None:
        """The abandon vote, when it changed, written and flushed to the store. This seat's
        signature must be kept before anything leaves: a failure to keep it stops the run."""
        if self.votes is None:
            return
        async with self._votes_lock:
            signed = self._vote_unkept
            data = self.votes.changed(self.ballot, self.now(), time.time())
            if data is not None:
                try:
                    self.store.keep_votes(data)
                    await self.store.flush()
                except Exception as exc:          # noqa: BLE001 - said in one line
                    if signed:
                        raise RuntimeError(f"cannot keep this seat's abandon signature in {self.store.dir}: "
                                           f"{exc}") from None
                    log.warning("seat %d: cannot keep the abandon votes in %s: %s", self.seat, self.store.dir, exc)
                    return
                self.votes.saved = data
            if signed:
                self._vote_unkept = False

    # ------------------------------------------------------------------ state
    def _signed(self) -> None:
        """This seat signed an abandon statement: no frame leaves before it is kept (`_send`)."""
        self._vote_unkept = True
        self._wake()

    def _heard_vote(self, seat: int, frame: dict) -> None:
        """A proposal or vote of `seat`: kept across reloads with this seat's own."""
        if self.votes is not None:
            self.votes.memory.hear(seat, frame)

    def _wake(self) -> None:
        self._changed.set()

    def _adopted(self, text: str) -> None:
        self._finish("abandoned", text)

    def _note(self, level: str, text: str) -> None:
        log.log(logging.WARNING if level == "warning" else logging.INFO, "seat %d: %s", self.seat, text)

    def _finish(self, kind: str, text: str) -> None:
        if self.outcome is None or kind == "abandoned":
            self.outcome = Outcome(kind, text, self.refused)
        self.ballot.game_complete = self.outcome.kind == "complete"
        self._finished.set()
        self._wake()

    def _note_state(self) -> None:
        now = self.now()
        if self.ballot.note_state(now):
            self.ballot.place_unplaced(now)

    def _caught_up(self) -> bool:
        """A postbox seat judges silence only once it took and applied what waited for it."""
        return self.postseat is None or self.postseat.caught_up(
            False, any(link.waiting() for link in self.mail.links.values()))

    def _tell(self, events: list[Any]) -> None:
        if self.on_events is not None:
            self.on_events(events)

    def transcript(self) -> bytes:
        """The `.caravan` bytes of what this seat holds: the log, or the abandon record's."""
        frames = (self.ballot.record_frames + [self.ballot.record] if self.ballot.record is not None
                  else self.session.log)
        return transcript.dump(self.genesis_raw, frames)

    # ------------------------------------------------------------------ frames
    async def _send(self, peer: int, frame: dict) -> None:
        if self._vote_unkept:
            await self._keep_votes()               # an abandon signature leaves only once stored
        await self._durable.wait()                 # nothing leaves before what this seat signed is stored
        try:
            await self.links[peer].send(frame)
        except (ConnectionError, OSError, FrameError) as exc:   # a link that failed: resync covers the loss
            log.info("seat %d: a send to seat %d failed: %s", self.seat, peer, exc)

    async def _send_all(self, frame: dict, exclude: int | None = None) -> None:
        for peer in self.links:
            if peer != exclude:
                await self._send(peer, frame)

    async def _receive(self, peer: int) -> None:
        inbox = self.links[peer].inbox
        while True:
            frame = await inbox.get()
            if frame is None:
                return
            try:
                await self._on_frame(peer, frame)
            except FrameError as exc:
                log.warning("seat %d: dropped a frame of seat %d: %s", self.seat, peer, exc)

    async def _on_frame(self, peer: int, frame: Any) -> None:
        reaction = self.core.on_frame(peer, frame, self.now())
        if reaction.message is not None:
            await self._ingest(reaction.message, peer)
        if reaction.opened:
            self._wake()
        if reaction.kind == "heads" and self.postseat is not None:
            for owed in self.postseat.owed(peer):
                await self._send(peer, owed)
        for reply in reaction.replies:
            await self._send(peer, reply)
        if reaction.kind == "chat":
            await self._heard(peer, frame)
        if reaction.kind == "genesis?":
            await self._send(peer, {"t": "genesis", "g": self.genesis_raw, "peers": {}})

    async def _heard(self, peer: int, frame: dict) -> None:
        """A peer's line of talk: shown (the chat's listeners) and kept when it passes the rules."""
        if self.chat.receive(peer, frame) is not None and self.store is not None:
            await self.store.flush()

    async def say(self, text: Any) -> dict[str, Any]:
        """Sign, keep and send one line typed at this seat (talk.ChatError when it is refused:
        empty, too long, too fast); the shown line."""
        line, frame = self.chat.sign(text)
        if self.store is not None:
            await self.store.flush()
        await self._send_all(frame)
        return line

    async def _ingest(self, raw: bytes, peer: int) -> None:
        intake = self.mesh.receive(raw, peer)        # deck proofs checked inline: no threads here
        for exc in ([intake.refused] if intake.refused is not None else []) + intake.rejected:
            refusal = Refusal(peer, exc)
            self.refused.append(refusal)
            log.warning("seat %d: %s", self.seat, refusal)
        if intake.fault is not None:
            log.error("seat %d: the rules engine failed on a message of seat %d (a bug): %s", self.seat, peer,
                      intake.fault)
        if not intake.accepted:
            return
        if self.store is not None:
            for done in intake.accepted:
                self.store.append(done)            # flushed with the next own message (or lost: peers resend)
        self._tell(intake.events)
        self._note_state()
        if intake.forward:
            await self._send_all({"t": "msg", "m": raw}, exclude=peer)
        self.mesh.check_recovered()
        self._wake()

    async def _publish(self, raws: list[bytes]) -> None:
        """This seat's own messages (signed and applied by its player): to every peer."""
        self._tell(self.player.take_events())
        if self.store is not None:
            self._durable.clear()                  # a failed write stops the run with nothing sent
            for raw in raws:
                self.store.append(raw)
            self.store.save_committed(self.player.secrets())
            await self.store.flush()
            self._durable.set()
        frames = [self.mesh.own(raw) for raw in raws]
        self._note_state()
        for frame in frames:
            await self._send_all(frame)
        self._wake()

    # ------------------------------------------------------------------ tasks
    async def _sync(self) -> None:
        while True:
            await self._send_all(self.mesh.heads())
            await asyncio.sleep(self.sync_interval)

    async def _play(self) -> None:
        """Sign what this seat owes and what its decider chooses, until the game is complete."""
        wants_view = getattr(self.decider, "wants_view", True)
        while not self.session.complete and self.outcome is None:
            self._changed.clear()
            if not self.turn.may_sign():
                await self._changed.wait()
                continue
            owed = self.turn.owed()
            if owed:
                await self._publish(owed)
            question = self.turn.question(wants_view)
            if question is None:
                if not self.session.complete and not self._changed.is_set():
                    await self._changed.wait()
                continue
            action = await self.decider(question.view, question.legal, question.kind)
            raw = self.turn.answer(question, action, stopped=self.outcome is not None)
            if raw is not None:
                await self._publish([raw])
        if self.session.complete:
            self._finish("complete", "the game is complete")

    def give_up_after(self) -> float:
        return max(MIN_GIVE_UP, GIVE_UP_FACTOR * self.genesis.time_limit)

    async def _watch(self) -> None:
        """The stall watch (protocol/seat/watch.py), on a table with a time limit."""
        limit = self.genesis.time_limit
        if not limit:
            return
        self.watchdog.start(self.now(), self.give_up_after())
        while self.outcome is None:
            await asyncio.sleep(min(0.25, limit / 4))
            done = self.watchdog.tick(self.now())
            await self._keep_votes()
            if done.proposed is not None:
                log.info("seat %d: seats %s silent for %d s; proposed to abandon them", self.seat,
                         list(done.proposed), limit)
            for frame in done.send:
                await self._send_all(frame)
            if done.give_up is not None:
                self._finish("gave-up", done.give_up)

    async def _linger(self) -> None:
        """After the end: serve the peers until each holds every message (or the record). A
        postbox seat sends the record once (it waits on the broker for each seat)."""
        if self.mail is not None:
            if self.ballot.record is not None:
                for frame in self.ballot.frames():
                    await self._send_all(frame)
            return
        async def served() -> None:
            while not (self.ballot.everyone_has_the_record() if self.ballot.record is not None
                       else self.mesh.everyone_has_everything()):
                if self.ballot.record is not None:
                    for frame in self.ballot.frames():
                        await self._send_all(frame)
                await asyncio.sleep(self.sync_interval)
        try:
            await asyncio.wait_for(served(), self.linger)
        except asyncio.TimeoutError:
            pass

    async def _flushed(self) -> bool:
        """The store's flush for the postbox's pump: False (said in one line) if it failed."""
        try:
            await self.store.flush()
        except Exception as exc:                  # noqa: BLE001 - said in one line, nothing is published
            log.error("seat %d: the game's store could not be flushed: %s", self.seat, exc)
            return False
        return True

    async def _mail_drained(self) -> None:
        """A postbox seat: once what waited on the broker has come, take it as all come
        (PostboxSeat.drained_at) and send each seat what it is owed of this seat; then, while
        the tab is open, look for losses every MAIL_CHECK s."""
        await self.mail.postbox.drained(MAIL_QUIET, MAIL_DRAIN)
        drained = self.postseat.drained_at(self.mail.reported(), self.now())
        if drained.opened:
            self._wake()
        if drained.shut is not None:
            log.warning("%s", drained.shut_text(self.seat))
        while self.outcome is None:
            for peer, frame in self.postseat.own_owed():
                await self._send(peer, frame)
            await asyncio.sleep(MAIL_CHECK)
            self.mail.check(self.now())

    async def _mail_end(self) -> None:
        """A postbox seat's end: what is left published once flushed, and acknowledged by the broker."""
        await self.mail.push(self._flushed)
        if not await self.mail.postbox.flush(MAIL_FLUSH):
            log.warning("seat %d: the broker has not acknowledged %d envelope(s) within %.0f s; the next "
                        "envelope to each seat shows the gap and they are sent again", self.seat,
                        self.mail.postbox.unacknowledged(), MAIL_FLUSH)

    async def _guard(self, job: Awaitable[None]) -> None:
        """A task that fails (its decider, a link) ends the run saying why, never silently."""
        try:
            await job
        except asyncio.CancelledError:
            raise
        except Exception as exc:                  # noqa: BLE001 - said in one line, the run stops
            log.error("seat %d: stopped: %s: %s", self.seat, type(exc).__name__, exc)
            self._finish("failed", f"stopped: {type(exc).__name__}: {exc}")

    async def run(self) -> Outcome:
        """Play until the game ends here; then linger for the peers. The outcome, also kept."""
        self._note_state()
        jobs = [self._receive(peer) for peer in self.links] + [self._sync(), self._play(), self._watch()]
        if self.mail is not None:
            jobs += [self.mail.receive(), self.mail.pump(self._flushed), self._mail_drained()]
        tasks = [asyncio.ensure_future(self._guard(job)) for job in jobs]
        try:
            await self._finished.wait()
            await self._linger()
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
        if self.mail is not None:
            await self._mail_end()
        assert self.outcome is not None
        return self.outcome
