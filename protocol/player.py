"""One seat's side of the protocol: turns decisions into signed messages, and does the
automatic parts (reveals, beacon preimages, deck keys, shuffles, decryption shares,
re-maskings, final signatures) by itself.

Everything here is deterministic given the signing key, the per-game secret and the
decisions taken, so a node that crashes and replays produces the very same bytes and
can never sign two different messages for one seq. The decisions (committed values)
are the only state to persist beside the per-game secret: see `secrets()`. What the
seat learned from the mental decks (private draws, peeks, its face-down returns) is
derived again from the transcript and the per-game secret, never stored.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from . import beacon, chain, engine as E, wire
from .commit import commitment, derive_salt
from .deck import ops as deck
from .hashing import tagged_hash
from .identity import SigningKey
from .need import Receipt
from .session import Session


def deck_seed(secret: bytes, game_id: bytes) -> bytes:
    """The seed of every mental-deck secret of this seat in this game (key share, shuffles,
    shares, re-maskings, returns, claims): derived from the per-game secret."""
    return tagged_hash("caravan/deck-seed/v1", secret, game_id)


def beacon_chain(secret: bytes, nonce: bytes, seat: int, length: int) -> list[bytes]:
    """The seat's beacon hash chain for a lobby, derived from its per-game secret."""
    return beacon.make_chain(tagged_hash("caravan/beacon-secret/v1", secret), nonce, seat, length)


@dataclass(frozen=True)
class Decision:
    """The player must choose: `kind` is "act" (a move), "commit" (a hidden choice) or
    "return" (which of its cards, a handle from `legal`, goes face down into a deck)."""
    kind: str
    legal: list[Any]


class Player:
    def __init__(self, session: Session, seat: int, key: SigningKey, secret: bytes,
                 committed: dict[bytes, Any] | None = None, *, publish_deck_key: bool = True):
        """`publish_deck_key`: put this seat's deck secret key in its "final" message (if the
        game used a mental deck), so that anyone can audit the cards that stayed hidden."""
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
        self.publish_deck_key = publish_deck_key
        self.deck_seed = deck_seed(secret, g.game_id)
        self.deck_x, self.deck_y, self._deck_pok = deck.key_share(self.deck_seed, g.game_id, seat)
        self._opened: dict[tuple[int, bytes], Any] = {}             # (handle, B) -> card (a cache)
        self._events: list[E.Event] = []

    # ------------------------------------------------------------------ knowledge
    @property
    def knowledge(self) -> dict[int, Any]:
        """handle -> value for every hidden thing this seat knows: its own commitments, the deck
        cards shown to it privately, the cards it returned face down, and everything revealed."""
        s = self.session
        known = dict(s.public)
        for handle, (owner, context, _) in s.commitments.items():
            if owner == self.seat:
                known.setdefault(handle, self.committed[wire.encode(context)])
        for entry in s.private_log:
            if entry[1] != self.seat:
                continue
            if entry[0] == "show":
                _, _, h, c, shares = entry
                key = (h, c[1])
                if key not in self._opened:
                    self._opened[key] = s.decode(deck.open_private(self.deck_x, c, shares))
                if self._opened[key] is not None:
                    known.setdefault(h, self._opened[key])
            else:                               # ("return", seat, old handles, returned, kept)
                _, _, old, returned, kept = entry
                left = [known.get(h) for h in old]
                for h in kept:
                    if known.get(h) in left:
                        left.remove(known[h])
                if len(left) == 1 and left[0] is not None:
                    known.setdefault(returned, left[0])
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
        if need.kind in ("commit", "return"):
            return Decision(need.kind, s.engine.legal_actions(s.state, self.seat, self.knowledge))
        return None

    def decide(self, action: Any) -> bytes:
        """Sign the message for this decision, apply it locally, and return its bytes."""
        d = self.decision()
        if d is None:
            raise ValueError("this seat has no decision to make now")
        if action not in d.legal:
            raise E.IllegalAction(f"{action!r} is not among this seat's {len(d.legal)} legal actions")
        s = self.session
        seq = s.head(self.seat)[0] + 1
        if d.kind == "act":
            openings = []
            for h, _ in s.engine.reveals(s.state, self.seat, action):
                if h in s.cipher:                                    # a deck card: the own share
                    ctx = s.deck_context(self.seat, seq, "claim", h)
                    openings.append([h, *deck.claim(self.deck_x, s.cipher[h], self.deck_seed, ctx)])
                else:
                    openings.append([h, derive_salt(self.secret, s.game_id, s.commitments[h][1])])
            return self._send("act", {"a": action, "o": openings})
        if d.kind == "return":
            # the whole hand, re-encrypted and permuted with the chosen card first and the kept
            # ones in the step's order, with a Terelius–Wikström proof
            step = s.need.step
            hand = [s.cipher[h] for h in step.handles]
            i = list(step.handles).index(action)
            perm = [i] + [j for j in range(len(hand)) if j != i]
            ctx = s.deck_context(self.seat, seq, step.deck, step.position)
            out, proof = deck.shuffle(s.joint_key, hand, self.deck_seed, ctx, perm=perm)
            return self._send("return", {"hand": out, "proof": proof})
        context = s.need.context
        self.committed[wire.encode(context)] = action
        salt = derive_salt(self.secret, s.game_id, context)
        return self._send("commit", {"c": commitment(s.game_id, self.seat, context, action, salt)})

    def automatic(self) -> list[bytes]:
        """Every message this seat owes that needs no decision (reveal, beacon, deck key,
        shuffle, decryption shares, re-masking, final)."""
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
                if self.publish_deck_key and s.joint_key is not None:
                    body["deck_key"] = self.deck_x
            elif need.kind in ("deckkey", "shuffle", "share", "remask"):
                body = self._deck_body(need)
            else:
                return out
            out.append(self._send(need.kind, body))

    def _deck_body(self, need: Any) -> dict[str, Any]:
        s = self.session
        seq = s.head(self.seat)[0] + 1
        if need.kind == "deckkey":
            return {"y": self.deck_y, "pok": self._deck_pok}
        if need.kind == "shuffle":
            ctx = s.deck_context(self.seat, seq, need.step.deck)
            out, proof = deck.shuffle(s.joint_key, s.shuffle_input(), self.deck_seed, ctx)
            return {"deck": out, "proof": proof}
        if need.kind == "share":
            items = []
            for h in need.context[self.seat]:
                ctx = s.deck_context(self.seat, seq, "share", h)
                items.append([h, *deck.decryption_share(self.deck_x, s.cipher[h], self.deck_seed, ctx)])
            return {"shares": items}
        items = []                                  # remask: before a card is shown to this seat
        for h in need.context:
            ctx = s.deck_context(self.seat, seq, "remask", h)
            items.append([h, *deck.rerandomize(s.joint_key, s.cipher[h], self.deck_seed, ctx)])
        return {"cards": items}

    def _send(self, kind: str, body: Any) -> bytes:
        s = self.session
        seq, prev = s.head(self.seat)
        msg = chain.seal(self.key, s.game_id, seq + 1, prev, s.refs_for(self.seat), kind, body)
        s.own = msg.id                      # our own proofs need no re-check (non-strict only)
        try:
            self.last_receipt: Receipt = s.receive(msg.raw)
        finally:
            s.own = None
        self._events.extend(self.last_receipt.events)
        return msg.raw

    def take_events(self) -> list[E.Event]:
        """The engine events this seat's own messages caused since the last call, in order
        (several messages may be sent at once, e.g. by `automatic`)."""
        events, self._events = self._events, []
        return events
