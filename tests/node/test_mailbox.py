"""protocol/mail/mailbox.py: envelopes for turn-based tables (issue 33), without any broker: sealing to
the recipient's static key, signatures, duplicates, reordering, loss and what is owed again,
non-seats, floods, and the state kept across runs."""

from __future__ import annotations

import json
import random

import nacl.bindings as sodium
import pytest

from protocol.mail import mailbox as M
from protocol.mail.mailbox import Mailbox, MailError
from protocol import wire
from protocol.identity import SigningKey

GAME = bytes(range(32))


@pytest.fixture
def table():
    keys = [SigningKey.generate() for _ in range(3)]
    seats = [k.public for k in keys]
    return keys, seats, [Mailbox(GAME, seats, i, k) for i, k in enumerate(keys)]


def test_a_letter_reaches_only_its_recipient_and_names_its_signer(table):
    keys, seats, (a, b, c) = table
    env = a.seal(1, {"t": "msg", "m": b"secret share"})
    assert b"secret share" not in env                       # the broker reads nothing
    letter = b.open(env)
    assert (letter.sender, letter.n, letter.body) == (0, 1, {"t": "msg", "m": b"secret share"})
    with pytest.raises(MailError, match="does not open with this seat's key"):
        c.open(env)


def test_duplicates_are_dropped_and_reordered_envelopes_all_arrive(table):
    _, _, (a, b, _) = table
    envs = [a.seal(1, i) for i in range(6)]
    order = [3, 0, 5, 1, 1, 4, 2, 3, 0, 5]
    got = [b.open(envs[i]) for i in order]
    assert sorted(x.body for x in got if x is not None) == list(range(6))
    assert b.duplicates == 4
    assert b.streams[0][a.epoch].ack == 6 and not b.streams[0][a.epoch].seen


def test_take_sorts_a_drained_inbox_by_sender_and_number(table):
    _, _, (a, b, c) = table
    envs = [a.seal(2, ["a", i]) for i in range(3)] + [b.seal(2, ["b", i]) for i in range(3)]
    random.Random(4).shuffle(envs)
    letters, errors = c.take(envs + envs[:2])
    assert errors == []
    assert [x.body for x in letters] == [["a", 0], ["a", 1], ["a", 2], ["b", 0], ["b", 1], ["b", 2]]


def test_a_non_seat_a_forgery_and_a_wrong_address_are_refused_naming_the_claimed_signer(table):
    keys, seats, (a, b, c) = table
    stranger = SigningKey.generate()
    inner = wire.encode([M.TAG, GAME, 0, 1, bytes(8), 1, [], "hi"])
    forged = sodium.crypto_box_seal(inner + stranger.sign(inner), M.curve_public(seats[1]))
    with pytest.raises(MailError, match="claims seat 0 .* not signed by its key") as info:
        b.open(forged)
    assert info.value.signer == 0
    inner = wire.encode([M.TAG, GAME, 7, 1, bytes(8), 1, [], "hi"])
    with pytest.raises(MailError, match="not another seat"):
        b.open(sodium.crypto_box_seal(inner + stranger.sign(inner), M.curve_public(seats[1])))
    other_game = Mailbox(bytes(32), seats, 0, keys[0])
    with pytest.raises(MailError, match="another game"):
        b.open(other_game.seal(1, "x"))
    # seat 0 signs an envelope to seat 2 and a broker re-seals it to seat 1: refused, not taken
    env_to_c = a.seal(2, "for c")
    plain = sodium.crypto_box_seal_open(env_to_c, M.curve_public(seats[2]), M.curve_secret(keys[2]))
    with pytest.raises(MailError, match="to seat 2, not to this seat"):
        b.open(sodium.crypto_box_seal(plain, M.curve_public(seats[1])))
    with pytest.raises(MailError, match="over"):
        b.open(bytes(M.MAX_ENVELOPE + 1))
    assert b.streams[0] == {}                               # nothing refused was counted


def test_a_flood_is_bounded(table, monkeypatch):
    _, _, (a, b, c) = table
    monkeypatch.setattr(M, "MAX_BATCH", 10)
    letters, errors = b.take([a.seal(1, i) for i in range(25)] + [c.seal(1, "c")])
    assert [x.body for x in letters] == list(range(10)) + ["c"]
    assert len(errors) == 15 and all("over 10 envelopes from seat 0" in str(e) for e in errors)
    monkeypatch.setattr(M, "SEEN_WINDOW", 50)
    a.out_n[1] = 500
    with pytest.raises(MailError, match="over 50 ahead"):
        b.open(a.seal(1, "far ahead"))


def test_an_epoch_per_sender_state_and_only_two_kept(table):
    keys, seats, (a, b, _) = table
    assert b.open(a.seal(1, "x")).n == 1
    for _ in range(3):                                      # seat 0 lost its state three times
        fresh = Mailbox(GAME, seats, 0, keys[0])
        assert b.open(fresh.seal(1, "again")).body == "again"
    assert len(b.streams[0]) == M.EPOCHS_KEPT


