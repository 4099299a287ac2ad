"""The turn-based mail transport's logic (protocol/mail/courier.py) with no broker, no trio and
no clock: couriers of a 3-seat table exchange envelopes through an in-memory broker that drops
deliveries, duplicates, reorders and redelivers them, on a clock the test drives. Every letter
reaches its seat's link once; what the game handled is acknowledged only in a durable batch; a
node that stops gets again what it took but had not made durable, and nothing else; the
per-seat bounds; gaps settled after GAP_WAIT and envelopes presumed lost after RESEND_AFTER;
a forged or garbage envelope refused naming the seat it claims."""

from __future__ import annotations

import json
import random
from collections import Counter
from dataclasses import dataclass, field
from itertools import count
from typing import Any

import nacl.bindings as sodium
import pytest

from protocol import chain, wire
from protocol.identity import SigningKey
from protocol.mail import mailbox as M
from protocol.mail.courier import GAP_WAIT, PER_SEAT, PER_SEAT_BYTES, RESEND_AFTER, Batch, Courier
from protocol.mail.mailbox import Mailbox

GAME = bytes(range(32))
N = 3


@pytest.fixture
def keys() -> list[SigningKey]:
    return [SigningKey.generate() for _ in range(N)]


def courier(keys: list[SigningKey], seat: int, state: dict[str, Any] | None = None) -> Courier:
    return Courier(Mailbox(GAME, [k.public for k in keys], seat, keys[seat], state))


def chat(src: int, i: int) -> dict[str, Any]:
    return {"t": "chat", "x": f"{src}:{i}"}


@dataclass
class Broker:
    """Per inbox, the envelopes published and not yet acknowledged (by message id). Each
    delivery is a parcel of its own (a handle: inbox, delivery id), as a redelivery after a
    reconnect is; acknowledging any parcel of a message forgets the message."""
    rng: random.Random
    drop: float = 0.0
    dup: float = 0.0
    queues: dict[str, dict[int, bytes]] = field(default_factory=dict)
    handles: dict[tuple[str, int], int] = field(default_factory=dict)      # handle -> message id
    acked: list[tuple[str, int]] = field(default_factory=list)
    ids: Any = field(default_factory=count)

    def publish(self, inbox: str, envelope: bytes) -> None:
        self.queues.setdefault(inbox, {})[next(self.ids)] = envelope

    def deliveries(self, inbox: str) -> list[tuple[tuple[str, int], bytes]]:
        """Every message still unacknowledged, again (a redelivery), in a random order; some
        not this time, some twice."""
        out = []
        for mid, envelope in self.queues.get(inbox, {}).items():
            if self.rng.random() < self.drop:
                continue
            for _ in range(2 if self.rng.random() < self.dup else 1):
                handle = (inbox, next(self.ids))
                self.handles[handle] = mid
                out.append((handle, envelope))
        self.rng.shuffle(out)
        return out

    def ack(self, handle: tuple[str, int]) -> None:
        self.acked.append(handle)
        self.queues[handle[0]].pop(self.handles[handle], None)


class Node:
    """A test shell around one Courier: what node/net/mail_links.py and the tab do."""

    def __init__(self, courier: Courier, broker: Broker, take_per_round: int = 3):
        self.courier = courier
        self.broker = broker
        self.seat = courier.mailbox.seat
        self.inbox = courier.inboxes[self.seat]
        self.take_per_round = take_per_round
        self.got: dict[int, list[Any]] = {s: [] for s in courier.mailbox.others}
        self.handed: set[tuple[str, int]] = set()       # handles of letters handed to the game
        self.saved: dict[str, Any] | None = None

    def receive(self, now: float) -> None:
        for handle, envelope in self.broker.deliveries(self.inbox):
            arrival = self.courier.parcel(envelope, handle, now)
            if arrival.seat is not None:
                assert not arrival.ack
                self.handed.add(handle)
            elif arrival.ack:
                self.broker.ack(handle)

    def play(self, now: float) -> None:
        """The game takes a few letters from each seat (the last one stays being handled)."""
        for seat in self.got:
            for _ in range(self.take_per_round):
                self.courier.taken(seat)
                body = self.courier.hand(seat, now)
                if body is None:
                    break
                self.got[seat].append(body)

    def durable(self) -> Batch | None:
        """The store is durable: save, publish, acknowledge (only letters the game handled)."""
        waiting = list(self.courier.to_ack)
        assert set(waiting) <= self.handed
        batch = self.courier.due()
        if batch is None:
            return None
        assert batch.acks == waiting
        self.saved = json.loads(json.dumps(batch.state))
        for inbox, envelope in batch.publish:
            self.broker.publish(inbox, envelope)
        for handle in batch.acks:
            self.broker.ack(handle)
        return batch


