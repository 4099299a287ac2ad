"""The session's mental-deck steps (specs/protocol.md §10): what each deck step needs,
how each deck message is checked, and the event it finally gives the engine.

A mixin of `Session`: it uses the session's state (seats, handles, ciphertexts, shares)
and is never used on its own.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from . import chain, engine as E
from .deck import ops as deck
from .deck.cards import card_point
from .errors import BadBody, BadOpening, BadProof
from .need import EngineFault, Need, unique


class DeckSteps:
    def deck_context(self, seat: int, seq: int, label: str, position: Any = None) -> bytes:
        """The context every deck proof of message (seat, seq) is bound to (protocol.md §10.2)."""
        return deck.deck_context(self.game_id, seat, seq, label, self.step_no, position)

    def shuffle_input(self) -> list:
        """The deck the next shuffler of the current DeckShuffle step takes."""
        if self.shuffle_decks:
            return self.shuffle_decks[-1]
        if self._shuffle_start is None or self._shuffle_start[0] != self.step_no:
            step = self.engine.expected(self.state)
            if not isinstance(step, E.DeckShuffle) or self.joint_key is None:
                raise EngineFault("no joint shuffle is under way")
            start = []
            for item in step.cards:
                if type(item) is int and item >= 0:
                    m = card_point(step.deck, item)
                    self.card_points[bytes(m)] = item
                    start.append(deck.open_encrypt(self.joint_key, m))
                elif (type(item) in (list, tuple) and len(item) == 2 and item[0] == "h"
                      and item[1] in self.cipher):
                    start.append(self.cipher[item[1]])
                else:
                    raise EngineFault(f"deck item {item!r} is neither a card id nor ['h', deck handle]")
            self._shuffle_start = (self.step_no, start)
        return self._shuffle_start[1]

    def decode(self, point: Any) -> int | None:
        """The card id of a decrypted point (None if it is no card that entered any deck)."""
        return self.card_points.get(point) if type(point) is bytes else None

    def audit(self, *, retired: bool = False) -> dict[int, int]:
        """handle -> card for every deck card not publicly revealed that the published deck keys
        (end of game, in the "final" messages) together with the published shares decode.
        Only live handles, unless `retired` (handles a shuffle or a return replaced)."""
        from .deck.group import add_all, mul, parse_point, parse_scalar, sub
        keys = {s: b["deck_key"] for s, b in self.finals.items() if type(b) is dict and "deck_key" in b}
        out: dict[int, int] = {}
        if not keys:
            return out
        xs = {s: parse_scalar(x, "deck key") for s, x in keys.items()}
        for h, (a, b) in self.cipher.items():
            if h in self.public or (h in self.retired and not retired):
                continue
            shares = self.deck_shares[h]
            if any(s not in shares and s not in xs for s in range(self.n)):
                continue
            bp = parse_point(b, "B")
            ds = [parse_point(shares[s], "share") if s in shares else mul(xs[s], bp) for s in range(self.n)]
            card = self.decode(bytes(sub(parse_point(a, "A"), add_all(ds))))
            if card is not None:
                out[h] = card
        return out

    def _deck_handles(self, handles: Any) -> list[int]:
        hs = unique(handles)
        for h in hs:
            if h not in self.cipher:
                raise EngineFault(f"handle {h!r} is not a card of a mental deck")
        return hs

    def _missing(self, handles: list[int], seats: Any) -> dict[int, tuple[int, ...]]:
        """seat -> the handles whose share for the current ciphertext it has not published."""
        out = {}
        for s in seats:
            hs = tuple(h for h in handles if s not in self.deck_shares[h])
            if hs:
                out[s] = hs
        return out

    def _deck_need(self, step: Any) -> Need:
        if isinstance(step, E.DeckShuffle):
            if not step.cards:
                return Need("auto", (), step, (E.DeckShuffled(step.deck, ()), lambda: None))
            self.shuffle_input()
            return Need("shuffle", (len(self.shuffle_decks),), step, step.deck)
        if isinstance(step, E.DeckReveal):
            missing = self._missing(self._deck_handles(step.handles), range(self.n))
        elif isinstance(step, E.DeckShow):
            j = step.seat
            if type(j) is not int or not 0 <= j < self.n:
                raise EngineFault(f"DeckShow to seat {j!r}")
            todo = self._show_todo(step)
            remask = tuple(h for h in todo if j in self.deck_shares[h])
            if remask:
                return Need("remask", (j,), step, remask)
            missing = self._missing(todo, [s for s in range(self.n) if s != j])
        elif isinstance(step, E.DeckReturn):
            if self.deck_return is None:
                hs = self._deck_handles(step.handles)
                if not hs or len(hs) != len(step.handles) or not 0 <= step.seat < self.n:
                    raise EngineFault(f"DeckReturn of {step.handles!r} by seat {step.seat!r}")
                return Need("return", (step.seat,), step)
            missing = self._missing(list(self.deck_return[1]), [s for s in range(self.n) if s != step.seat])
        else:
            raise AssertionError(step)
        if missing:
            return Need("share", tuple(sorted(missing)), step, missing)
        return Need("auto", (), step, self._deck_event(step, {}, None))

    def _show_todo(self, step: E.DeckShow) -> list[int]:
        """The handles of a DeckShow that its seat does not know yet."""
        return [h for h in self._deck_handles(step.handles)
                if h not in self.public and step.seat not in self.seen.get(h, ())]

    def _deck_event(self, step: Any, extra: dict[int, dict[int, bytes]],
                    signer: tuple[int, chain.Message] | None) -> tuple[E.Event, Any]:
        """The event that completes a share-collecting deck step, and its bookkeeping.
        `extra`: the shares just received (seat -> handle -> D), not yet recorded."""
        merged: dict[int, dict[int, bytes]] = {}
        for s, by_handle in extra.items():
            for h, d in by_handle.items():
                merged.setdefault(h, dict(self.deck_shares[h]))[s] = d

        def shares_of(h: int) -> dict[int, bytes]:
            return merged.get(h, self.deck_shares[h])

        def record() -> None:
            for h, sh in merged.items():
                self.deck_shares[h] = sh

        def show(seat: int, h: int) -> None:
            sh = shares_of(h)
            self.private_log.append(("show", seat, h, self.cipher[h],
                                     [sh[s] for s in sorted(sh) if s != seat]))
            self.seen.setdefault(h, set()).add(seat)

        if isinstance(step, E.DeckReveal):
            cards: dict[int, int] = {}
            for h in self._deck_handles(step.handles):
                if h in self.public:
                    cards[h] = self.public[h]
                    continue
                sh = shares_of(h)
                point = deck.open_card(self.cipher[h], [sh[s] for s in range(self.n)])
                card = self.decode(point)
                if card is None:
                    if signer is None:
                        raise EngineFault(f"handle {h} decrypts to no card")
                    seat, msg = signer
                    raise BadProof(f"handle {h} decrypts to a point that is no card (unreachable with "
                                   "sound proofs: every share and shuffle was verified)",
                                   seat=seat, author=msg.author, evidence={"message": msg.id})
                cards[h] = card

            def commit() -> None:
                record()
                self.public.update(cards)
            return E.DeckRevealed(tuple(step.handles), tuple(cards[h] for h in step.handles)), commit
        if isinstance(step, E.DeckShow):
            todo = self._show_todo(step)

            def commit() -> None:
                record()
                for h in todo:
                    show(step.seat, h)
            return E.DeckShown(step.seat, tuple(step.handles)), commit
        if isinstance(step, E.DeckReturn):
            assert self.deck_return is not None
            returned, kept = self.deck_return

            def commit() -> None:
                record()
                for h in kept:
                    show(step.seat, h)
                self.private_log.append(("return", step.seat, tuple(step.handles), returned, kept))
                self.seen.setdefault(returned, set()).add(step.seat)
                self.deck_return = None
            return E.DeckReturned(step.seat, step.deck, step.position, returned, kept), commit
        raise AssertionError(step)

    def _check_claim(self, seat: int, msg: chain.Message, handle: int, value: Any, opening: list) -> bytes:
        """A claim about a privately held deck card: [handle, D_seat, proof]; returns D_seat."""
        def bad(why: str) -> BadOpening:
            return BadOpening(why, seat=seat, author=msg.author, evidence={"handle": handle, "message": msg.id})
        if len(opening) != 3:
            raise bad(f"a claim about deck card {handle} opens as [handle, share, proof]")
        shares = self.deck_shares[handle]
        others = [s for s in range(self.n) if s != seat]
        if any(s not in shares for s in others):
            raise bad(f"deck card {handle} is not held privately by this seat (the other seats' shares "
                      "for it are not all published)")
        ctx = self.deck_context(seat, msg.seq, "claim", handle)
        try:
            point = deck.verify_claim(self.deck_keys[seat], self.cipher[handle], opening[1], opening[2],
                                      [shares[s] for s in others], ctx)
        except Exception as exc:
            raise bad(f"the claim's decryption share for deck card {handle} does not verify: {exc}") from None
        card = self.decode(point)
        if type(value) is not int or card != value:
            raise bad(f"deck card {handle} is not {value!r}: the claim is false")
        return opening[1]

    def _check_fresh(self, seat: int, msg: chain.Message, inputs: list, outputs: Any, what: str) -> None:
        """Every output ciphertext is re-randomised: its B was never held by any ciphertext of
        this game (an input, a handle, an earlier shuffle). A share D = x·B then applies to one
        ciphertext only, so no share published for an old ciphertext opens a new one (a return
        or shuffle with r = 0 would keep B, and the old shares would open the card for all)."""
        used = self.used_b | {c[1] for c in inputs if type(c) in (list, tuple) and len(c) == 2}
        seen: set = set()
        for k, c in enumerate(outputs):
            b = c[1] if type(c) is list and len(c) == 2 else None
            if b in used or b in seen:
                raise BadProof(f"{what}: output {k} is not re-randomised (its B was already used by a "
                               "ciphertext of this game)", seat=seat, author=msg.author,
                               evidence={"message": msg.id})
            seen.add(b)

    def _remember_b(self, outputs: list) -> None:
        self.used_b.update(c[1] for c in outputs)

    def _check_deckkey(self, seat: int, msg: chain.Message, body: Any) -> None:
        if type(body) is not dict or set(body) != {"y", "pok"}:
            raise BadBody('a deckkey body is {"y": 32-byte point, "pok": [c, s]}', seat=seat, author=msg.author)
        self._proof(seat, msg, "deck key share",
                    partial(deck.verify_key_share, body["y"], body["pok"], self.game_id, seat), verify=True)

    def _per_handle(self, seat: int, msg: chain.Message, key: str, handles: Any, what: str) -> list:
        """The body's list of [handle, x, proof] items, one per handle in order; else BadBody."""
        body = msg.body
        if (type(body) is not dict or set(body) != {key} or type(body[key]) is not list
                or len(body[key]) != len(handles)
                or any(type(item) is not list or len(item) != 3 or type(item[0]) is not int or item[0] != h
                       for item, h in zip(body[key], handles))):
            raise BadBody(f'a {msg.kind} body is {{"{key}": [[handle, {what}, proof], ...]}} for handles '
                          f'{list(handles)}', seat=seat, author=msg.author)
        return body[key]

    def _check_share(self, seat: int, msg: chain.Message, body: Any) -> None:
        handles = self.need.context[seat]
        for item, h in zip(self._per_handle(seat, msg, "shares", handles, "D"), handles):
            ctx = self.deck_context(seat, msg.seq, "share", h)
            self._proof(seat, msg, f"decryption share for handle {h}",
                        partial(deck.verify_share, self.deck_keys[seat], self.cipher[h], item[1], item[2], ctx), verify=True)

    def _check_shuffle(self, seat: int, msg: chain.Message) -> tuple[E.Event | None, Any]:
        body = msg.body
        if (type(body) is not dict or set(body) != {"deck", "proof"} or type(body["deck"]) is not list
                or type(body["proof"]) is not list):
            raise BadBody('a shuffle body is {"deck": [[A, B], ...], "proof": [...]}', seat=seat, author=msg.author)
        step = self.need.step
        deck_in = self.shuffle_input()
        out = body["deck"]
        ctx = self.deck_context(seat, msg.seq, step.deck)
        self._proof(seat, msg, f"shuffle of deck {step.deck!r}",
                    partial(deck.verify_shuffle, self.joint_key, deck_in, out, body["proof"], ctx), verify=True)
        self._check_fresh(seat, msg, deck_in, out, f"shuffle of deck {step.deck!r}")
        if seat < self.n - 1:
            def commit_one() -> None:
                self._remember_b(out)
                self.shuffle_decks.append(out)
            return None, commit_one
        handles = tuple(range(self.next_handle, self.next_handle + len(out)))

        def commit() -> None:
            self._remember_b(out)
            for h, c in zip(handles, out):
                self.cipher[h] = c
                self.deck_shares[h] = {}
            self.next_handle += len(handles)
            self.retired.update(item[1] for item in step.cards if type(item) is not int)
            self.shuffle_decks = []
            self._shuffle_start = None
        return E.DeckShuffled(step.deck, handles), commit

    def _check_remask(self, seat: int, msg: chain.Message) -> tuple[None, Any]:
        body = msg.body
        handles = self.need.context
        for item, h in zip(self._per_handle(seat, msg, "cards", handles, "[A, B]"), handles):
            ctx = self.deck_context(seat, msg.seq, "remask", h)
            self._proof(seat, msg, f"re-masking of handle {h}",
                        partial(deck.verify_rerandomize, self.joint_key, self.cipher[h], item[1], item[2], ctx), verify=True)
        self._check_fresh(seat, msg, [self.cipher[h] for h in handles], [c for _, c, _ in body["cards"]],
                          "re-masking")

        def commit() -> None:
            self._remember_b([c for _, c, _ in body["cards"]])
            for h, c, _ in body["cards"]:
                self.cipher[h] = c
                self.deck_shares[h] = {}
        return None, commit

    def _check_return(self, seat: int, msg: chain.Message) -> tuple[None, Any]:
        body = msg.body
        if (type(body) is not dict or set(body) != {"hand", "proof"} or type(body["hand"]) is not list
                or type(body["proof"]) is not list):
            raise BadBody('a return body is {"hand": [[A, B], ...], "proof": [...]}', seat=seat, author=msg.author)
        step = self.need.step
        hand_in = [self.cipher[h] for h in step.handles]
        out = body["hand"]
        ctx = self.deck_context(seat, msg.seq, step.deck, step.position)
        self._proof(seat, msg, "face-down return (shuffle of the hand)",
                    partial(deck.verify_shuffle, self.joint_key, hand_in, out, body["proof"], ctx), verify=True)
        self._check_fresh(seat, msg, hand_in, out, "face-down return")
        new = tuple(range(self.next_handle, self.next_handle + len(out)))
        # the event comes once the kept cards' shares are in; check now that the engine takes it
        self._engine_apply(seat, msg, E.DeckReturned(seat, step.deck, step.position, new[0], new[1:]),
                           state=self.engine.clone(self.state))

        def commit() -> None:
            self._remember_b(out)
            for h, c in zip(new, out):
                self.cipher[h] = c
                self.deck_shares[h] = {}
            self.next_handle += len(new)
            self.retired.update(step.handles)
            self.deck_return = (new[0], new[1:])
        return None, commit
