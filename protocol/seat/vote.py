"""One seat's part in the abandon vote, without a clock or links (specs/node.md "Stalls",
specs/protocol.md §11).

When the game waits too long for other seats, a seat *proposes* to abandon them for the
exact state — a promise that binds only once every other seat that would sign has proposed
the same — and plays on meanwhile; with every proposal in, it signs the abandon statement,
signs nothing after it, and the game ends here once a complete record is known (the one on
the earliest state, if several exist). So one node's view of silence (a fast clock, a
one-sided link) never costs it its seat.

`Ballot` keeps the states this replica held (`Snapshot`s, with the caller's times), the
proposals, signatures and records of every seat, checked against those states (a state it
never held is rebuilt by replay, at most once per peer and state of its own), and what
this seat tells a peer (`frames`). The caller passes `now` (its clock, in seconds), sends
what `frames` and `on_proposal` give, keeps `resend_at`, and learns through three hooks:
`on_signed` (this seat signed: keep the vote before it is sent), `on_adopted(text)` (a
record ends the game here) and `note(level, text)` (a line for its log).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from .. import abandon, genesis as G
from ..errors import Rejected
from ..identity import SigningKey
from ..need import EngineFault
from ..session import Session
from .mesh import Mesh


@dataclass
class Snapshot:
    """One state the replica was in: every accepted message (the log's first `log_len`,
    then the pending contributions in seat order), whom an abandon could name, and when
    (the caller's clock) this node held it."""
    log_len: int
    pending: tuple[bytes, ...]
    stalled: tuple[int, ...]
    counts: tuple[int, ...]              # accepted messages per author
    since: float
    until: float | None = None
    digest: bytes | None = None
    frames: list[bytes] | None = None    # for a state rebuilt by replay (see Ballot.state_at)

    @property
    def length(self) -> int:
        return self.log_len + len(self.pending)


def limit_text(genesis: G.Genesis) -> str:
    """The silence limit in words: "time limit of 300 s" (a live table, as always said) or
    "time per move of 24 h" (a turn-based table, whose limit is its time per move)."""
    if genesis.turn_based:
        return f"time per move of {G.duration_text(genesis.time_limit)}"
    return f"time limit of {genesis.time_limit} s"


def counts_ok(frame: dict, n: int) -> bool:
    """A frame's `h` holds one count >= 0 per seat, adding up to its `length` if it has one."""
    h = frame.get("h")
    return (type(h) is list and len(h) == n and all(type(x) is int and x >= 0 for x in h)
            and sum(h) == frame.get("length", sum(h)))


def statement_shape_ok(frame: dict, n: int) -> bool:
    """A proposal's or a vote's statement fields are well formed, `by` not named stalled."""
    stalled, by = frame.get("stalled"), frame.get("by")
    return (type(stalled) is list and 0 < len(stalled) < n and all(type(x) is int for x in stalled)
            and stalled == sorted(set(stalled)) and 0 <= stalled[0] and stalled[-1] < n
            and type(frame.get("length")) is int and frame["length"] >= 0
            and type(frame.get("digest")) is bytes and len(frame["digest"]) == 32
            and type(by) is int and 0 <= by < n and by not in stalled and counts_ok(frame, n))


def vote_shape_ok(frame: dict, n: int) -> bool:
    return statement_shape_ok(frame, n) and type(frame.get("sig")) is bytes and len(frame["sig"]) == 64


def record_shape_ok(frame: dict) -> bool:
    return type(frame.get("r")) is bytes and len(frame["r"]) <= 1 << 16


def _nothing(*args: Any) -> None:
    return None


@dataclass
class Hooks:
    """What the caller learns from a Ballot (see the module doc)."""
    on_signed: Callable[[], None] = _nothing
    on_adopted: Callable[[str], None] = _nothing
    note: Callable[[str, str], None] = _nothing
    caught_up: Callable[[], bool] = lambda: True
    """The caller judges silence now (a postbox node: once it took what waited for it)."""


class Ballot:
    """This seat's abandon vote (see the module doc)."""

    def __init__(self, session: Session, seat: int, key: SigningKey, mesh: Mesh, hooks: Hooks | None = None):
        self.session, self.seat, self.key, self.mesh = session, seat, key, mesh
        self.genesis = session.genesis
        self.hooks = hooks or Hooks()
        self.history: list[Snapshot] = []
        self.by_counts: dict[tuple[int, ...], Snapshot] = {}
        self.vote: Snapshot | None = None        # the state whose abandon statement this seat signed
        self.proposed: dict[tuple[int, ...], Snapshot] = {}      # states this seat proposed to abandon
        self.proposals: dict[tuple[int, ...], set[int]] = {}    # state counts -> seats that proposed it
        self.latest_proposal: Snapshot | None = None
        self.unplaced_proposals: dict[int, dict] = {}   # proposer -> its latest proposal for a state not reached yet
        self.votes: dict[tuple[int, ...], dict[int, bytes]] = {}   # state counts -> verified signatures
        self.unplaced_votes: dict[int, dict] = {}       # voter -> its latest vote for a state not reached yet
        self.unplaced_records: dict[int, dict] = {}     # sender -> a record for a state not reached yet
        self.record: bytes | None = None                # the complete record adopted here
        self.record_frames: list[bytes] = []
        self.record_counts: tuple[int, ...] = ()
        self.record_rank: tuple[int, bytes] = (0, b"")
        self.peer_records: dict[int, bytes] = {}
        self.game_complete = False                      # the game ended complete here: no record now
        self.resend_at = 0.0
        """When (the caller's clock) to send this seat's proposal or statement again; 0: at once."""
        self.rebuilt_at: dict[int, tuple[int, ...]] = {}   # peer -> this node's counts at its last rebuild
        self.rebuilt_by: dict[int, tuple[int, ...]] = {}   # peer -> the rebuilt state it last named

    # ------------------------------------------------------------------ states
    def note_state(self, now: float) -> bool:
        """Record a new snapshot if the replica changed (True); then look again at
        `place_unplaced`, which the caller runs after its own reaction to the change."""
        s = self.session
        pending = tuple(s.pending[x].raw for x in sorted(s.pending))
        last = self.history[-1] if self.history else None
        if last is not None and last.log_len == len(s.log) and last.pending == pending:
            return False
        if last is not None:
            last.until = now
        snap = Snapshot(len(s.log), pending, tuple(abandon.stalled_seats(s)), tuple(self.mesh.counts()), now)
        self.history.append(snap)
        self.by_counts[snap.counts] = snap
        return True

    def place_unplaced(self, now: float) -> None:
        """Votes, proposals and records that named a state this node had not reached, taken
        now that it holds it."""
        for voter, frame in list(self.unplaced_votes.items()):
            if self.mesh.holds(frame["h"]):
                del self.unplaced_votes[voter]
                self.on_vote(frame, now)
        for proposer, frame in list(self.unplaced_proposals.items()):
            if self.mesh.holds(frame["h"]):
                del self.unplaced_proposals[proposer]
                self.on_proposal(proposer, frame, now)
        for sender, frame in list(self.unplaced_records.items()):
            if self.mesh.holds(frame["h"]):
                del self.unplaced_records[sender]
                self.on_record(sender, frame)

    def state_at(self, counts: list[int], digest: bytes, who: int) -> Snapshot | None:
        """This node's snapshot of the state holding exactly `counts` messages per author, if
        its digest is `digest`; for a state it never held itself (a partition, a pause),
        rebuilt by replaying the messages it holds. A rebuild costs a replay, so each peer
        `who` gets at most one per state of this node, and keeps at most one rebuilt state."""
        key = tuple(counts)
        snap = self.by_counts.get(key)
        if snap is not None or not self.mesh.holds(counts):
            return snap if snap is not None and self.digest(snap) == digest else None
        mine = tuple(self.mesh.counts())
        if self.rebuilt_at.get(who) == mine:
            return None
        self.rebuilt_at[who] = mine
        replica = Session(self.genesis, self.session.engine)
        try:
            for raw in self.mesh.held_at(counts):
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
        old = self.rebuilt_by.get(who)
        if (old is not None and old != key and old != self.record_counts and old not in self.proposed
                and (self.vote is None or self.vote.counts != old)):
            self.by_counts.pop(old, None)
            self.votes.pop(old, None)
        self.rebuilt_by[who] = key
        self.by_counts[key] = snap
        return snap

    def frames_of(self, snap: Snapshot) -> list[bytes]:
        if snap.frames is not None:
            return snap.frames
        return self.session.log[:snap.log_len] + list(snap.pending)

    def digest(self, snap: Snapshot) -> bytes:
        if snap.digest is None:
            snap.digest = abandon.log_digest(self.frames_of(snap))
        return snap.digest

    def signed_final(self) -> bool:
        mine = self.session.accepted[self.seat]
        return bool(mine) and mine[-1].kind == "final"

    # ------------------------------------------------------------------ proposing and signing
    def eligible(self, snap: Snapshot) -> bool:
        """This node may still propose or sign for `snap`: it names others only, is not at its
        final, has recovered its chain and signed no statement."""
        return (self.vote is None and self.mesh.recovered and bool(snap.stalled) and self.seat not in snap.stalled
                and not self.signed_final() and self.hooks.caught_up())

    def maybe_propose(self, snap: Snapshot, now: float) -> bool:
        """Propose `snap` once this node itself held it for the time limit (now or before):
        a record then needs every signer's own clock to have seen the whole limit pass."""
        if snap.counts in self.proposed or not self.eligible(snap):
            return False
        held = (snap.until if snap.until is not None else now) - snap.since
        if held < self.genesis.time_limit:
            return False
        self.proposed[snap.counts] = snap
        self.proposals.setdefault(snap.counts, set()).add(self.seat)
        self.latest_proposal = snap
        self.resend_at = 0.0                            # sent at the caller's next tick
        self.maybe_sign(snap)
        return True

    def maybe_sign(self, snap: Snapshot) -> bool:
        """Sign the statement for `snap` when this node proposed it and so did every other
        seat that must sign: each of them has promised to sign it too, so nobody who signs
        is left alone (even if the game moved on meanwhile here)."""
        if snap.counts not in self.proposed or not self.eligible(snap):
            return False
        have = self.proposals.get(snap.counts, set()) | set(self.votes.get(snap.counts, {}))
        if not all(s in have for s in range(self.session.n) if s not in snap.stalled):
            return False
        self.sign(snap)
        self.hooks.note("info", f"seat {self.seat}: every other signer proposed it too; signed the abandon "
                                f"statement naming seats {list(snap.stalled)}")
        return True

    def sign(self, snap: Snapshot) -> None:
        """Sign the abandon statement for `snap`: this seat signs nothing after it."""
        digest = self.digest(snap)
        sig = abandon.sign(self.key, self.session.game_id, list(snap.stalled), snap.length, digest)
        self.vote = snap
        self.votes.setdefault(snap.counts, {})[self.seat] = sig
        self.resend_at = 0.0                            # sent at the caller's next tick
        self.hooks.on_signed()

    def proposal_frame(self, snap: Snapshot) -> dict:
        return {"t": "propose", "stalled": list(snap.stalled), "length": snap.length, "digest": self.digest(snap),
                "h": list(snap.counts)}

    def frames(self, recent: int = 1) -> list[dict]:
        """What this node tells a peer about abandoning: the record it holds, else its own
        vote and every signature it holds for that statement, else its `recent` latest
        proposals."""
        if self.record is not None:
            return [{"t": "record", "r": self.record, "h": list(self.record_counts), "digest": self.record_rank[1]}]
        snap = self.vote
        if snap is None:
            return [self.proposal_frame(p) for p in list(self.proposed.values())[-recent:]]
        return [{"t": "abandon", "stalled": list(snap.stalled), "length": snap.length, "digest": self.digest(snap),
                 "h": list(snap.counts), "sig": sig, "by": voter}
                for voter, sig in sorted(self.votes.get(snap.counts, {}).items())]

    # ------------------------------------------------------------------ frames in
    def on_proposal(self, seat: int, frame: dict, now: float) -> dict | None:
        """Seat `seat` proposes to abandon a state (`statement_shape_ok` with "by": seat):
        checked against this node's snapshot of it (one unchecked proposal per seat for a
        state not reached yet). Returns this node's own proposal of that state, if any, as
        the answer (so both learn it)."""
        if not self.mesh.holds(frame["h"]):
            self.unplaced_proposals[seat] = frame
            return None
        snap = self.state_at(frame["h"], frame["digest"], seat)
        if snap is None or tuple(frame["stalled"]) != snap.stalled:
            return None
        known = seat in self.proposals.get(snap.counts, set())
        self.proposals.setdefault(snap.counts, set()).add(seat)
        self.maybe_propose(snap, now)
        self.maybe_sign(snap)
        self.check_records()
        return self.proposal_frame(snap) if snap.counts in self.proposed and not known else None

    def on_vote(self, frame: dict, now: float) -> None:
        """A seat's abandon signature (`vote_shape_ok`): checked against this node's snapshot
        of that state before anything is kept (one unchecked vote per voter for a state not
        reached yet)."""
        if not self.mesh.holds(frame["h"]):
            self.unplaced_votes[frame["by"]] = frame
            return
        stalled = tuple(frame["stalled"])
        if not abandon.signature_ok(self.session.seats[frame["by"]], frame["sig"], self.session.game_id,
                                    list(stalled), frame["length"], frame["digest"]):
            self.hooks.note("warning", f"seat {self.seat}: an abandon signature of seat {frame['by']} does not "
                                       "verify; ignored")
            return
        snap = self.state_at(frame["h"], frame["digest"], frame["by"])
        if snap is None or stalled != snap.stalled:
            return
        self.votes.setdefault(snap.counts, {})[frame["by"]] = frame["sig"]
        self.proposals.setdefault(snap.counts, set()).add(frame["by"])     # a signature is a proposal too
        self.maybe_propose(snap, now)
        self.maybe_sign(snap)
        self.check_records()

    def on_record(self, sender: int, frame: dict) -> None:
        """A complete record from `sender` (`record_shape_ok`): adopted if its signatures and
        the state it names check out here."""
        raw = frame["r"]
        try:
            parsed = abandon.parse_record(raw)
        except Rejected:
            return
        digest = frame.get("digest")
        if (parsed is None or not counts_ok({"h": frame.get("h"), "length": parsed[1]}, self.session.n)
                or type(digest) is not bytes or len(digest) != 32):
            return
        stalled, length, sigs = parsed
        if not self.mesh.holds(frame["h"]):
            self.unplaced_records[sender] = frame
            return
        try:
            abandon.check_signatures(self.session.seats, self.session.game_id, stalled, length, digest, sigs)
        except Rejected as exc:
            self.hooks.note("warning", f"seat {self.seat}: seat {sender} sent an invalid abandon record: {exc}")
            return
        snap = self.state_at(frame["h"], digest, sender)
        if snap is None or tuple(stalled) != snap.stalled:
            return
        self.peer_records[sender] = raw
        self.adopt(raw, snap)

    # ------------------------------------------------------------------ records
    def check_records(self) -> None:
        """Adopt a complete record made of verified votes."""
        for counts, sigs in list(self.votes.items()):
            snap = self.by_counts[counts]
            signers = [s for s in range(self.session.n) if s not in snap.stalled]
            if all(s in sigs for s in signers):
                self.adopt(abandon.record(list(snap.stalled), snap.length, {s: sigs[s] for s in signers}), snap)

    def adopt(self, raw: bytes, snap: Snapshot) -> None:
        """A complete, valid record ends the game here: if several exist (a partition), the one
        on the earliest state wins (fewest messages, then the smaller digest), everywhere."""
        if self.game_complete or (self.record is not None and self.record_rank <= (snap.length, self.digest(snap))):
            return
        self.record, self.record_frames = raw, self.frames_of(snap)
        self.record_counts, self.record_rank = snap.counts, (snap.length, self.digest(snap))
        stalled = ", ".join(str(s) for s in snap.stalled) + (" (this seat)" if self.seat in snap.stalled else "")
        self.hooks.on_adopted(f"abandoned by seat {stalled}: no message within the {limit_text(self.genesis)}; "
                              f"the record is co-signed by seats "
                              f"{', '.join(str(s) for s in range(self.session.n) if s not in snap.stalled)}")

    def everyone_has_the_record(self, signers_only: bool = False) -> bool:
        stalled = abandon.parse_record(self.record)[0] if signers_only else []
        return all(self.peer_records.get(s) == self.record
                   for s in range(self.session.n) if s != self.seat and s not in stalled)

    def cosigner_gone(self, snap: Snapshot, now: float, after: float) -> bool:
        """A seat that would have to sign a record for this state has sent nothing for
        `after` seconds: no record can form (while every co-signer is heard, a record may yet
        form, or the game go on: this node's own clock alone never ends its game)."""
        signers = [s for s in range(self.session.n) if s != self.seat and s not in snap.stalled]
        return any(now - self.mesh.heard.get(s, -1e9) >= after for s in signers)

    def restore(self, mine: list[dict], vote: dict | None, now: float) -> bool:
        """A postbox node's earlier runs: its own proposals (`mine`) and its signed vote, taken
        back for the states it still holds (the same statement signs to the same signature).
        False if it signed a statement for a state it cannot rebuild: it stays bound by it and
        signs nothing more."""
        for frame in mine:
            snap = self.restored_state({**frame, "by": self.seat})
            if snap is not None:
                self.proposed[snap.counts] = self.latest_proposal = snap
                self.proposals.setdefault(snap.counts, set()).add(self.seat)
        if vote is None:
            return True
        snap = self.restored_state(vote)
        if snap is None:
            self.vote = Snapshot(0, (), tuple(vote.get("stalled") or ()), (), now)
            return False
        self.sign(snap)
        return True

    def hear_again(self, heard: list[tuple[int, dict]], now: float) -> None:
        """The other seats' proposals and votes a postbox node took in earlier runs."""
        n = self.session.n
        for seat, frame in heard:
            if frame.get("t") == "abandon" and vote_shape_ok(frame, n):
                self.on_vote(frame, now)
            elif frame.get("t") == "propose" and statement_shape_ok({**frame, "by": seat}, n):
                self.on_proposal(seat, frame, now)

    def restored_state(self, frame: dict) -> Snapshot | None:
        """This node's snapshot of the state a kept frame of its own names, if it still holds it."""
        if not statement_shape_ok(frame, self.session.n) or not self.mesh.holds(frame["h"]):
            return None
        snap = self.state_at(frame["h"], frame["digest"], self.seat)
        return snap if snap is not None and snap.stalled == tuple(frame["stalled"]) else None
