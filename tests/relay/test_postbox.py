"""node/net/postbox.py through a real Mosquitto with persistence (issue 33, store and forward):
envelopes sent to a seat whose node is not running wait on the broker, across a broker
restart, and arrive when it connects; one its node did not acknowledge comes again."""

from __future__ import annotations

import trio

from node.net.handshake import inbox_of
from protocol.mail.mailbox import Mailbox
from node.net.postbox import inbox_topic, open_postbox, session_expiry
from node.net.relay_url import parse_relay_url
from protocol.identity import SigningKey
from tests.helpers import timeout as scaled, wait_until_async
from tests.relay.broker import Broker
from tests.relay.mqtt_proxy import Faults, MqttProxy
from tests.relay.nodes import Outsider

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


async def test_junk_and_forgeries_waiting_in_a_postbox_are_refused_naming_why(tmp_path):
    """Anyone on the broker may publish to a seat's inbox while it is away: what is not a
    seat's envelope to it is refused (and acknowledged, so the broker forgets it); the real
    envelope behind them arrives."""
    import paho.mqtt.client as mqtt
    from paho.mqtt.enums import CallbackAPIVersion

    from protocol.mail.mailbox import MailError
    from node.net.postbox import inbox_topic

    broker = Broker(tmp_path, persistent=True).start()
    try:
        url = parse_relay_url(broker.url)
        keys = [SigningKey.generate() for _ in range(3)]
        seats = [k.public for k in keys[:2]]
        reader = Mailbox(GAME, seats, 1, keys[1])
        async with open_postbox(url, GAME, seats[1], HOUR):
            pass
        outsider = mqtt.Client(CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5)
        outsider.connect(broker.host, broker.port)
        outsider.loop_start()
        try:
            stranger = Mailbox(GAME, [keys[2].public, seats[1]], 0, keys[2])    # not seat 0's key
            topic = inbox_topic(GAME, inbox_of(seats[1]))
            for payload in (b"junk", bytes(64), stranger.seal(1, "forged")):
                outsider.publish(topic, payload, qos=1).wait_for_publish(scaled(5))
        finally:
            outsider.loop_stop()
            outsider.disconnect()
        async with open_postbox(url, GAME, seats[0], HOUR) as box:
            box.send(inbox_of(seats[1]), Mailbox(GAME, seats, 0, keys[0]).seal(1, "real"))
            assert await box.flush(scaled(10))
        async with open_postbox(url, GAME, seats[1], HOUR) as box:
            parcels = await take(box, 4)
            why = []
            for parcel in parcels:
                try:
                    letter = reader.open(parcel.envelope)
                    assert letter.body == "real" and letter.sender == 0
                except MailError as exc:
                    why.append((str(exc), exc.signer))
                box.ack(parcel)
            assert [w for w, _ in why[:2]] == ["an envelope that does not open with this seat's key (sealed to "
                                               "another key, or damaged)"] * 2
            assert "claims seat 0" in why[2][0] and "not signed by its key" in why[2][0] and why[2][1] == 0
            assert await box.drained(scaled(0.5), scaled(10))
        async with open_postbox(url, GAME, seats[1], HOUR) as box:        # all acknowledged: nothing left
            assert await box.drained(scaled(1), scaled(10))
            assert box.parcels.statistics().current_buffer_used == 0
    finally:
        broker.stop()


async def test_a_qos0_publish_to_an_online_inbox_costs_no_connection(tmp_path):
    """Anyone on the broker may publish to a seat's inbox at QoS 0: its parcel is taken like
    any other, and acknowledging it sends nothing (a PUBACK of packet id 0 is a protocol error
    for which the broker cuts the connection: a flood of them would keep the seat offline)."""
    broker = Broker(tmp_path, persistent=True).start()
    try:
        url = parse_relay_url(broker.url)
        key = SigningKey.generate()
        outsider = Outsider(broker.url)
        try:
            async with open_postbox(url, GAME, key.public, HOUR) as box:
                outsider.client.publish(inbox_topic(GAME, inbox_of(key.public)), b"junk", qos=0)
                parcel = (await take(box, 1))[0]
                assert parcel.qos == 0
                box.ack(parcel)
                box.send(inbox_of(key.public), b"after")             # the broker reads our PUBACK first
                assert await box.flush(scaled(10))
                assert (await take(box, 1))[0].envelope == b"after"
                assert box.connection == 1, "the broker cut the connection"
        finally:
            outsider.close()
    finally:
        broker.stop()


async def test_what_was_in_flight_at_a_reconnect_mid_run_arrives_after_it(tmp_path):
    """The connection breaks mid-run (MqttProxy.cut) while one envelope was delivered and not
    yet acknowledged, and another was published and lost before the broker had it: after the
    reconnect the broker delivers the first again (a duplicate to the mailbox, acknowledged on
    the new connection) and paho publishes the second again; then nothing waits any more."""
    broker = Broker(tmp_path, persistent=True).start()
    proxy = MqttProxy((broker.host, broker.port), Faults(drop=1.0, directions=("up",)), armed=False)
    try:
        url, via = parse_relay_url(broker.url), parse_relay_url(proxy.url)
        keys = [SigningKey.generate() for _ in range(2)]
        seats = [k.public for k in keys]
        sender = Mailbox(GAME, seats, 0, keys[0])
        reader = Mailbox(GAME, seats, 1, keys[1])
        async with open_postbox(via, GAME, seats[1], HOUR) as inbox, \
                open_postbox(via, GAME, seats[0], HOUR) as outbox:
            outbox.send(inbox_of(seats[1]), sender.seal(1, {"t": "msg", "i": 0}))
            assert await outbox.flush(scaled(10))
            first = (await take(inbox, 1))[0]
            assert reader.open(first.envelope).body["i"] == 0             # taken, not acknowledged
            proxy.armed.set()                                             # every PUBLISH up is lost now
            outbox.send(inbox_of(seats[1]), sender.seal(1, {"t": "msg", "i": 1}))
            await wait_until_async(lambda: proxy.counters.dropped >= 1, scaled(10), "the publish lost")
            assert outbox.unacknowledged() == 1
            proxy.armed.clear()
            proxy.cut()
            assert await outbox.flush(scaled(20)), "paho did not publish it again after the reconnect"
            assert outbox.connection == 2 and inbox.connection == 2
            parcels = await take(inbox, 2)
            letters = [reader.open(p.envelope) for p in parcels]
            assert sorted(x.body["i"] for x in letters if x is not None) == [1]
            assert sum(x is None for x in letters) == 1                  # the first, again: a duplicate
            assert all(p.connection == 2 for p in parcels)
            for p in parcels:
                inbox.ack(p)
            inbox.ack(first)                                              # from the old connection: nothing sent
            assert await inbox.drained(scaled(0.5), scaled(10))
        async with open_postbox(url, GAME, seats[1], HOUR) as inbox:
            assert await inbox.drained(scaled(0.5), scaled(10))
            assert inbox.parcels.statistics().current_buffer_used == 0, "an acknowledged envelope came again"
    finally:
        proxy.close()
        broker.stop()