@pytest.mark.parametrize("seed", range(4))
def test_every_letter_reaches_its_link_once_through_a_faulty_broker(keys, seed):
    rng = random.Random(seed)
    broker = Broker(rng, drop=0.3, dup=0.3)
    nodes = [Node(courier(keys, s), broker) for s in range(N)]
    sent: dict[tuple[int, int], list[Any]] = {(a, b): [] for a in range(N) for b in range(N) if a != b}
    acked_in_batches: set[tuple[str, int]] = set()
    now = 0.0
    for step in range(200):
        now += 0.1
        for node in nodes:
            if step < 20:
                for other in node.got:
                    frame = chat(node.seat, step)
                    assert node.courier.post(other, frame, now)
                    sent[node.seat, other].append(frame)
            node.receive(now)
            node.play(now)
            if step % 3 == 0:                            # the store is durable now and then
                batch = node.durable()
                acked_in_batches |= set(batch.acks if batch else [])
        if step > 20 and not any(broker.queues.values()) and not any(n.courier.busy() for n in nodes):
            break
    else:
        pytest.fail("the broker never emptied")
    for node in nodes:
        for other, got in node.got.items():
            assert Counter(map(repr, got)) == Counter(map(repr, sent[other, node.seat]))   # each once
            assert len(got) == len(sent[other, node.seat])
        # a parcel handed to the game was acknowledged only in a durable batch
        assert {h for h in broker.acked if h in node.handed} <= acked_in_batches
        assert node.courier.refused == 0


def test_nothing_handled_is_acknowledged_before_the_store_is_durable(keys):
    a, b = courier(keys, 0), courier(keys, 1)
    assert a.post(1, chat(0, 0), 1.0) and a.last_activity == 1.0
    sealed = a.due()
    assert sealed.acks == [] and len(sealed.publish) == 1 and sealed.publish[0][0] == b.inboxes[1]
    assert a.due() is None                               # nothing new
    arrival = b.parcel(sealed.publish[0][1], "h1", 2.0)
    assert (arrival.seat, arrival.ack, arrival.note) == (0, False, None)
    assert b.waiting(0) == 1 and b.busy()
    assert b.taken(0) is False                           # nothing was being handled yet
    assert b.hand(0, 3.0) == chat(0, 0) and b.last_activity == 3.0
    assert b.due() is None                               # being handled: not taken yet
    assert b.waiting(0) == 1
    assert b.taken(0) is True and b.hand(0, 4.0) is None
    assert b.waiting(0) == 0 and b.to_ack == ["h1"]
    batch = b.due()
    assert batch.acks == ["h1"] and batch.publish == []
    assert batch.state == b.mailbox.state() and json.loads(json.dumps(batch.state)) == batch.state
    assert not b.busy()