def test_what_is_owed_follows_acks_and_heads(table):
    _, _, (a, b, _) = table
    mine = [3, 0, 0]
    assert a.owed(1, mine) == [(0, 0, 3)]
    envs = [a.seal(1, {"t": "msg", "i": i}, counts=[i + 1, 0, 0]) for i in range(3)]
    assert a.owed(1, mine) == []                            # in flight: not sent twice
    # the broker lost the second envelope: seat 1 gets 1 and 3, drains, settles
    b.open(envs[0])
    b.open(envs[2])
    assert b.streams[0][a.epoch].ack == 1
    b.settle()
    reply = a.open(b.seal(0, {"t": "heads", "h": [1, 0, 0]}))
    assert reply.ack == 3
    a.heard(1, [1, 0, 0], reply.ack)
    assert a.owed(1, mine) == [(0, 1, 3)]                   # the live resync's range, from 1 on
    assert a.unacked(1) == 0
    # a stale heads (acking only the first envelope) owes nothing new
    a2_env = a.seal(1, {"t": "msg"}, counts=[3, 0, 0])
    a.heard(1, [1, 0, 0], 3)
    assert a.owed(1, mine) == [] and a.unacked(1) == 1
    assert b.open(a2_env).ack == 1                          # seat 0 took seat 1's one envelope
    assert a.reported_of(0) == 1


def test_heads_beyond_what_was_sent_are_not_owed(table):
    _, _, (a, _, _) = table
    a.heard(1, [5, 2, 0], 0)
    assert a.owed(1, [5, 3, 0]) == [(1, 2, 3)]


def test_state_survives_a_restart_and_damage_is_named(table):
    keys, seats, (a, b, _) = table
    b.open(a.seal(1, "one"))
    a.seal(1, "two", counts=[1, 0, 0])
    saved = json.loads(json.dumps(b.state()))
    b2 = Mailbox(GAME, seats, 1, keys[1], json.loads(json.dumps(b.state())))
    a2 = Mailbox(GAME, seats, 0, keys[0], json.loads(json.dumps(a.state())))
    assert a2.epoch == a.epoch and a2.out_n[1] == 2 and a2.sent[1] == [1, 0, 0]
    assert b2.open(a.seal(1, "three")).n == 3 and b2.streams[0][a.epoch].seen == {3}
    assert saved["streams"]["0"][a.epoch.hex()] == [1, []]
    saved["sent"]["2"] = [1]
    with pytest.raises(ValueError, match="damaged mailbox state"):
        Mailbox(GAME, seats, 1, keys[1], saved)
    with pytest.raises(ValueError, match="does not hold seat"):
        Mailbox(GAME, seats, 1, keys[0])


def test_a_lost_first_envelope_is_presumed_lost_and_owed_again(table):
    _, _, (a, b, _) = table
    a.seal(1, {"t": "msg"}, counts=[1, 0, 0])               # published before seat 1's postbox existed
    assert a.owed(1, [1, 0, 0]) == [] and a.unacked(1) == 1
    letter = a.open(b.seal(0, {"t": "heads", "h": [0, 0, 0]}))
    a.heard(1, [0, 0, 0], letter.ack)                       # it writes, and has none of ours: no gap seen
    assert a.owed(1, [1, 0, 0]) == []
    a.presume_lost(1)
    assert a.owed(1, [1, 0, 0]) == [(0, 0, 1)]


def test_gaps_are_seen_until_settled(table):
    _, _, (a, b, _) = table
    envs = [a.seal(1, i) for i in range(3)]
    b.open(envs[2])
    assert b.gaps()
    b.settle()
    assert not b.gaps() and b.streams[0][a.epoch].ack == 3


class FakePostbox:
    """A postbox that only records what it was asked to publish."""

    def __init__(self):
        self.sent: list[tuple[str, bytes]] = []

    def send(self, inbox, envelope):
        self.sent.append((inbox, envelope))

    def ack(self, parcel):
        pass

    def unacknowledged(self):
        return 0


async def test_a_running_node_resends_what_a_writing_seat_never_acknowledged(table, tmp_path):
    from node.net.mail_links import MailTransport
    from protocol.mail.courier import RESEND_AFTER

    _, _, (a, b, _) = table
    ta = MailTransport(FakePostbox(), a, tmp_path)
    ta.post(ta.links[1], {"t": "msg", "m": b"not a chain message"})     # not parsable: never sent
    assert ta.courier.outbox == []
    ta.post(ta.links[1], {"t": "heads", "h": [1, 0, 0]})
    ta.post(ta.links[1], {"t": "heads", "h": [1, 0, 0]})                # unchanged: not sent twice
    assert len(ta.courier.outbox) == 1
    a.sent[1] = [1, 0, 0]                                   # as if our first message had gone out
    await ta.push()
    assert len(ta.postbox.sent) == 1 and (tmp_path / "mailbox.json").exists()
    ta.check(0.0)
    writes = b.seal(0, {"t": "chat", "x": "hi"})            # seat 1 keeps writing, acking nothing
    assert ta.courier.parcel(writes, None, RESEND_AFTER * 0.75).seat == 1
    ta.check(RESEND_AFTER / 2)
    assert a.owed(1, [1, 0, 0]) == []
    ta.check(RESEND_AFTER)
    assert a.owed(1, [1, 0, 0]) == [(0, 0, 1)]


