"""The replica: signed messages in, game state and "who must send what next" out.

Every node, the verifier and the tests run this same code. The session asks the game
engine what it needs next and turns that into a *need*: one seat's move, or one
contribution from each of several seats (commitments, reveals, beacon preimages, final
signatures). A message is validated completely (shape, seat, signature, game, chain,
refs, expectation, body, rules) before anything changes; a refusal raises a typed
`Rejected` naming the signer. Parallel contributions are applied, and logged, in seat
order once all are in, so every replica's log is byte-for-byte the same.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from . import beacon, chain, engine as E, wire
from .commit import opens
from .errors import (BadBeacon, BadBody, BadChain, BadFinal, BadGenesis, BadOpening, BadSignature,
                     Equivocation, IllegalMove, Malformed, Rejected, Unexpected, UnknownAuthor,
                     WrongGame)
from .genesis import Genesis
from .hashing import tagged_hash

MAX_EARLY = 256
"""Messages buffered ahead of time per author; more is refused (a flood, not a game)."""


@dataclass(frozen=True)
class Need:
    """What the session waits for: `kind` messages from each seat in `seats`."""
    kind: str                  # "act" | "commit" | "reveal" | "beacon" | "final"
    seats: tuple[int, ...]
    step: Any                  # the engine step it serves (None for "final")
    context: Any = None        # commitment context for "commit" / "reveal"


@dataclass
class Receipt:
    """What one `receive` call did: applied (with the engine events it caused), buffered or
    duplicate."""
    status: str
    events: list[E.Event] = field(default_factory=list)
    messages: list[chain.Message] = field(default_factory=list)
    rejected: list[Rejected] = field(default_factory=list)


class Session:
    def __init__(self, genesis: Genesis, engine: E.Engine, *, strict: bool = False):
        """A replica of one game. `strict` (the verifier): every message must be applicable in
        the order given; otherwise early messages are buffered until they fit."""
        self.genesis = genesis
        self.game_id = genesis.game_id
        self.engine = engine
        self.strict = strict
        self.seats = list(genesis.seats)
        self.n = len(self.seats)
        self.seat_of = {key: i for i, key in enumerate(self.seats)}
        if genesis.game != engine.name:
            raise BadGenesis(f"genesis is for {genesis.game!r}, engine is {engine.name!r}")
        if not engine.min_players <= self.n <= engine.max_players:
            raise BadGenesis(f"{engine.title} is for {engine.min_players}-{engine.max_players} players, "
                             f"the genesis seats {self.n}")
        try:
            self.state = engine.new_game(genesis.options, self.n)
        except E.BadOptions as exc:
            raise BadGenesis(f"bad options: {exc}") from None
        # per seat: accepted messages by seq (accepted may run ahead of logged while a
        # parallel step collects contributions)
        self.accepted: list[list[chain.Message]] = [[] for _ in range(self.n)]
        self.logged_seq: list[int] = [-1] * self.n
        self.log: list[bytes] = []
        self.early: dict[tuple[int, int], chain.Message] = {}
        self.pending: dict[int, chain.Message] = {}
        self.step_no = 0
        self.draw_no = 0
        self.beacon_last = list(genesis.beacon_tips)
        self.commitments: dict[int, tuple[int, Any, bytes]] = {}   # handle -> (seat, context, digest)
        self.public: dict[int, Any] = {}                            # handle -> revealed value
        self.next_handle = 1
        self.sim_digests: dict[int, bytes] = {}
        self.finals: dict[int, Any] = {}
        self.complete = False
        self.need = self._need()

    # ------------------------------------------------------------------ what is expected
    def _need(self) -> Need | None:
        if self.complete:
            return None
        step = self.engine.expected(self.state)
        if isinstance(step, E.Decide):
            return Need("act", (step.seat,), step)
        if isinstance(step, E.Simultaneous):
            ctx = ["sim", self.step_no]
            kind = "reveal" if self.sim_digests else "commit"
            return Need(kind, tuple(step.seats), step, ctx)
        if isinstance(step, E.Commit):
            return Need("commit", tuple(step.seats), step, ["commit", step.tag, self.step_no])
        if isinstance(step, E.Random):
            return Need("beacon", tuple(range(self.n)), step)
        if isinstance(step, E.Finished):
            return Need("final", tuple(range(self.n)), step)
        raise NotImplementedError(f"the session does not support {type(step).__name__} steps yet")

    def waiting_for(self) -> list[int]:
        """Seats whose message the game needs next (empty when complete)."""
        if self.need is None:
            return []
        return [s for s in self.need.seats if s not in self.pending]

    def describe_need(self) -> str:
        if self.need is None:
            return "nothing: the game is complete"
        what = {"act": "a move", "commit": "a commitment", "reveal": "a reveal",
                "beacon": "a beacon preimage", "final": "a final signature"}[self.need.kind]
        seats = ", ".join(str(s) for s in self.waiting_for())
        return f"{what} from seat{'s' if len(self.waiting_for()) > 1 else ''} {seats}"

    def head(self, seat: int) -> tuple[int, bytes]:
        """(seq, id) of the seat's last accepted message; (-1, game id) before the first."""
        acc = self.accepted[seat]
        return (len(acc) - 1, acc[-1].id) if acc else (-1, self.game_id)

    def refs_for(self, seat: int) -> list:
        """The refs a message by `seat` carries: every other seat's last logged message."""
        return [[s, self.logged_seq[s], self.accepted[s][self.logged_seq[s]].id]
                for s in range(self.n) if s != seat and self.logged_seq[s] >= 0]

    def result(self) -> dict[str, Any] | None:
        return self.engine.result(self.state)

    def state_hash(self) -> bytes:
        return tagged_hash("caravan/state/v1", self.game_id, self.engine.encode(self.state))

    # ------------------------------------------------------------------------ receiving
    def receive(self, raw: bytes) -> Receipt:
        """Validate and apply one message (and any buffered ones it unlocks).

        Raises a `Rejected` subclass; then nothing has changed."""
        msg = self._authenticate(raw)
        receipt = self._process(self.seat_of[msg.author], msg)
        if receipt.status == "applied":
            self._drain(receipt)
        return receipt

    def _authenticate(self, raw: bytes) -> chain.Message:
        try:
            msg = chain.parse(raw)
        except chain.ParseError as exc:
            raise Malformed(str(exc)) from None
        seat = self.seat_of.get(msg.author)
        if seat is None:
            raise UnknownAuthor("the author's key has no seat in this game", author=msg.author)
        if not msg.signature_ok():
            raise BadSignature("the signature does not verify for the seat it names", seat=seat,
                               author=msg.author)
        if msg.game_id != self.game_id:
            raise WrongGame(f"the message belongs to game {msg.game_id.hex()[:16]}…, not this one",
                            seat=seat, author=msg.author, evidence={"game_id": msg.game_id})
        return msg

    def _process(self, seat: int, msg: chain.Message) -> Receipt:
        seq, head_id = self.head(seat)
        if msg.seq <= seq:
            known = self.accepted[seat][msg.seq]
            if known.id == msg.id:
                if self.strict:
                    raise BadChain(f"a duplicate of this author's message {msg.seq}", seat=seat,
                                   author=msg.author)
                return Receipt("duplicate")
            proof = chain.EquivocationProof(known.raw, msg.raw)
            raise Equivocation(f"a second, different message with seq {msg.seq}", seat=seat,
                               author=msg.author, evidence={"proof": proof.to_wire()})
        if msg.seq > seq + 1:
            if self.strict:
                raise BadChain(f"seq {msg.seq} skips ahead; the next seq of this author is {seq + 1}",
                               seat=seat, author=msg.author)
            return self._buffer(seat, msg)
        if msg.prev != head_id:
            raise BadChain(f"prev does not name the author's message {seq}", seat=seat,
                           author=msg.author, evidence={"expected_prev": head_id, "prev": msg.prev})
        if self._refs_ahead(seat, msg):
            if self.strict:
                raise BadChain("refs name a message not yet applied", seat=seat, author=msg.author)
            return self._buffer(seat, msg)
        if not self._expected_from(seat):
            if self.strict or self.need is None:
                raise Unexpected(f"{msg.kind!r} is not expected now; waiting for {self.describe_need()}",
                                 seat=seat, author=msg.author)
            return self._buffer(seat, msg)
        receipt = Receipt("applied")
        self._accept(seat, msg, receipt)
        return receipt

    def _refs_ahead(self, seat: int, msg: chain.Message) -> bool:
        """True if a ref names a message not yet logged; raises BadChain for a false ref."""
        for s, q, mid in msg.refs:
            if s == seat or not 0 <= s < self.n:
                raise BadChain(f"a ref names seat {s}", seat=seat, author=msg.author)
            if q > self.logged_seq[s]:
                return True
            if self.accepted[s][q].id != mid:
                raise BadChain(f"a ref names a message of seat {s} (seq {q}) that does not exist",
                               seat=seat, author=msg.author)
        return False

    def _expected_from(self, seat: int) -> bool:
        need = self.need
        return need is not None and seat in need.seats and seat not in self.pending

    def _buffer(self, seat: int, msg: chain.Message) -> Receipt:
        if (seat, msg.seq) not in self.early and sum(1 for (s, _) in self.early if s == seat) >= MAX_EARLY:
            raise Unexpected(f"more than {MAX_EARLY} messages ahead of the game", seat=seat, author=msg.author)
        self.early[(seat, msg.seq)] = msg
        return Receipt("buffered")

    def _drain(self, receipt: Receipt) -> None:
        """Apply buffered messages that now fit; those that turn out invalid are dropped and
        reported in `receipt.rejected`."""
        progress = True
        while progress and self.early:
            progress = False
            for key in sorted(self.early):
                seat, seq = key
                if seq != len(self.accepted[seat]):
                    continue
                msg = self.early.pop(key)
                try:
                    sub = self._process(seat, msg)
                except Rejected as exc:
                    receipt.rejected.append(exc)
                    continue
                if sub.status == "buffered":
                    continue
                receipt.events.extend(sub.events)
                receipt.messages.extend(sub.messages)
                progress = True
                break

    # ---------------------------------------------------------------------- applying
    def _accept(self, seat: int, msg: chain.Message, receipt: Receipt) -> None:
        need = self.need
        assert need is not None
        if msg.kind != need.kind:
            raise Unexpected(f"sent {msg.kind!r}; expected {self.describe_need()}",
                             seat=seat, author=msg.author)
        if need.kind == "act":
            event, revealed = self._check_act(seat, msg)
            self._engine_apply(seat, msg, event)
            self.public.update(revealed)
            self.accepted[seat].append(msg)
            self._log([(seat, msg)], receipt)
            receipt.events.append(event)
            self._advance()
            return
        getattr(self, f"_check_{need.kind}")(seat, msg, msg.body)
        if len(self.pending) + 1 < len(need.seats):
            self.accepted[seat].append(msg)
            self.pending[seat] = msg
            return
        ordered = sorted({**self.pending, seat: msg}.items())
        event, commit = self._complete(ordered)
        if event is not None:
            self._engine_apply(seat, msg, event)      # raises before anything changed
        commit()
        self.accepted[seat].append(msg)
        self.pending.clear()
        self._log(ordered, receipt)
        if event is not None:
            receipt.events.append(event)
        if need.kind == "commit" and isinstance(need.step, E.Simultaneous):
            self.need = self._need()                  # same step, now the reveals
        else:
            self._advance()

    def _engine_apply(self, seat: int, msg: chain.Message, event: E.Event) -> None:
        try:
            self.engine.apply(self.state, event)
        except E.IllegalAction as exc:
            rule = f" (rule {exc.rule})" if exc.rule else ""
            raise IllegalMove(f"{exc}{rule}", seat=seat, author=msg.author,
                              evidence={"message": msg.id}) from None
        except Exception as exc:  # a peer's bytes must never crash the replica
            raise IllegalMove(f"the rules engine refused it ({type(exc).__name__}: {exc})",
                              seat=seat, author=msg.author, evidence={"message": msg.id}) from None

    def _log(self, ordered: list[tuple[int, chain.Message]], receipt: Receipt) -> None:
        for s, m in ordered:
            self.logged_seq[s] = m.seq
            self.log.append(m.raw)
            receipt.messages.append(m)

    def _advance(self) -> None:
        self.step_no += 1
        self.need = self._need()

    # ----------------------------------------------------------------- body checks
    def _check_act(self, seat: int, msg: chain.Message) -> tuple[E.Act, dict[int, Any]]:
        body = msg.body
        if type(body) is not dict or set(body) != {"a", "o"} or type(body["o"]) is not list:
            raise BadBody('an act body is {"a": action, "o": [[handle, salt], ...]}', seat=seat, author=msg.author)
        action = body["a"]
        try:
            claims = self.engine.reveals(self.state, seat, action)
        except Exception as exc:
            raise IllegalMove(f"the rules engine refused it ({type(exc).__name__}: {exc})",
                              seat=seat, author=msg.author) from None
        openings = body["o"]
        if len(openings) != len(claims):
            raise BadOpening(f"the action claims {len(claims)} hidden value(s) but opens {len(openings)}",
                             seat=seat, author=msg.author)
        revealed: dict[int, Any] = {}
        for (handle, value), opening in zip(claims, openings):
            if type(opening) is not list or len(opening) != 2 or opening[0] != handle:
                raise BadOpening(f"opening for handle {handle} is missing", seat=seat, author=msg.author)
            owner, context, digest = self.commitments.get(handle, (None, None, None))
            if owner != seat:
                raise BadOpening(f"handle {handle} is not a commitment of this seat", seat=seat, author=msg.author)
            if handle in self.public and self.public[handle] != value:
                raise BadOpening(f"handle {handle} was already revealed as another value", seat=seat, author=msg.author)
            if not opens(digest, self.game_id, seat, context, value, opening[1]):
                raise BadOpening(f"the opening does not match the commitment for handle {handle}",
                                 seat=seat, author=msg.author, evidence={"handle": handle, "commitment": digest})
            revealed[handle] = value
        return E.Act(seat, action), revealed

    def _check_commit(self, seat: int, msg: chain.Message, body: Any) -> None:
        if type(body) is not dict or set(body) != {"c"} or type(body["c"]) is not bytes or len(body["c"]) != 32:
            raise BadBody('a commit body is {"c": 32-byte commitment}', seat=seat, author=msg.author)

    def _check_reveal(self, seat: int, msg: chain.Message, body: Any) -> None:
        if type(body) is not dict or set(body) != {"v", "s"}:
            raise BadBody('a reveal body is {"v": value, "s": salt}', seat=seat, author=msg.author)
        if not opens(self.sim_digests[seat], self.game_id, seat, self.need.context, body["v"], body["s"]):
            raise BadOpening("the revealed value and salt do not open this seat's commitment",
                             seat=seat, author=msg.author, evidence={"commitment": self.sim_digests[seat]})
        try:
            legal = body["v"] in self.engine.legal_actions(self.state, seat)
        except Exception:
            legal = False
        if not legal:
            raise IllegalMove(f"the committed choice {body['v']!r} is not a legal choice",
                              seat=seat, author=msg.author)

    def _check_beacon(self, seat: int, msg: chain.Message, body: Any) -> None:
        if (type(body) is not dict or set(body) != {"k", "x"} or type(body["x"]) is not bytes
                or len(body["x"]) != 32):
            raise BadBody('a beacon body is {"k": draw number, "x": 32-byte preimage}', seat=seat, author=msg.author)
        if body["k"] != self.draw_no + 1:
            raise BadBeacon(f"preimage for draw {body['k']!r}; this is draw {self.draw_no + 1}",
                            seat=seat, author=msg.author)
        if beacon.chain_step(self.genesis.nonce, seat, body["x"]) != self.beacon_last[seat]:
            raise BadBeacon(f"the preimage for draw {self.draw_no + 1} does not hash to the seat's previous "
                            "beacon value (committed in the genesis)", seat=seat, author=msg.author)

    def _check_final(self, seat: int, msg: chain.Message, body: Any) -> None:
        if type(body) is not dict or set(body) != {"state", "result"}:
            raise BadBody('a final body is {"state": state hash, "result": result}', seat=seat, author=msg.author)
        if body["state"] != self.state_hash() or body["result"] != wire.decode(wire.encode(self.result())):
            raise BadFinal("the signed final state or result differs from this replica's",
                           seat=seat, author=msg.author)

    def _complete(self, ordered: list[tuple[int, chain.Message]]) -> tuple[E.Event | None, Any]:
        """The event a completed parallel step gives the engine, and a function that records
        the step's bookkeeping once the engine has accepted it (nothing changes before)."""
        need = self.need
        step = need.step
        if need.kind == "commit":
            digests = {s: m.body["c"] for s, m in ordered}
            if isinstance(step, E.Simultaneous):
                return None, lambda: setattr(self, "sim_digests", digests)
            handles = tuple(range(self.next_handle, self.next_handle + len(ordered)))

            def commit() -> None:
                for h, (s, _) in zip(handles, ordered):
                    self.commitments[h] = (s, need.context, digests[s])
                self.next_handle += len(handles)
            return E.Committed(step.tag, handles), commit
        if need.kind == "reveal":
            return E.Choices(tuple(m.body["v"] for _, m in ordered)), lambda: setattr(self, "sim_digests", {})
        if need.kind == "beacon":
            xs = [m.body["x"] for _, m in ordered]
            k = self.draw_no + 1
            rolled = E.Rolled(beacon.draw(beacon.value(self.game_id, k, xs), step.draws))

            def commit() -> None:
                self.draw_no, self.beacon_last = k, xs
            return rolled, commit
        if need.kind == "final":
            def commit() -> None:
                self.finals = {s: m.body for s, m in ordered}
                self.complete = True
            return None, commit
        raise AssertionError(need.kind)
