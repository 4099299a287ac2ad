"""What a seat keeps of its abandon vote between its runs (issue 33, item 5), without files
or clocks: the desktop's postbox node keeps it in `games/<id>/votes.bin`
(node/storage/vote_memory.py), the tab's seat beside its game's log (clients/tab/py/tab_games.py).

A seat that signed an abandon statement must sign nothing after it, in this run or any later
one; and on a turn-based table the seats' nodes may never run at the same time, so a
proposal or a signature reaches the other signers only when they next run. So it keeps:

- `held`: the state it held last (its message counts per author) and since when, by this
  machine's clock (Unix ms): a seat is silent once every signer's own clock saw the whole
  time per move pass since it first held that state, even if no signer ran throughout;
- `mine`: its own latest proposals (a promise the others may already have acted on);
- `vote`: its signature of an abandon statement, if any (it signs nothing after it, in this
  run or any later one);
- `heard`: the other seats' latest proposals and signatures (their envelopes were
  acknowledged to the broker when taken, so they do not come again).

Each frame is the game's own `propose`/`abandon` frame, checked again when it is read back.
The encoding is canonical msgpack (protocol/wire.py)."""

from __future__ import annotations

from dataclasses import dataclass, field

from .. import wire
from .vote import Ballot

FILE = "votes.bin"
KEPT = 8
"""Proposals kept of this seat, and frames kept per other seat."""
FIELDS = ("t", "stalled", "length", "digest", "h", "by", "sig")
"""The fields of a `propose` or `abandon` frame (anything else a seat added is not kept)."""


@dataclass
class VoteMemory:
    held: tuple[list[int], int] | None = None
    mine: list[dict] = field(default_factory=list)
    vote: dict | None = None
    heard: list[tuple[int, dict]] = field(default_factory=list)

    def hear(self, seat: int, frame: dict) -> None:
        """Keep `frame` (a proposal or signature of `seat`), its KEPT latest per seat."""
        frame = {k: frame[k] for k in FIELDS if k in frame}
        if (seat, frame) in self.heard:
            return
        self.heard.append((seat, frame))
        theirs = [i for i, (s, _) in enumerate(self.heard) if s == seat]
        for i in reversed(theirs[:-KEPT]):
            del self.heard[i]

    def encode(self) -> bytes:
        return wire.encode({"held": list(self.held) if self.held else None, "mine": self.mine[-KEPT:],
                            "vote": self.vote, "heard": [[s, f] for s, f in self.heard]})


def decode(data: bytes, name: str) -> VoteMemory:
    """The memory encoded in `data`; ValueError naming `name` (its file) if damaged."""
    try:
        value = wire.decode(data)
    except wire.WireError as exc:
        raise ValueError(f"{name} is damaged ({exc})") from None
    try:
        held = value["held"]
        if held is not None and (type(held[0]) is not list or type(held[1]) is not int):
            raise TypeError("held")
        return VoteMemory(tuple(held) if held else None, [dict(f) for f in value["mine"]],
                          dict(value["vote"]) if value["vote"] is not None else None,
                          [(int(s), dict(f)) for s, f in value["heard"]])
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        raise ValueError(f"{name} is damaged ({exc.__class__.__name__}: {exc})") from None


class VoteKeeper:
    """One seat's memory and its ballot: read back into the ballot at the start of a run,
    brought up to date from it while the seat runs. `now` is the seat's clock (seconds), `wall`
    this machine's (Unix seconds): the held-since time is kept on the wall clock."""

    def __init__(self, memory: VoteMemory):
        self.memory = memory
        self.saved = b""
        """What was last kept (the caller sets it once written)."""
        self._held_key: tuple[tuple[int, ...], float] | None = None

    def restore(self, ballot: Ballot, now: float, wall: float, held: bool = True) -> bool:
        """Since when the seat holds its state (with `held`: across its runs), its own
        proposals and signature; False if it signed a statement for a state it cannot rebuild
        (it stays bound by it and signs nothing more). The others' frames: `hear_again`."""
        memory, cur = self.memory, ballot.history[-1]
        cur.since = now
        if held and memory.held is not None and tuple(memory.held[0]) == cur.counts:
            cur.since = now - max(0.0, wall - memory.held[1] / 1000)
            self._held_key = (cur.counts, cur.since)         # kept as it was read
        return ballot.restore(memory.mine, memory.vote, now)

    def hear_again(self, ballot: Ballot, now: float) -> None:
        """The other seats' proposals and votes taken in earlier runs, back in the ballot."""
        ballot.hear_again(self.memory.heard, now)

    def changed(self, ballot: Ballot, now: float, wall: float) -> bytes | None:
        """The memory brought up to date from `ballot`: its encoding, or None if that is what
        was last kept."""
        memory, cur = self.memory, ballot.history[-1]
        if self._held_key != (cur.counts, cur.since):         # (the wall time once per state: no jitter)
            self._held_key = (cur.counts, cur.since)
            memory.held = (list(cur.counts), int((wall - (now - cur.since)) * 1000))
        memory.mine = [ballot.proposal_frame(p) for p in ballot.proposed.values()]
        sig = ballot.votes.get(ballot.vote.counts, {}).get(ballot.seat) if ballot.vote is not None else None
        if ballot.vote is not None and type(sig) is bytes and memory.vote is None:
            memory.vote = {"t": "abandon", **ballot.proposal_frame(ballot.vote), "by": ballot.seat, "sig": sig}
        data = memory.encode()
        return None if data == self.saved else data