class ChannelPostbox(FakePostbox):
    """A postbox fed by the test: `parcels` as the broker would bring them, `acked` what the
    node acknowledged."""

    def __init__(self):
        super().__init__()
        import trio
        self.feed, self.parcels = trio.open_memory_channel(100)
        self.acked: list[int] = []

    def ack(self, parcel):
        self.acked.append(parcel.mid)

    def took(self, parcel):
        pass


async def test_a_transport_hands_each_letter_once_and_acks_only_what_was_taken(table, tmp_path):
    """Duplicates (the broker's redelivery), reordering, a non-game letter and junk: the game
    sees each frame once; an envelope is acknowledged once refused, or once taken and the
    next one asked for, never before."""
    import trio

    from node.net.mail_links import MailTransport
    from node.net.postbox import Parcel

    _, _, (a, b, _) = table
    box = ChannelPostbox()
    tb = MailTransport(box, b, tmp_path)
    envs = [a.seal(1, {"t": "heads", "h": [i, 0, 0]}) for i in range(3)]
    odd = a.seal(1, {"t": "dance"})
    order = [(1, envs[1]), (2, envs[0]), (3, envs[1]), (4, odd), (5, b"junk"), (6, envs[2])]
    for mid, env in order:
        box.feed.send_nowait(Parcel(mid, env, False))
    got = []
    async with trio.open_nursery() as nursery:
        nursery.start_soon(tb.receive)
        link = tb.links[0]
        with trio.fail_after(5):
            for _ in range(3):
                got.append((await link.recv())["h"][0])
        assert sorted(got) == [0, 1, 2] and got[0] == 1          # in the broker's order, each once
        assert sorted(box.acked) == [3, 4, 5]                    # the duplicate, the dance, the junk
        with trio.move_on_after(0.05):
            await link.recv()                                    # asks for a 4th: the 3rd is taken now
        assert sorted(tb.courier.to_ack, key=lambda p: p.mid)[-1].mid == 6
        await tb.push()                                          # (the game's store is durable here)
        assert sorted(box.acked) == [1, 2, 3, 4, 5, 6]
        nursery.cancel_scope.cancel()
    assert b.streams[0][a.epoch].ack == 3 and b.heads[0] == [2, 0, 0]


async def test_what_is_sealed_while_the_store_syncs_waits_for_the_next_batch(table, tmp_path):
    """The pump takes its batch before it asks the store to sync: a frame sealed meanwhile (its
    message may have been written after the sync began) is published only after the next sync."""
    import trio
    from node.net.mail_links import MailTransport

    _, _, (a, _, _) = table
    ta = MailTransport(FakePostbox(), a, tmp_path)
    syncs: list[int] = []

    async def durable() -> bool:
        syncs.append(len(ta.postbox.sent))
        if len(syncs) == 1:                                  # a frame sealed while this sync runs
            ta.post(ta.links[2], {"t": "heads", "h": [0, 0, 1]})
        await trio.sleep(0)
        return True

    async with trio.open_nursery() as nursery:
        nursery.start_soon(ta.pump, durable)
        ta.post(ta.links[1], {"t": "heads", "h": [0, 0, 0]})
        with trio.fail_after(5):
            while len(ta.postbox.sent) < 2:
                await trio.sleep(0.01)
        nursery.cancel_scope.cancel()
    assert syncs == [0, 1]                                   # the second envelope went out after a second sync
    assert [inbox for inbox, _ in ta.postbox.sent] == [ta.courier.inboxes[1], ta.courier.inboxes[2]]


async def test_a_pump_stopped_while_the_store_syncs_leaves_its_batch_to_the_last_push(table, tmp_path):
    """The game ends (the pump is cancelled) while the store syncs: nothing sealed is lost, the
    node's last push publishes it."""
    import trio
    from node.net.mail_links import MailTransport

    _, _, (a, _, _) = table
    ta = MailTransport(FakePostbox(), a, tmp_path)
    syncing = trio.Event()

    async def durable() -> bool:
        syncing.set()
        await trio.sleep_forever()
        return True

    async with trio.open_nursery() as nursery:
        nursery.start_soon(ta.pump, durable)
        ta.post(ta.links[1], {"t": "heads", "h": [0, 0, 0]})
        with trio.fail_after(5):
            await syncing.wait()
        nursery.cancel_scope.cancel()
    assert ta.postbox.sent == []
    await ta.push()
    assert [inbox for inbox, _ in ta.postbox.sent] == [ta.courier.inboxes[1]]