def test_a_node_stopped_before_its_store_was_durable_gets_again_only_what_it_had_not_made_durable(keys):
    broker = Broker(random.Random(1))
    a = Node(courier(keys, 0), broker)
    b = Node(courier(keys, 1), broker, take_per_round=1)
    for i in range(3):
        a.courier.post(1, chat(0, i), 0.0)
    a.durable()
    b.receive(1.0)
    b.play(1.0)                                          # takes the first (still being handled)
    b.play(1.0)                                          # the first is taken, the second handed
    b.durable()                                          # the first is acknowledged, with its state
    first = b.got[0][0]
    b.play(1.0)                                          # the second taken (not durable), third handed
    assert len(b.got[0]) == 3
    again = Node(courier(keys, 1, b.saved), broker)      # stopped; its next run from the state kept
    again.receive(2.0)
    again.play(2.0)
    assert sorted(map(repr, again.got[0])) == sorted(map(repr, b.got[0][1:]))
    assert first not in again.got[0]


def test_msg_frames_go_once_and_unchanged_heads_are_not_sent_twice(keys):
    a = courier(keys, 0)
    msgs = []
    prev = GAME
    for seq in range(3):
        msg = chain.seal(keys[0], GAME, seq, prev, [], "act", {"a": seq})
        msgs.append(msg.raw)
        prev = msg.id
    assert a.post(1, {"t": "msg", "m": msgs[0]}, 0.0)
    assert not a.post(1, {"t": "msg", "m": msgs[0]}, 0.0)            # on its way already
    assert a.mailbox.sent[1] == [1, 0, 0]
    assert a.post(1, {"t": "msg", "m": msgs[2]}, 0.0)                # ahead: sent, not counted
    assert a.mailbox.sent[1] == [1, 0, 0]
    assert not a.post(1, {"t": "msg", "m": b"not a chain message"}, 0.0)
    assert a.post(1, {"t": "heads", "h": [1, 0, 0]}, 0.0)
    assert not a.post(1, {"t": "heads", "h": [1, 0, 0]}, 0.0)
    assert a.post(2, {"t": "heads", "h": [1, 0, 0]}, 0.0)            # per seat
    assert [s for s, _ in a.outbox] == [1, 1, 1, 2]


def test_the_per_seat_bounds_leave_the_rest_on_the_broker(keys):
    a, b = courier(keys, 0), courier(keys, 1)
    envelopes = [a.mailbox.seal(1, chat(0, i)) for i in range(PER_SEAT + 1)]
    for i, envelope in enumerate(envelopes[:PER_SEAT]):
        assert b.parcel(envelope, i, 0.0).seat == 0
    over = b.parcel(envelopes[PER_SEAT], PER_SEAT, 0.0)
    assert (over.seat, over.ack) == (None, False)                    # not acknowledged: it comes again
    assert over.note == (f"over {PER_SEAT} letters or {PER_SEAT_BYTES >> 20} MiB from seat 0 waiting; "
                         "dropped one (it comes again at the next run)")
    assert b.hand(0, 1.0) == chat(0, 0) and b.taken(0)
    assert b.parcel(envelopes[PER_SEAT], PER_SEAT + 1, 1.0).seat == 0   # room again: not a duplicate
    c = courier(keys, 2)
    big = [a.mailbox.seal(2, {"t": "chat", "x": "b" * 1_000_000}) for _ in range(9)]
    assert [c.parcel(e, i, 0.0).seat for i, e in enumerate(big)] == [0] * 8 + [None]
    assert c.waiting(0) == 8


def test_a_gap_is_settled_after_gap_wait_and_the_heads_go_out_again(keys):
    a, b = courier(keys, 0), courier(keys, 1)
    envelopes = [a.mailbox.seal(1, chat(0, i)) for i in range(3)]
    for i in (0, 2):                                     # the second is lost on the way
        assert b.parcel(envelopes[i], i, 0.0).seat == 0
        b.taken(0)
        b.hand(0, 0.0)
    b.taken(0)
    assert b.post(0, {"t": "heads", "h": [0, 0, 0]}, 0.0)
    assert not b.post(0, {"t": "heads", "h": [0, 0, 0]}, 0.0)
    assert b.mailbox.gaps()
    assert b.check(10.0) == [] and b.mailbox.gaps()                     # the gap is seen from now
    assert b.check(10.0 + GAP_WAIT - 0.01) == [] and b.mailbox.gaps()
    assert b.check(10.0 + GAP_WAIT) == [] and not b.mailbox.gaps()
    assert b.mailbox.streams[0][a.mailbox.epoch].ack == 3
    assert a.mailbox.open(b.outbox[-1][1]).ack == 1                      # before: the ack stopped at the gap
    assert b.post(0, {"t": "heads", "h": [0, 0, 0]}, 0.0)                # again: it carries the new ack
    assert a.mailbox.open(b.outbox[-1][1]).ack == 3


