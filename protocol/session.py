"""The replica: signed messages in, game state and "who must send what next" out.

Every node, the verifier and the tests run this same code. The session asks the game
engine what it needs next and turns that into a *need*: one seat's move, or one
contribution from each of several seats (commitments, reveals, beacon preimages, deck key
shares, decryption shares, final signatures), or one seat after another (the shuffles of a
joint shuffle). A message is validated completely (shape, seat, signature, game, chain,
refs, expectation, body, proofs, rules) before anything changes; a refusal raises a typed
`Rejected` naming the signer. Parallel contributions are applied, and logged, in seat
order once all are in, so every replica's log is byte-for-byte the same.

The mental decks (specs/protocol.md §10): the session keeps each deck handle's current
ciphertext and the decryption shares published for it; the deck steps and the checks of
every key, shuffle, share, re-masking, return and claim proof are in `session_deck.py`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from . import beacon, chain, engine as E, wire
from .commit import opens
from .deck import DeckError, ops as deck
from .errors import (BadBeacon, BadBody, BadChain, BadFinal, BadGenesis, BadOpening, BadOrder, BadProof,
                     BadSignature, Duplicate, Equivocation, Gap, IllegalMove, Malformed, Rejected,
                     Unexpected, UnknownAuthor, WrongGame)
from .genesis import Genesis
from .hashing import tagged_hash
from .need import EngineFault, Need, Receipt
from .session_deck import DeckSteps

MAX_EARLY = 256
"""Messages buffered ahead of time per author; more is refused (a flood, not a game)."""

DECK_STEPS = (E.DeckShuffle, E.DeckReveal, E.DeckShow, E.DeckReturn)
PROOF_KINDS = ("deckkey", "share", "shuffle", "remask", "return")
"""The message kinds whose checks include a deck proof (the costly part of receiving)."""


@dataclass
class ProofJob:
    """The proof checks one `receive` would run, each a pure function of values already
    bound: a caller may run them elsewhere (a worker thread) and pass the job back to
    `receive`, which then skips them if the replica is still in the state they were taken
    from (`version`). Nothing here touches the session."""
    version: tuple[int, ...]
    message: bytes                                 # the message id
    checks: list[tuple[str, Callable[[], Any]]]
    passed: bool = False
    signature: bytes = b""
    """The message's signature, checked when the job was made (`receive` does not check it again)."""

    def run(self) -> bool:
        """Run every check; `passed` only if all succeed (a failure is reported by `receive`,
        which runs the checks again)."""
        try:
            for _, check in self.checks:
                check()
        except Exception:
            return False
        self.passed = True
        return True


NEED_WORDS = {"act": "a move", "commit": "a commitment", "reveal": "a reveal",
              "beacon": "a beacon preimage", "final": "a final signature",
              "deckkey": "a deck key share", "shuffle": "a deck shuffle",
              "share": "decryption shares", "remask": "a card re-masking",
              "return": "a face-down return"}
"""Each kind of step the game may wait for, in words."""
PERSON_KINDS = frozenset({"act", "commit"})
"""The steps a person decides; a node takes every other step by itself."""


