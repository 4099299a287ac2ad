"""A seat's frames from its peers, dispatched without I/O: the one entry point a shell (the
trio node, the tab's driver) feeds every decoded frame with the peer's seat and its time.

Frames (a msgpack map each, "t" its type): "msg" (a signed message, "m"), "heads" (messages
held per author, "h"), "propose", "abandon" and "record" (the abandon vote,
protocol/seat/vote.py), "chat" and "genesis?" (the shell's own: talk beside the game, and
the signed genesis asked back by a seat that lost it). Anything else is a FrameError.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from ..identity import SigningKey
from ..link.framing import FrameError
from ..session import Session
from .mesh import Mesh
from .vote import Ballot, Hooks, record_shape_ok, statement_shape_ok, vote_shape_ok


@dataclass
class Reaction:
    """What a frame asks of the shell: `kind` (its type), `message` (a "msg": check its deck
    proofs where the shell likes, then `Mesh.receive`), `replies` (frames to send back to
    that peer), `opened` (it opened the gate to signing: `Mesh.check_recovered`)."""
    kind: str
    message: bytes | None = None
    replies: list[dict] = field(default_factory=list)
    opened: bool = False


class SeatCore:
    """One seat's Mesh and Ballot, fed its peers' frames (see the module doc). `postbox`: the
    seats talk through postboxes, whose shell answers heads with what each seat is owed
    (`Mesh.owed`) rather than a page; `on_heard(peer, frame)`: a proposal or vote about to
    be taken (a postbox node keeps them across runs)."""

    def __init__(self, session: Session, seat: int, key: SigningKey, hooks: Hooks | None = None,
                 postbox: bool = False, on_heard: Callable[[int, dict], None] | None = None):
        self.mesh = Mesh(session, seat)
        self.ballot = Ballot(session, seat, key, self.mesh, hooks)
        self.postbox = postbox
        self.on_heard = on_heard

    def on_frame(self, peer: int, frame: Any, now: float) -> Reaction:
        """A decoded frame from seat `peer` at `now`; FrameError if it is none of the above."""
        if type(frame) is not dict:
            raise FrameError("a frame is not a map")
        t = frame.get("t")
        n = self.mesh.session.n
        self.mesh.hear(peer, now)
        if t == "msg" and type(frame.get("m")) is bytes:
            return Reaction("msg", message=frame["m"])
        if t == "heads" and self.mesh.heads_ok(frame.get("h")):
            self.mesh.on_heads(peer, frame["h"])
            opened = self.mesh.check_recovered()
            return Reaction("heads", replies=[] if self.postbox else self.mesh.resend(frame["h"]), opened=opened)
        if t == "abandon" and vote_shape_ok(frame, n):
            if self.on_heard is not None:
                self.on_heard(peer, frame)
            self.ballot.on_vote(frame, now)
            return Reaction("abandon")
        if t == "propose" and statement_shape_ok({**frame, "by": peer}, n):
            if self.on_heard is not None:
                self.on_heard(peer, frame)
            reply = self.ballot.on_proposal(peer, frame, now)
            return Reaction("propose", replies=[reply] if reply is not None else [])
        if t == "record" and record_shape_ok(frame):
            self.ballot.on_record(peer, frame)
            return Reaction("record")
        if t in ("chat", "genesis?"):
            return Reaction(t)
        raise FrameError(f"unknown or malformed frame {t!r}")