def test_envelopes_a_writing_seat_never_acknowledged_are_presumed_lost_after_resend_after(keys):
    a, b = courier(keys, 0), courier(keys, 1)
    msg = chain.seal(keys[0], GAME, 0, GAME, [], "act", {"a": 0}).raw
    assert a.post(1, {"t": "msg", "m": msg}, 0.0)
    a.due()                                              # published before seat 1's postbox existed: lost
    assert a.mailbox.owed(1, [1, 0, 0]) == [] and a.mailbox.unacked(1) == 1
    assert a.check(0.0) == []                            # unacknowledged since 0
    b.post(0, {"t": "heads", "h": [0, 0, 0]}, 0.0)
    assert a.parcel(b.outbox[-1][1], "early", RESEND_AFTER / 2 - 1).seat == 1     # too early to tell
    assert a.check(RESEND_AFTER) == []
    b.post(0, {"t": "chat", "x": "still here"}, 0.0)
    assert a.parcel(b.outbox[-1][1], "late", RESEND_AFTER / 2).seat == 1         # it keeps writing
    assert a.check(RESEND_AFTER - 0.01) == []
    assert a.check(RESEND_AFTER) == ["seat 1 has not acknowledged 1 envelope(s) for 20 s while writing to us: "
                                     "presumed lost, sent again"]
    assert a.mailbox.owed(1, [1, 0, 0]) == [(0, 0, 1)]
    assert a.check(RESEND_AFTER + 1) == []               # counted again from now


def test_garbage_forgeries_and_non_frames_are_refused_at_once_naming_the_seat_claimed(keys):
    a, b = courier(keys, 0), courier(keys, 1)
    junk = b.parcel(b"junk", "junk", 0.0)
    assert (junk.seat, junk.ack, junk.signer) == (None, True, None)
    assert junk.note.startswith("dropped an envelope: an envelope that does not open with this seat's key")
    stranger = SigningKey.generate()
    inner = wire.encode([M.TAG, GAME, 0, 1, bytes(8), 1, [], {"t": "chat", "x": "forged"}])
    forged = sodium.crypto_box_seal(inner + stranger.sign(inner), M.curve_public(keys[1].public))
    refused = b.parcel(forged, "forged", 0.0)
    assert (refused.seat, refused.ack, refused.signer) == (None, True, 0)
    assert "claims seat 0" in refused.note and "not signed by its key" in refused.note
    odd = b.parcel(a.mailbox.seal(1, {"t": "dance"}), "odd", 0.0)
    assert (odd.seat, odd.ack) == (None, True)
    assert odd.note == "seat 0 sent a letter that is no game frame; dropped"
    assert b.refused == 2 and b.waiting(0) == 0 and b.due() is None
    assert b.mailbox.streams[0] == {}                    # nothing refused was counted


def test_a_duplicate_in_a_run_is_acknowledged_at_once_and_handed_once(keys):
    a, b = courier(keys, 0), courier(keys, 1)
    envelope = a.mailbox.seal(1, {"t": "heads", "h": [1, 0, 0]})
    assert b.parcel(envelope, "first", 0.0).seat == 0
    copy = b.parcel(envelope, "copy", 0.0)
    assert (copy.seat, copy.ack, copy.note) == (None, True, None)
    assert b.hand(0, 0.0) == {"t": "heads", "h": [1, 0, 0]} and b.hand(0, 0.0) is None
    assert b.reported() == {0: [1, 0, 0]}                # its heads, heard when handed
    assert b.taken(0) and b.parcel(envelope, "later", 0.0).ack     # taken: the mailbox drops it too
