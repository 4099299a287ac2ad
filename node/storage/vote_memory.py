"""What a postbox node keeps of an abandon vote between its runs (issue 33, item 5).

On a turn-based table played through a broker, the seats' nodes may never run at the same
time: a proposal or a signature reaches the other signers only when they next run, and each
node runs for a moment now and then. So, unlike a live node (which judges silence only
while it runs), a postbox node keeps in `games/<id>/votes.bin`:

- `held`: the state it held last (its message counts per author) and since when, by this
  machine's clock (Unix ms): a seat is silent once every signer's own clock saw the whole
  time per move pass since it first held that state, even if no signer ran throughout;
- `mine`: its own latest proposals (a promise the others may already have acted on);
- `vote`: its signature of an abandon statement, if any (it signs nothing after it, in this
  run or any later one);
- `heard`: the other seats' latest proposals and signatures (their envelopes were
  acknowledged to the broker when taken, so they do not come again).

Each frame is the game's own `propose`/`abandon` frame (node/app/game.py), checked again when
it is read back. The file is canonical msgpack (protocol/wire.py) written atomically."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from protocol import wire

from .files import write_atomic

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


def load(folder: Path) -> VoteMemory:
    """The memory kept in `folder` (empty if none); ValueError naming the file if damaged."""
    path = folder / FILE
    try:
        value = wire.decode(path.read_bytes())
    except FileNotFoundError:
        return VoteMemory()
    except (OSError, wire.WireError) as exc:
        raise ValueError(f"{path} is damaged ({exc})") from None
    try:
        held = value["held"]
        if held is not None and (type(held[0]) is not list or type(held[1]) is not int):
            raise TypeError("held")
        return VoteMemory(tuple(held) if held else None, [dict(f) for f in value["mine"]],
                          dict(value["vote"]) if value["vote"] is not None else None,
                          [(int(s), dict(f)) for s, f in value["heard"]])
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        raise ValueError(f"{path} is damaged ({exc.__class__.__name__}: {exc})") from None


def save(folder: Path, memory: VoteMemory) -> bytes:
    """Write `memory` to `folder` (OSError if it cannot be); returns what was written."""
    data = memory.encode()
    write_atomic(folder / FILE, data)
    return data