class Session(DeckSteps):
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
        # mental decks (specs/protocol.md §10)
        self.deck_keys: dict[int, bytes] = {}                       # seat -> Y_i (verified)
        self.joint_key: bytes | None = None                         # Y = ΣY_i
        self.cipher: dict[int, list] = {}                           # deck handle -> current [A, B]
        self.retired: set[int] = set()                              # handles a shuffle or return replaced
        self.deck_shares: dict[int, dict[int, bytes]] = {}          # handle -> seat -> D_i (current C)
        self.used_b: set[bytes] = set()                              # B of every ciphertext a handle or shuffle held
        self.seen: dict[int, set[int]] = {}                         # handle -> seats shown it privately
        self.private_log: list[tuple] = []                          # what each seat learned, in order
        self.card_points: dict[bytes, int] = {}                     # M -> card id (every card entered)
        self.shuffle_decks: list[list] = []                         # this joint shuffle's outputs so far
        self._shuffle_start: tuple[int, list] | None = None         # (step_no, starting deck)
        self.deck_return: tuple[int, tuple[int, ...]] | None = None  # (returned, kept) awaiting shares
        self.need: Need | None = None
        self.own: bytes | None = None   # id of the message our own Player just signed (see _proof)
        self._deferred: list[tuple[str, Callable[[], Any]]] | None = None   # see proof_checks
        self._proven: set[tuple[bytes, str]] = set()                        # see receive
        self._settle(None)

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
        if isinstance(step, DECK_STEPS):
            if self.joint_key is None:
                return Need("deckkey", tuple(range(self.n)), step)
            return self._deck_need(step)
        if isinstance(step, E.Finished):
            return Need("final", tuple(range(self.n)), step)
        raise EngineFault(f"the session does not support {type(step).__name__} steps")

    def _settle(self, receipt: Receipt | None) -> None:
        """Compute the next need; steps that need no message (a reveal of cards already public,
        a show to a seat that already saw the cards, an empty shuffle, a return whose kept cards
        need no share) are answered at once."""
        for _ in range(100_000):
            need = self._need()
            if need is None or need.kind != "auto":
                self.need = need
                return
            event, commit = need.context
            try:
                self.engine.apply(self.state, event)
            except Exception as exc:
                raise EngineFault(f"{self.engine.name} refused {event!r} answering its own step: {exc}") from None
            commit()
            if receipt is not None:
                receipt.events.append(event)
            self.step_no += 1
        raise EngineFault(f"{self.engine.name} keeps asking for steps that need no message")

    def waiting_for(self) -> list[int]:
        """Seats whose message the game needs next (empty when complete). Inside a joint step,
        the seats of the step whose contribution this replica has not accepted yet: what an
        abandon statement names (specs/protocol.md §11)."""
        if self.need is None:
            return []
        return [s for s in self.need.seats if s not in self.pending]

    def need_words(self) -> str:
        """What the game waits for, in words ("" when complete)."""
        return NEED_WORDS[self.need.kind] if self.need is not None else ""

    def needs_a_person(self) -> bool:
        """The awaited step is a person's decision (a move, a secret choice), not a step their
        node takes by itself (a share, a reveal, a signature)."""
        return self.need is not None and self.need.kind in PERSON_KINDS

    def describe_need(self) -> str:
        if self.need is None:
            return "nothing: the game is complete"
        what = self.need_words()
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

    # ------------------------------------------------------------------ mental decks









    # ------------------------------------------------------------------------ receiving
    def receive(self, raw: bytes, proven: ProofJob | None = None) -> Receipt:
        """Validate and apply one message (and any buffered ones it unlocks).

        `proven`: this message's `proof_checks`, run and passed; its proofs are not checked
        again if the replica has not changed since. Raises a `Rejected` subclass; then
        nothing has changed."""
        if proven is not None and proven.passed and proven.version == self.version():
            self._proven = {(proven.message, what) for what, _ in proven.checks}
        try:
            msg = self._authenticate(raw, None if proven is None else (proven.message, proven.signature))
            receipt = self._process(self.seat_of[msg.author], msg)
            if self.early and receipt.status == "applied":
                self._drain(receipt)
        finally:
            if self._proven:
                self._proven = set()
        return receipt

    def version(self) -> tuple[int, ...]:
        """Changes whenever the replica does (every change accepts a message)."""
        return tuple(len(a) for a in self.accepted)

    def proof_checks(self, raw: bytes) -> ProofJob | None:
        """The deck proof checks `receive(raw)` would run now, not run: None unless the
        message carries proofs and is applicable now (else `receive` says why). Changes no
        state (it may fill the cache of a shuffle's starting deck, as `receive` would); the
        checks only read values bound here, so they may run in another thread."""
        if self.need is None or self.need.kind not in PROOF_KINDS:
            return None                             # no message with proofs applies now
        try:
            if chain.parse(raw).kind not in PROOF_KINDS:
                return None                         # (without checking its signature: receive does)
            msg = self._authenticate(raw)
            seat = self.seat_of[msg.author]
            seq, head_id = self.head(seat)
            need = self.need
            if (msg.kind not in PROOF_KINDS or msg.seq != seq + 1 or msg.prev != head_id
                    or self._refs_ahead(seat, msg) or not self._expected_from(seat) or msg.kind != need.kind):
                return None
            self._deferred = []
            if need.kind in ("shuffle", "remask", "return"):
                getattr(self, f"_check_{need.kind}")(seat, msg)
            else:
                getattr(self, f"_check_{need.kind}")(seat, msg, msg.body)
            checks = self._deferred
        except (Rejected, EngineFault, chain.ParseError):
            return None
        finally:
            self._deferred = None
        return ProofJob(self.version(), msg.id, checks, signature=msg.signature) if checks else None

    def _authenticate(self, raw: bytes, checked: tuple[bytes, bytes] | None = None) -> chain.Message:
        """The parsed message, its author seated, its signature verified (unless it is this
        node's own fresh one, or `checked`: the (id, signature) `proof_checks` verified)."""
        try:
            msg = chain.parse(raw)
        except chain.ParseError as exc:
            raise Malformed(str(exc)) from None
        seat = self.seat_of.get(msg.author)
        if seat is None:
            raise UnknownAuthor("the author's key has no seat in this game", author=msg.author)
        if (not (msg.id == self.own and not self.strict) and (msg.id, msg.signature) != checked
                and not msg.signature_ok()):
            raise BadSignature("the signature does not verify for the seat it names", seat=seat,
                               author=msg.author)
        if msg.game_id != self.game_id:
            raise WrongGame(f"the message belongs to game {msg.game_id.hex()[:16]}…, not this one",
                            seat=seat, author=msg.author, evidence={"game_id": msg.game_id})
        return msg

    def _process(self, seat: int, msg: chain.Message) -> Receipt:
        acc = self.accepted[seat]       # self.head(seat), inlined: this runs for every message
        seq, head_id = (len(acc) - 1, acc[-1].id) if acc else (-1, self.game_id)
        if msg.seq <= seq:
            known = acc[msg.seq]
            if known.id == msg.id:
                if self.strict:   # the file repeats a message: its signer did nothing wrong
                    raise Duplicate(f"the transcript repeats seat {seat}'s message {msg.seq}")
                return Receipt("duplicate")
            proof = chain.EquivocationProof(known.raw, msg.raw)
            raise Equivocation(f"a second, different message with seq {msg.seq}", seat=seat,
                               author=msg.author, evidence={"proof": proof.to_wire()})
        if msg.seq > seq + 1:
            if self.strict:   # a message is missing from the file, not forged by this signer
                raise Gap(f"seat {seat}'s message {seq + 1} is missing: the transcript jumps to its "
                          f"message {msg.seq}")
            return self._buffer(seat, msg)
        if msg.prev != head_id:
            raise BadChain(f"prev does not name the author's message {seq}", seat=seat,
                           author=msg.author, evidence={"expected_prev": head_id, "prev": msg.prev})
        if self._refs_ahead(seat, msg):
            if self.strict:
                raise Gap(f"a message is missing before this one (seat {seat}'s message {msg.seq} "
                          "refers to a message the transcript has not yet given)")
            return self._buffer(seat, msg)
        if not self._expected_from(seat):
            if self.strict or self.need is None:
                raise Unexpected(f"{msg.kind!r} is not expected now; waiting for {self.describe_need()}",
                                 seat=seat, author=msg.author)
            return self._buffer(seat, msg)
        if self.strict and self.pending and seat < max(self.pending):
            # one canonical order: a parallel step's contributions are logged in seat order (an
            # abandon record's file may lack a stalled seat's part, so a gap in seats is no fault)
            raise BadOrder(f"seat {seat}'s {msg.kind!r} comes after seat {max(self.pending)}'s: "
                           "the transcript is not in the canonical (logged) order")
        receipt = Receipt("applied")
        self._accept(seat, msg, receipt)
        return receipt

    def _refs_ahead(self, seat: int, msg: chain.Message) -> bool:
        """True if a ref names a message not yet logged; raises BadChain for a false ref."""
        n, logged, accepted = self.n, self.logged_seq, self.accepted
        for s, q, mid in msg.refs:
            if s == seat or not 0 <= s < n:
                raise BadChain(f"a ref names seat {s}", seat=seat, author=msg.author)
            if q > logged[s]:
                return True
            if accepted[s][q].id != mid:
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
        if need.kind in ("act", "shuffle", "remask", "return"):
            # one seat's message, applied (and logged) on its own
            event, commit = getattr(self, f"_check_{need.kind}")(seat, msg)
            if event is not None:
                self._engine_apply(seat, msg, event)  # raises before anything changed
            commit()
            self.accepted[seat].append(msg)
            self._log([(seat, msg)], receipt)
            self._settled(event, receipt)
            return
        getattr(self, f"_check_{need.kind}")(seat, msg, msg.body)
        if len(self.pending) + 1 < len(need.seats):
            self.accepted[seat].append(msg)
            self.pending[seat] = msg
            return
        ordered = sorted({**self.pending, seat: msg}.items())
        event, commit = self._complete(ordered, seat, msg)
        if event is not None:
            self._engine_apply(seat, msg, event)      # raises before anything changed
        commit()
        self.accepted[seat].append(msg)
        self.pending.clear()
        self._log(ordered, receipt)
        self._settled(event, receipt)

    def _settled(self, event: E.Event | None, receipt: Receipt) -> None:
        """After a message was logged: a step the engine answered is done (next step); without
        an event the same step goes on (reveals after commitments, shuffles in seat order…)."""
        if event is not None:
            receipt.events.append(event)
            self.step_no += 1
        self._settle(receipt)

    def _engine_apply(self, seat: int, msg: chain.Message, event: E.Event, state: Any = None) -> None:
        try:
            self.engine.apply(self.state if state is None else state, event)
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

    def _proof(self, seat: int, msg: chain.Message, what: str, check: Any, *, verify: bool = False) -> Any:
        """Run a deck check; any failure (bad point, scalar, proof, shape) is BadProof.

        `verify`: a pure proof check, which a non-strict replica skips for the message its own
        Player just made with the same code (a node need not re-check its own proofs); the
        strict session (verify) checks every proof of every message."""
        if verify and not self.strict and self.own is not None and msg.id == self.own:
            return None
        if verify and self._deferred is not None:     # proof_checks: collect, do not run
            self._deferred.append((what, check))
            return None
        if verify and (msg.id, what) in self._proven:  # run and passed by receive's caller
            return None
        try:
            return check()
        except DeckError as exc:
            raise BadProof(f"{what}: {exc}", seat=seat, author=msg.author,
                           evidence={"message": msg.id}) from None
        except Exception as exc:  # a peer's bytes must never crash the replica
            raise BadProof(f"{what}: malformed ({type(exc).__name__}: {exc})", seat=seat,
                           author=msg.author, evidence={"message": msg.id}) from None

    # ----------------------------------------------------------------- body checks
    def _check_act(self, seat: int, msg: chain.Message) -> tuple[E.Act, Any]:
        body = msg.body
        if type(body) is not dict or set(body) != {"a", "o"} or type(body["o"]) is not list:
            raise BadBody('an act body is {"a": action, "o": [opening, ...]}', seat=seat, author=msg.author)
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
        claim_shares: dict[int, bytes] = {}
        for (handle, value), opening in zip(claims, openings):
            if type(opening) is not list or len(opening) not in (2, 3) or opening[0] != handle:
                raise BadOpening(f"opening for handle {handle} is missing", seat=seat, author=msg.author)
            if handle in self.public and self.public[handle] != value:
                raise BadOpening(f"handle {handle} was already revealed as another value", seat=seat, author=msg.author)
            if handle in self.cipher:
                claim_shares[handle] = self._check_claim(seat, msg, handle, value, opening)
                revealed[handle] = value
                continue
            owner, context, digest = self.commitments.get(handle, (None, None, None))
            if owner != seat:
                raise BadOpening(f"handle {handle} is not a commitment of this seat", seat=seat, author=msg.author)
            if len(opening) != 2 or not opens(digest, self.game_id, seat, context, value, opening[1]):
                raise BadOpening(f"the opening does not match the commitment for handle {handle}",
                                 seat=seat, author=msg.author, evidence={"handle": handle, "commitment": digest})
            revealed[handle] = value

        def commit() -> None:
            self.public.update(revealed)
            for h, d in claim_shares.items():
                self.deck_shares[h] = {**self.deck_shares[h], seat: d}
        return E.Act(seat, action), commit


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
        if type(body) is not dict or set(body) - {"deck_key"} != {"state", "result"}:
            raise BadBody('a final body is {"state": state hash, "result": result} (and "deck_key")',
                          seat=seat, author=msg.author)
        if body["state"] != self.state_hash() or body["result"] != wire.decode(wire.encode(self.result())):
            raise BadFinal("the signed final state or result differs from this replica's",
                           seat=seat, author=msg.author)
        if "deck_key" in body:
            if seat not in self.deck_keys:
                raise BadBody("a deck key is published, but this game set up no deck keys",
                              seat=seat, author=msg.author)
            try:
                deck.verify_published_key(self.deck_keys[seat], body["deck_key"])
            except Exception as exc:
                raise BadFinal(f"the published deck key does not match the seat's key share: {exc}",
                               seat=seat, author=msg.author) from None

    # ------------------------------------------------------------ deck body checks






    def _complete(self, ordered: list[tuple[int, chain.Message]], seat: int,
                  msg: chain.Message) -> tuple[E.Event | None, Any]:
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
        if need.kind == "deckkey":
            keys = {s: m.body["y"] for s, m in ordered}
            joint = self._proof(seat, msg, "joint key", lambda: deck.joint_key([keys[s] for s in range(self.n)]))

            def commit() -> None:
                self.deck_keys, self.joint_key = keys, joint
            return None, commit
        if need.kind == "share":
            extra = {s: {h: d for h, d, _ in m.body["shares"]} for s, m in ordered}
            return self._deck_event(step, extra, (seat, msg))
        raise AssertionError(need.kind)
