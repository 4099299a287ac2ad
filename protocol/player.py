"""One seat's side of the protocol: turns decisions into signed messages, and does the
automatic parts (reveals, beacon preimages, final signatures) by itself.

Everything here is deterministic given the signing key, the per-game secret and the
decisions taken, so a node that crashes and replays produces the very same bytes and
can never sign two different messages for one seq. The decisions (committed values)
are the only state to persist beside the per-game secret: see `secrets()`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from . import beacon, chain, engine as E, wire
from .commit import commitment, derive_salt
from .hashing import tagged_hash
from .identity import SigningKey
from .session import Receipt, Session


def beacon_chain(secret: bytes, nonce: bytes, seat: int, length: int) -> list[bytes]:
    """The seat's beacon hash chain for a lobby, derived from its per-game secret."""
    return beacon.make_chain(tagged_hash("caravan/beacon-secret/v1", secret), nonce, seat, length)


@dataclass(frozen=True)
class Decision:
    """The player must choose: `kind` is "act" (a move) or "commit" (a hidden choice)."""
    kind: str
    legal: list[Any]


class Player:
    def __init__(self, session: Session, seat: int, key: SigningKey, secret: bytes,
                 committed: dict[bytes, Any] | None = None):
        if session.seats[seat] != key.public:
            raise ValueError(f"this key does not hold seat {seat}")
        self.session = session
        self.seat = seat
        self.key = key
        self.secret = secret
        g = session.genesis
        self.chain = beacon_chain(secret, g.nonce, seat, g.beacon_length)
        if self.chain[0] != g.beacon_tips[seat]:
            raise ValueError("the per-game secret does not match this seat's beacon tip in the genesis")
        self.committed: dict[bytes, Any] = dict(committed or {})   # encoded context -> value

    # ------------------------------------------------------------------ knowledge
    @property
    def knowledge(self) -> dict[int, Any]:
        """handle -> value for every hidden thing this seat knows (its own commitments, and
        everything revealed)."""
        known = dict(self.session.public)
        for handle, (owner, context, _) in self.session.commitments.items():
            if owner == self.seat:
                known.setdefault(handle, self.committed[wire.encode(context)])
        return known

    def secrets(self) -> bytes:
        """What a node must persist (0600) to resume this seat: the values it committed to."""
        return wire.encode(sorted([k, v] for k, v in self.committed.items()))

    @staticmethod
    def load_secrets(data: bytes) -> dict[bytes, Any]:
        return {k: v for k, v in wire.decode(data)}

    # ------------------------------------------------------------------ what to do
    def decision(self) -> Decision | None:
        """The choice this seat must make now, if any."""
        s = self.session
        need = s.need
        if need is None or self.seat not in need.seats or self.seat in s.pending:
            return None
        if need.kind == "act":
            return Decision("act", s.engine.legal_actions(s.state, self.seat, self.knowledge))
        if need.kind == "commit":
            return Decision("commit", s.engine.legal_actions(s.state, self.seat, self.knowledge))
        return None

    def decide(self, action: Any) -> bytes:
        """Sign the message for this decision, apply it locally, and return its bytes."""
        d = self.decision()
        if d is None:
            raise ValueError("this seat has no decision to make now")
        if action not in d.legal:
            raise E.IllegalAction(f"{action!r} is not among this seat's {len(d.legal)} legal actions")
        s = self.session
        if d.kind == "act":
            claims = s.engine.reveals(s.state, self.seat, action)
            openings = [[h, derive_salt(self.secret, s.game_id, s.commitments[h][1])] for h, _ in claims]
            return self._send("act", {"a": action, "o": openings})
        context = s.need.context
        self.committed[wire.encode(context)] = action
        salt = derive_salt(self.secret, s.game_id, context)
        return self._send("commit", {"c": commitment(s.game_id, self.seat, context, action, salt)})

    def automatic(self) -> list[bytes]:
        """Every message this seat owes that needs no decision (reveal, beacon, final)."""
        out: list[bytes] = []
        while True:
            s = self.session
            need = s.need
            if need is None or self.seat not in need.seats or self.seat in s.pending:
                return out
            if need.kind == "reveal":
                value = self.committed[wire.encode(need.context)]
                body = {"v": value, "s": derive_salt(self.secret, s.game_id, need.context)}
            elif need.kind == "beacon":
                k = s.draw_no + 1
                if k >= len(self.chain):
                    raise RuntimeError("this seat's beacon chain is exhausted")
                body = {"k": k, "x": self.chain[k]}
            elif need.kind == "final":
                body = {"state": s.state_hash(), "result": s.result()}
            else:
                return out
            out.append(self._send(need.kind, body))

    def _send(self, kind: str, body: Any) -> bytes:
        s = self.session
        seq, prev = s.head(self.seat)
        msg = chain.seal(self.key, s.game_id, seq + 1, prev, s.refs_for(self.seat), kind, body)
        self.last_receipt: Receipt = s.receive(msg.raw)
        return msg.raw
