"""Mailboxes for turn-based tables (issue 33): envelopes that wait on a broker for a seat
whose node is not running, without any I/O (sans-I/O: the desktop's MQTT shell is
node/net/postbox.py and node/net/mail_links.py; the browser tab runs this module as it is).

An envelope carries one frame of the game mesh (`msg`, `heads`, ...) from one seat to one
other seat of one game:

    inner = wire.encode([TAG, game id, from seat, to seat, epoch, n, acks, body])
    envelope = crypto_box_seal(inner + Ed25519 signature of inner by the sender's game key,
                               X25519 form of the recipient's game key)

so only the recipient reads it (a sealed box to its static key: no key exchange, the
recipient may be offline), and it names and proves its signer. `epoch` (8 random bytes
per sender state) and `n` (1, 2, … per recipient) number a sender's envelopes; `acks`
tells the recipient, per sender, the highest `n` below which every envelope came (its
cumulative ack), so a sender knows what was lost on the way and sends it again (`owed`).
The whole design, and what a broker can and cannot do to a game: specs/node.md "Turn-based
tables: store and forward".

Nothing here reads a clock, a file or a random source of its own: a new sender state's epoch
is the caller's, or else 8 bytes from libsodium (`nacl.bindings.randombytes`, as
protocol/link takes its random bytes; in a tab, the shim's crypto.getRandomValues)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import nacl.bindings as sodium
import nacl.exceptions

from .. import wire
from ..identity import SigningKey, fingerprint, verify

TAG = "caravan-box-v1"
SIGNATURE = 64
EPOCH = 8
MAX_ENVELOPE = 1 << 20
"""Bytes of one envelope (sealed); a bigger one is dropped unopened."""
SEEN_WINDOW = 4096
"""Envelope numbers a sender may run ahead of its recipient's cumulative ack; further ahead
is dropped (a flood of numbers would otherwise grow the set of numbers seen)."""
EPOCHS_KEPT = 2
"""Epochs remembered per sender (its state now, and the one before it lost its state)."""
MAX_BATCH = 1024
"""Envelopes taken per sender in one `take`; more are dropped (a flood of genuine but useless
envelopes cannot starve the other senders' of a drain); they are gaps, owed again later."""
THROUGH_KEPT = 4096
"""Per recipient, how many of our envelopes' sent-vectors are kept to interpret its acks."""


class MailError(ValueError):
    """An envelope that is dropped: `str` says why, `signer` is the seat it claims (if known),
    `claimed` the key it claims (a lobby letter, where nobody has a seat yet)."""

    def __init__(self, why: str, signer: int | None = None, claimed: bytes | None = None):
        super().__init__(why)
        self.signer = signer
        self.claimed = claimed


@dataclass
class Letter:
    """One opened envelope: `body` from seat `sender`; `ack` is the sender's cumulative ack
    of our envelopes in our current epoch (0: none)."""
    sender: int
    epoch: bytes
    n: int
    body: Any
    ack: int = 0


@dataclass
class _Stream:
    """What came from one sender in one epoch: every n <= ack, and those in `seen`."""
    ack: int = 0
    seen: set[int] = field(default_factory=set)

    def take(self, n: int) -> None:
        self.seen.add(n)
        while self.ack + 1 in self.seen:
            self.ack += 1
            self.seen.discard(self.ack)


def curve_public(ed_public: bytes) -> bytes:
    """The X25519 form of a seat's Ed25519 key (what envelopes to it are sealed to)."""
    return sodium.crypto_sign_ed25519_pk_to_curve25519(ed_public)


def curve_secret(key: SigningKey) -> bytes:
    _, secret = sodium.crypto_sign_seed_keypair(key.seed())
    return sodium.crypto_sign_ed25519_sk_to_curve25519(secret)


class Mailbox:
    """One seat's mailbox state in one game: numbering, sealing and opening envelopes,
    dropping duplicates, and what is owed to each other seat. `state()` is what to keep on
    disk between runs (JSON-able); pass it back to resume."""

    def __init__(self, game_id: bytes, seats: list[bytes], seat: int, key: SigningKey,
                 state: dict[str, Any] | None = None, epoch: bytes | None = None):
        if seats[seat] != key.public:
            raise ValueError(f"key {fingerprint(key.public)} does not hold seat {seat} of this game")
        self.game_id = game_id
        self.seats = list(seats)
        self.seat = seat
        self._key = key
        self._curve_secret = curve_secret(key)
        self._curve_public = curve_public(key.public)
        self._curves = [curve_public(s) for s in seats]
        others = [s for s in range(len(seats)) if s != seat]
        self.others = others
        self.epoch = epoch if epoch is not None else sodium.randombytes(EPOCH)
        self.out_n: dict[int, int] = {s: 0 for s in others}
        self.sent: dict[int, list[int]] = {s: [0] * len(seats) for s in others}
        self.through: dict[int, dict[int, list[int]]] = {s: {} for s in others}
        self.peer_ack: dict[int, int] = {s: 0 for s in others}
        self.heads: dict[int, list[int]] = {}                  # seat -> the most it reported holding
        self.streams: dict[int, dict[bytes, _Stream]] = {s: {} for s in others}
        self.duplicates = 0
        if state is not None:
            self._load(state)

    # ------------------------------------------------------------------ persistence
    def state(self) -> dict[str, Any]:
        return {"epoch": self.epoch.hex(),
                "out_n": {str(s): n for s, n in self.out_n.items()},
                "sent": {str(s): v for s, v in self.sent.items()},
                "through": {str(s): {str(n): v for n, v in t.items()} for s, t in self.through.items()},
                "peer_ack": {str(s): n for s, n in self.peer_ack.items()},
                "heads": {str(s): v for s, v in self.heads.items()},
                "streams": {str(s): {e.hex(): [st.ack, sorted(st.seen)] for e, st in by.items()}
                            for s, by in self.streams.items()}}

    def _load(self, state: dict[str, Any]) -> None:
        try:
            epoch = bytes.fromhex(state["epoch"])
            if len(epoch) != EPOCH:
                raise ValueError("epoch")
            n = len(self.seats)

            def seats_of(d: dict) -> dict[int, Any]:
                out = {int(k): v for k, v in d.items()}
                if any(s not in self.others for s in out):
                    raise ValueError("seat")
                return out

            def vector(v: Any) -> list[int]:
                if type(v) is not list or len(v) != n or any(type(x) is not int or x < 0 for x in v):
                    raise ValueError("vector")
                return v
            self.epoch = epoch
            self.out_n.update({s: int(v) for s, v in seats_of(state["out_n"]).items()})
            self.sent.update({s: vector(v) for s, v in seats_of(state["sent"]).items()})
            self.through.update({s: {int(k): vector(v) for k, v in t.items()}
                                 for s, t in seats_of(state["through"]).items()})
            self.peer_ack.update({s: int(v) for s, v in seats_of(state["peer_ack"]).items()})
            self.heads = {s: vector(v) for s, v in seats_of(state["heads"]).items()}
            self.streams.update({s: {bytes.fromhex(e): _Stream(int(a), set(map(int, seen)))
                                     for e, (a, seen) in by.items()}
                                 for s, by in seats_of(state["streams"]).items()})
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise ValueError(f"damaged mailbox state ({exc.__class__.__name__}: {exc})") from None

    # ------------------------------------------------------------------ sending
    def seal(self, to: int, body: Any, counts: list[int] | None = None) -> bytes:
        """The envelope carrying `body` to seat `to`; `counts`: the per-author counts of the
        chain that the recipient holds once it has this envelope and the ones before it (a
        `msg` body: its author's count up to it), recorded as sent."""
        if to not in self.out_n:
            raise ValueError(f"seat {to} is not another seat of this game")
        n = self.out_n[to] = self.out_n[to] + 1
        if counts is not None:
            self.sent[to] = [max(a, b) for a, b in zip(self.sent[to], counts)]
        through = self.through[to]
        through[n] = list(self.sent[to])
        while len(through) > THROUGH_KEPT:
            del through[min(through)]
        acks = [[s, e, st.ack] for s, e, st in self._current_streams()]
        inner = wire.encode([TAG, self.game_id, self.seat, to, self.epoch, n, acks, body])
        return sodium.crypto_box_seal(inner + self._key.sign(inner), self._curves[to])

    def _current_streams(self) -> list[tuple[int, bytes, _Stream]]:
        out = []
        for s, by in sorted(self.streams.items()):
            if by:
                epoch = next(reversed(by))                  # the latest epoch first seen
                out.append((s, epoch, by[epoch]))
        return out

    def heard(self, sender: int, heads: list[int], ack: int) -> None:
        """A `heads` body from `sender`, in an envelope acking our envelopes up to `ack`: what
        our envelopes up to `ack` carried and its heads lack was lost on the way, and is
        owed again; what it holds beyond what we sent is not owed."""
        if sender not in self.sent or len(heads) != len(self.seats):
            return
        old = self.heads.get(sender, [0] * len(self.seats))
        self.heads[sender] = [max(a, b) for a, b in zip(old, heads)]
        carried = [0] * len(self.seats)
        through = self.through[sender]
        upto = [n for n in through if n <= ack]
        if upto:
            carried = through[max(upto)]
            for n in upto:
                del through[n]                        # older than the ack: no longer needed
            through[ack] = [min(c, h) for c, h in zip(carried, heads)]   # a loss is counted once
        sent = self.sent[sender]
        for a in range(len(sent)):
            if heads[a] < carried[a]:
                sent[a] = heads[a]                    # lost on the way: owed again from there
            elif heads[a] > sent[a]:
                sent[a] = heads[a]                    # it has them from elsewhere
        self.peer_ack[sender] = max(self.peer_ack[sender], ack)

    def owed(self, to: int, mine: list[int]) -> list[tuple[int, int, int]]:
        """(author, start, end): the ranges of the chain that this node holds (`mine`, counts
        per author) and has not sent to seat `to` (or sent and learned were lost)."""
        return [(a, s, m) for a, (s, m) in enumerate(zip(self.sent[to], mine)) if s < m]

    def presume_lost(self, to: int) -> None:
        """Our envelopes to seat `to` that it has not acknowledged although it kept writing to
        us long after they went out were lost (a first envelope published before its postbox
        existed, which no later one of ours revealed as a gap): whatever its last heads lacks
        is owed again (a copy still on its way costs a duplicate, which it drops)."""
        heads = self.heads.get(to, [0] * len(self.seats))
        self.sent[to] = [min(s, h) for s, h in zip(self.sent[to], heads)]

    def gaps(self) -> bool:
        """Some sender's envelope is missing below one that came (see `settle`)."""
        return any(stream.seen for by in self.streams.values() for stream in by.values())

    def reported_of(self, author: int) -> int:
        """The most messages of `author` any other seat reported holding (a node must hold at
        least this many of its own before it signs again: specs/node.md "Never signing twice")."""
        return max((h[author] for h in self.heads.values()), default=0)

    def unacked(self, to: int) -> int:
        """Our envelopes to seat `to` that it has not acknowledged (in flight, or lost)."""
        return self.out_n[to] - self.peer_ack[to]

    # ------------------------------------------------------------------ receiving
    def open(self, envelope: bytes, budget: dict[int, int] | None = None, mark: bool = True) -> Letter | None:
        """The letter in `envelope`, None for a duplicate; MailError (why, and the claimed
        signer if it got that far) for anything that must not reach the game. `budget`: the
        envelopes taken per sender so far in this batch (at most MAX_BATCH each)."""
        if type(envelope) is not bytes or len(envelope) > MAX_ENVELOPE:
            raise MailError(f"an envelope of {len(envelope)} bytes is over {MAX_ENVELOPE}")
        try:
            plain = sodium.crypto_box_seal_open(envelope, self._curve_public, self._curve_secret)
        except (nacl.exceptions.CryptoError, ValueError, TypeError):
            raise MailError("an envelope that does not open with this seat's key (sealed to another key, "
                            "or damaged)") from None
        if len(plain) <= SIGNATURE:
            raise MailError("an envelope too short to hold a signature")
        inner, sig = plain[:-SIGNATURE], plain[-SIGNATURE:]
        try:
            value = wire.decode(inner)
        except Exception as exc:                         # noqa: BLE001 - any undecodable input
            raise MailError(f"an envelope that is no canonical message ({exc})") from None
        if type(value) is not list or len(value) != 8 or value[0] != TAG:
            raise MailError(f"an envelope that is not a {TAG} envelope")
        _, game_id, sender, to, epoch, n, acks, body = value
        if game_id != self.game_id:
            raise MailError(f"an envelope for another game ({bytes(game_id).hex()[:16] if type(game_id) is bytes else '?'})")
        if type(sender) is not int or not 0 <= sender < len(self.seats) or sender == self.seat:
            raise MailError(f"an envelope from {sender!r}, which is not another seat of this game")
        if not verify(self.seats[sender], sig, inner):
            raise MailError(f"an envelope that claims seat {sender} ({fingerprint(self.seats[sender])}) "
                            "but is not signed by its key", signer=sender)
        if to != self.seat:
            raise MailError(f"an envelope from seat {sender} to seat {to!r}, not to this seat", signer=sender)
        if type(epoch) is not bytes or len(epoch) != EPOCH or type(n) is not int or n < 1:
            raise MailError(f"an envelope from seat {sender} with a malformed number", signer=sender)
        if type(acks) is not list:
            raise MailError(f"an envelope from seat {sender} with malformed acks", signer=sender)
        by = self.streams[sender]
        stream = by.get(epoch)
        if stream is not None and (n <= stream.ack or n in stream.seen):
            self.duplicates += 1
            return None
        if n > (stream.ack if stream else 0) + SEEN_WINDOW:
            raise MailError(f"an envelope from seat {sender} numbered {n}, over {SEEN_WINDOW} ahead of the "
                            f"last one in order ({stream.ack if stream else 0})", signer=sender)
        if budget is not None and budget.get(sender, 0) >= MAX_BATCH:
            raise MailError(f"over {MAX_BATCH} envelopes from seat {sender} at once; the rest are dropped",
                            signer=sender)
        if budget is not None:
            budget[sender] = budget.get(sender, 0) + 1
        ack = 0
        for item in acks:
            if (type(item) is list and len(item) == 3 and item[0] == self.seat and item[1] == self.epoch
                    and type(item[2]) is int and item[2] >= 0):
                ack = min(item[2], self.out_n[sender])    # never past what we sent
        self.peer_ack[sender] = max(self.peer_ack[sender], ack)
        letter = Letter(sender, epoch, n, body, ack)
        if mark:
            self.mark(letter)
        return letter

    def mark(self, letter: Letter) -> None:
        """Count `letter` as taken (its duplicates are dropped from now on): at once in `open`,
        or, with mark=False there, once the node has taken it (protocol/mail/courier.py: a letter
        opened but not taken when the node stops must come again at its next run)."""
        by = self.streams[letter.sender]
        stream = by.get(letter.epoch)
        if stream is None:
            stream = by[letter.epoch] = _Stream()
            while len(by) > EPOCHS_KEPT:
                del by[next(iter(by))]                    # the oldest epoch first seen
        if letter.n > stream.ack:
            stream.take(letter.n)

    def take(self, envelopes: list[bytes]) -> tuple[list[Letter], list[MailError]]:
        """A drained inbox: its letters (duplicates dropped) in sender and number order (a
        catch-up then applies in one pass), and why each dropped envelope was dropped. At most
        MAX_BATCH envelopes per sender are taken; the rest are dropped (gaps: owed later)."""
        letters: list[Letter] = []
        errors: list[MailError] = []
        budget: dict[int, int] = {}
        for envelope in envelopes:
            try:
                letter = self.open(envelope, budget)
            except MailError as exc:
                errors.append(exc)
                continue
            if letter is not None:
                letters.append(letter)
        letters.sort(key=lambda x: (x.sender, x.epoch, x.n))
        return letters, errors

    def settle(self) -> None:
        """The inbox has been drained (quiet for a while): whatever is missing below the highest
        number seen from a sender was lost, so the cumulative ack moves past it (the sender,
        seeing the ack, sends again what those envelopes carried and we lack)."""
        for by in self.streams.values():
            for stream in by.values():
                if stream.seen:
                    stream.ack = max(stream.seen)
                    stream.seen.clear()
