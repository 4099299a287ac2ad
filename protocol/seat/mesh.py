"""One seat's peer mesh without sockets: which messages it holds, what each peer says it
holds, what to send a peer that lacks some, and whether this seat may sign again.

Messages are gossiped (each new message is forwarded to every other peer) and each side
periodically tells the other how many messages it holds per author (a `heads` frame); the
other then sends every message the first lacks, in log order, a page at a time, so a node
missing any number of messages catches up from whoever holds them (`resend`).

A seat signs nothing before every peer has said how many of its own messages it holds and
it holds at least as many (`check_recovered`): a lost log never makes it sign a used seq again.

Everything here is a plain call: no clock (the caller passes `now`), no I/O, no threads.
The caller checks a message's deck proofs where it likes (a worker thread, or inline by
passing none), writes what `receive` accepted to its store and logs what it reports.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any

from .. import chain
from ..errors import Rejected
from ..need import EngineFault
from ..session import ProofJob, Session

RESEND_BATCH = 64
"""Messages sent in answer to one `heads` frame (the next heads asks for the next page)."""
MAX_EARLY_BYTES = 8 << 20
"""Bytes of messages held ahead of the game (not yet applicable) per author."""


@dataclass
class Intake:
    """What one received message did. `status`: "old" (a copy already applied: nothing done),
    "refused" (`refused` names the signer), "fault" (the rules engine failed: a bug),
    "buffered" (held until it fits), "duplicate", or "applied"."""
    status: str
    accepted: list[bytes] = field(default_factory=list)
    """Messages accepted now, in log order (it and the buffered ones it unlocked), to store."""
    events: list[Any] = field(default_factory=list)
    refused: Rejected | None = None
    fault: EngineFault | None = None
    rejected: list[Rejected] = field(default_factory=list)
    """Buffered messages it showed to be bad (refused now, each naming its signer)."""
    dropped_early: int | None = None
    """The author whose message was dropped for holding over MAX_EARLY_BYTES ahead of the game."""
    forward: bool = False
    """Relayed (not straight from its author): pass it on to every other peer."""


def digest_of(raw: bytes) -> bytes:
    return hashlib.sha256(raw).digest()


class Mesh:
    """This seat's view of the mesh around its replica (see the module doc)."""

    def __init__(self, session: Session, seat: int):
        self.session = session
        self.seat = seat
        self.seen: set[bytes] = set()            # sha256 of every message applied (not merely buffered)
        self.order: list[tuple[int, int]] = []   # (seat, seq) of each logged message
        self.peer_heads: dict[int, list[int]] = {}
        self.heard: dict[int, float] = {}        # seat -> when (the caller's clock) a frame of it last arrived
        self.recovered = session.n == 1          # every peer told us how many of our messages it holds

    def counts(self) -> list[int]:
        """Messages accepted per author: what a `heads` frame says."""
        return [len(a) for a in self.session.accepted]

    def heads(self) -> dict:
        return {"t": "heads", "h": self.counts()}

    def holds(self, counts: list[int]) -> bool:
        """This replica holds at least `counts` messages of every author."""
        return all(c <= have for c, have in zip(counts, self.counts()))

    # ------------------------------------------------------------------ frames in
    def hear(self, peer: int, now: float) -> None:
        """A frame of `peer` arrived at `now`."""
        self.heard[peer] = now

    def heads_ok(self, heads: Any) -> bool:
        """A `heads` frame's counts are well formed: one count >= 0 per seat."""
        return (type(heads) is list and len(heads) == self.session.n
                and all(type(x) is int and x >= 0 for x in heads))

    def on_heads(self, peer: int, heads: list[int]) -> None:
        """`peer` holds `heads` messages per author (checked with `heads_ok`)."""
        self.peer_heads[peer] = heads

    def replay(self, raw: bytes) -> list[Any]:
        """A stored message applied again at start: its events (Rejected if it is refused now)."""
        receipt = self.session.receive(raw)
        self.seen.add(digest_of(raw))
        return receipt.events

    def is_new(self, digest: bytes) -> bool:
        """No copy of this message was applied yet (a copy is not verified again)."""
        return digest not in self.seen

    def receive(self, raw: bytes, source: int | None, proofs: ProofJob | None = None) -> Intake:
        """A message from peer `source` (None: not from a peer), its deck proofs checked in
        `proofs` if the caller ran them (else the session runs them)."""
        digest = digest_of(raw)
        if digest in self.seen:
            return Intake("old")
        before = self.counts()
        try:
            receipt = self.session.receive(raw, proofs)
        except Rejected as exc:
            return Intake("refused", refused=exc)
        except EngineFault as exc:
            return Intake("fault", fault=exc)
        intake = Intake(receipt.status, rejected=list(receipt.rejected))
        if receipt.status == "buffered":
            intake.dropped_early = self.bound_early(raw)   # kept (one per author and seq) until it fits
            return intake
        self.seen.add(digest)
        if receipt.status == "duplicate":
            return intake
        new = [(author, msg.raw) for author, had in enumerate(before)    # the buffered ones it unlocked too
               for msg in self.session.accepted[author][had:]]
        intake.accepted = [done for _, done in new]
        self.seen.update(digest_of(done) for done in intake.accepted)
        intake.events = list(receipt.events)
        author = next((a for a, done in new if done == raw), None)
        # relayed (not straight from its author): pass it on, in case a link is down; an
        # author sends its own messages to everyone, and resync covers the rest
        intake.forward = source is not None and author != source
        return intake

    def own(self, raw: bytes) -> dict:
        """This seat's own message (already applied by its player): the frame to send everyone."""
        self.seen.add(digest_of(raw))
        return {"t": "msg", "m": raw}

    def bound_early(self, raw: bytes) -> int | None:
        """Messages held ahead of the game take at most MAX_EARLY_BYTES per author: past that,
        the one just buffered is dropped (resync brings it again when it fits). Returns the
        author of a dropped one."""
        msg = chain.parse(raw)
        seat = self.session.seat_of[msg.author]
        held = sum(len(m.raw) for (s, _), m in self.session.early.items() if s == seat)
        if held > MAX_EARLY_BYTES and self.session.early.get((seat, msg.seq)) is not None:
            del self.session.early[(seat, msg.seq)]
            return seat
        return None

    # ------------------------------------------------------------------ frames out
    def sync_order(self) -> None:
        """Bring `order` up to the session's log (the session may have been fed directly)."""
        for raw in self.session.log[len(self.order):]:
            msg = chain.parse(raw)
            self.order.append((self.session.seat_of[msg.author], msg.seq))

    def resend(self, theirs: list[int]) -> list[dict]:
        """What a peer whose heads are `theirs` lacks (every author's messages from the count
        it reported on), in log order so that each applies at once, then the pending
        contributions; a page of RESEND_BATCH (the pending ones are left for the next page)."""
        s = self.session
        if all(theirs[a] >= len(s.accepted[a]) for a in range(s.n)):
            return []
        self.sync_order()
        out: list[dict] = []
        for (author, seq), raw in zip(self.order, s.log):
            if seq >= theirs[author]:
                out.append({"t": "msg", "m": raw})
                if len(out) >= RESEND_BATCH:
                    return out
        out += [{"t": "msg", "m": msg.raw} for author, msg in sorted(s.pending.items()) if msg.seq >= theirs[author]]
        return out

    def owed(self, start: dict[int, int]) -> list[dict]:
        """Every message of each author in `start` from its seq `start[author]` on, in log
        order, then the pending contributions; no pages (a postbox's next heads may come
        days later)."""
        if not start:
            return []
        s = self.session
        self.sync_order()
        out = [{"t": "msg", "m": raw} for (author, seq), raw in zip(self.order, s.log)
               if author in start and seq >= start[author]]
        out += [{"t": "msg", "m": msg.raw} for author, msg in sorted(s.pending.items())
                if author in start and msg.seq >= start[author]]
        return out

    def held_at(self, counts: list[int]) -> list[bytes]:
        """The messages this replica holds of the state holding exactly `counts` messages per
        author (log order, then the pending contributions): what replays that state."""
        s = self.session
        self.sync_order()
        chosen = [raw for (a, q), raw in zip(self.order, s.log) if q < counts[a]]
        return chosen + [m.raw for a, m in sorted(s.pending.items()) if m.seq < counts[a]]

    # ------------------------------------------------------------------ signing gate
    def check_recovered(self) -> bool:
        """Open the gate to signing once every peer has said how many of this seat's messages
        it holds and this replica holds at least as many (it fetched them back). True when
        this call opened it."""
        if self.recovered:
            return False
        others = [s for s in range(self.session.n) if s != self.seat]
        if not all(s in self.peer_heads for s in others):
            return False
        theirs = max((self.peer_heads[s][self.seat] for s in others), default=0)
        if self.counts()[self.seat] < theirs:
            return False
        self.recovered = True
        return True

    def everyone_has_everything(self) -> bool:
        """Every peer's last heads match this replica's."""
        mine = self.counts()
        return all(self.peer_heads.get(s) == mine for s in range(self.session.n) if s != self.seat)
