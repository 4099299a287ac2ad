"""node/postbox.py through a real Mosquitto with persistence (issue 33, store and forward):
envelopes sent to a seat whose node is not running wait on the broker, across a broker
restart, and arrive when it connects; one its node did not acknowledge comes again."""

from __future__ import annotations

import trio

from node.handshake import inbox_of
from node.mailbox import Mailbox
from node.postbox import open_postbox, session_expiry
from node.relay_url import parse_relay_url
from protocol.identity import SigningKey
from tests.helpers import timeout as scaled
from tests.relay.broker import Broker

GAME = bytes(range(32))
HOUR = 3600


async def take(box, count: int) -> list:
    parcels = []
    with trio.fail_after(scaled(10)):
        while len(parcels) < count:
            parcels.append(await box.parcels.receive())
    return parcels


async def test_envelopes_wait_for_an_offline_seat_across_a_broker_restart(tmp_path):
    broker = Broker(tmp_path, persistent=True).start()
    try:
        url = parse_relay_url(broker.url)
        keys = [SigningKey.generate() for _ in range(2)]
        seats = [k.public for k in keys]
        sender = Mailbox(GAME, seats, 0, keys[0])
        reader = Mailbox(GAME, seats, 1, keys[1])
        async with open_postbox(url, GAME, seats[1], HOUR) as box:    # seat 1's session is made
            assert box.session_present is False
        async with open_postbox(url, GAME, seats[0], HOUR) as box:    # seat 1 is offline now
            for i in range(3):
                box.send(inbox_of(seats[1]), sender.seal(1, {"t": "msg", "i": i}))
            assert await box.flush(scaled(10))
            assert box.unacknowledged() == 0
        broker.stop()                                                 # saves its store ...
        broker.start()                                                # ... and loads it again
        async with open_postbox(url, GAME, seats[1], HOUR) as box:
            assert box.session_present is True
            parcels = await take(box, 3)
            letters = [reader.open(p.envelope) for p in parcels]
            assert [x.body["i"] for x in letters] == [0, 1, 2]
            assert all(x.sender == 0 for x in letters)
            box.ack(parcels[0])
            box.ack(parcels[1])                                       # the third: not taken yet
            assert await box.drained(scaled(0.5), scaled(10))
        async with open_postbox(url, GAME, seats[1], HOUR) as box:
            again = await take(box, 1)
            assert again[0].envelope == parcels[2].envelope           # it came again ...
            assert reader.open(again[0].envelope) is None             # ... and is a duplicate now
            box.ack(again[0])
            assert await box.drained(scaled(0.5), scaled(10))
        async with open_postbox(url, GAME, seats[1], HOUR) as box:
            assert await box.drained(scaled(1), scaled(10))
            assert box.parcels.statistics().current_buffer_used == 0  # nothing left waiting
    finally:
        broker.stop()


async def test_a_broker_that_lost_its_store_is_named(tmp_path):
    broker = Broker(tmp_path).start()                                  # no persistence
    try:
        url = parse_relay_url(broker.url)
        key = SigningKey.generate()
        async with open_postbox(url, GAME, key.public, HOUR) as box:
            pass
        broker.stop()
        broker.start()
        async with open_postbox(url, GAME, key.public, HOUR) as box:
            assert box.session_present is False                       # a fresh session: the loss shows
    finally:
        broker.stop()


def test_a_session_outlives_the_time_per_move():
    assert session_expiry(24 * HOUR) > 4 * 24 * HOUR
    assert session_expiry(14 * 24 * HOUR) < 2 ** 32
