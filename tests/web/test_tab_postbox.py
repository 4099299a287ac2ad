"""The tab's postbox (clients/tab/py/tab_postbox.py, issue 33) in Chromium, with a real Mosquitto
that keeps its sessions (persistence) in a network namespace of its own: a desktop postbox
(node/net/postbox.py, paho over TCP) and the tab's (mqtt.js over the broker's websockets
listener) exchange envelopes both ways under the same names; envelopes sent while the tab's
postbox is closed wait on the broker; a parcel the tab did not acknowledge comes again, an
acknowledged one does not; junk at QoS 0 is taken and never acknowledged (the connection is not
cut); the inbox queue's bound drops and counts, and what it dropped comes again; a broker that
lost the seat's session says so after the reconnect, and the postbox goes on."""

from __future__ import annotations

import os
from functools import partial

import paho.mqtt.client as mqtt
import pytest
import trio
from paho.mqtt.enums import CallbackAPIVersion

from node.net.handshake import inbox_of
from node.net.postbox import open_postbox
from node.net.relay import lobby_topic
from protocol.identity import SigningKey
from protocol.mail.postbox_names import inbox_topic
from tests.helpers import timeout as scaled, wait_until
from tests.relay.nodes import Outsider
from tests.web.tab_fixtures import namespaced_broker
from tests.web.tab_fixtures import bundle, driver, server  # noqa: F401 - fixtures
from tests.web.test_tab_net import call_from_trio, run, tab  # noqa: F401 - tab: a fixture

pytestmark = pytest.mark.xdist_group("tab")

HOUR = 3600


@pytest.fixture(scope="module")
def broker(tmp_path_factory):
    """Mosquitto with persistence in a namespace of its own: (its TCP URL, its ws:// URL)."""
    with namespaced_broker(tmp_path_factory.mktemp("postbox-broker"), "cvrtpb", persistent=True) as (tcp, ws, _):
        yield tcp, ws


def bounded(main) -> None:
    async def run_main() -> None:
        with trio.fail_after(scaled(120)):
            await main()
    trio.run(run_main)


def opened(tab, ws: str, game: bytes, **more) -> dict:
    answer = run(tab, "postbox_open", {"url": ws, "game": game, "time_limit": HOUR, **more})
    assert answer.get("ready") is True, answer
    return answer


def take(tab, count: int) -> list[dict]:
    """The next `count` parcels the tab's postbox gives (each within a bounded wait)."""
    parcels = []
    for _ in range(count):
        got = run(tab, "postbox_next", {"timeout": scaled(10)})
        assert got.get("parcel") is not None, got
        parcels.append(got["parcel"])
    return parcels


def envelope(parcel: dict) -> bytes:
    return bytes.fromhex(parcel["envelope"])


def ack(tab, parcel: dict) -> bool:
    answer = run(tab, "postbox_ack", {"connection": parcel["connection"], "mid": parcel["mid"]})
    assert "acked" in answer, answer
    return answer["acked"]


def desk_sends(tcp, game: bytes, inbox: str, envelopes: list[bytes]) -> None:
    """A desktop seat's postbox sends `envelopes` to `inbox` and waits for the broker's acks."""
    key = SigningKey.generate()

    async def main() -> None:
        async with open_postbox(tcp, game, key.public, HOUR) as box:
            for e in envelopes:
                box.send(inbox, e)
            assert await box.flush(scaled(10))
    bounded(main)


def test_a_desktop_and_the_tab_exchange_envelopes_through_their_postboxes(tab, broker):
    """Both ways, under the same inbox topics (protocol/mail/postbox_names); the tab's flush waits for the broker's acks; its retained publish carries its expiry."""
    tcp, ws = broker
    game, desk = os.urandom(32), SigningKey.generate()
    retained: list = []
    watcher = mqtt.Client(CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5)
    watcher.on_message = lambda c, u, m: retained.append((bytes(m.payload), m.retain, m.properties))

    async def main() -> None:
        call = partial(call_from_trio, tab)
        async with open_postbox(tcp, game, desk.public, HOUR) as box:
            mine = await call("postbox_open", {"url": ws, "game": game, "time_limit": HOUR})
            assert mine["ready"] and mine["session_present"] is False and mine["connection"] == 1, mine
            assert mine["topic"] == inbox_topic(game, mine["inbox"])
            box.send(mine["inbox"], b"to the tab")
            assert await box.flush(scaled(10))
            got = await call("postbox_next", {"timeout": scaled(10)})
            assert envelope(got["parcel"]) == b"to the tab" and got["parcel"]["qos"] == 1, got
            assert got["parcel"]["redelivered"] is False
            assert await trio.to_thread.run_sync(ack, tab, got["parcel"]) is True
            await call("postbox_send", {"inbox": inbox_of(desk.public), "envelope": b"to the desk"})
            await call("postbox_retain", {"topic": lobby_topic(game), "payload": b"lobby", "expiry": 600})
            flushed = await call("postbox_flush", {"timeout": scaled(10)})
            assert flushed["flushed"] is True and flushed["unacknowledged"] == 0, flushed
            with trio.fail_after(scaled(10)):
                parcel = await box.parcels.receive()
            box.took(parcel)
            assert parcel.envelope == b"to the desk"
            box.ack(parcel)
            assert (await call("postbox_close")).get("closed") == ws

    bounded(main)
    watcher.connect(tcp.host, tcp.port)
    watcher.subscribe(lobby_topic(game), qos=1)
    watcher.loop_start()
    try:
        wait_until(lambda: retained, 10, "the tab's retained announcement")
    finally:
        watcher.disconnect()
        watcher.loop_stop()
    [(payload, was_retained, props)] = retained
    assert payload == b"lobby" and was_retained
    assert 0 < props.MessageExpiryInterval <= 600


def test_envelopes_wait_while_the_tab_is_away_and_an_unacknowledged_one_comes_again(tab, broker):
    tcp, ws = broker
    game = os.urandom(32)
    first = opened(tab, ws, game)                                 # the tab's seat's session is made
    assert first["session_present"] is False
    run(tab, "postbox_close")
    desk_sends(tcp, game, first["inbox"], [b"e0", b"e1", b"e2"])   # while the tab is away
    back = opened(tab, ws, game)
    assert back["session_present"] is True, back
    parcels = take(tab, 3)
    assert [envelope(p) for p in parcels] == [b"e0", b"e1", b"e2"]
    assert ack(tab, parcels[0]) and ack(tab, parcels[1])          # the third: not taken yet
    assert run(tab, "postbox_drained", {"quiet": scaled(0.5), "timeout": scaled(10)})["drained"] is True
    run(tab, "postbox_close")
    opened(tab, ws, game)
    [again] = take(tab, 1)
    assert envelope(again) == b"e2" and again["redelivered"] is True, again
    assert ack(tab, again)
    run(tab, "postbox_close")
    opened(tab, ws, game)
    nothing = run(tab, "postbox_next", {"timeout": scaled(1)})
    assert nothing["parcel"] is None, nothing                    # the acknowledged ones do not come again
    run(tab, "postbox_close")


def test_junk_at_qos0_is_taken_and_never_acknowledged(tab, broker):
    """Anyone may publish to a seat's inbox at QoS 0: the tab takes it (its mailbox refuses it)
    and sends no PUBACK for it (one of number 0 would make the broker cut the connection)."""
    tcp, ws = broker
    game = os.urandom(32)
    mine = opened(tab, ws, game)
    outsider = Outsider(f"mqtt://{tcp.host}:{tcp.port}")
    try:
        outsider.client.publish(mine["topic"], b"junk", qos=0).wait_for_publish(scaled(5))
    finally:
        outsider.close()
    [junk] = take(tab, 1)
    assert envelope(junk) == b"junk" and junk["qos"] == 0 and junk["mid"] == 0, junk
    assert ack(tab, junk) is False
    desk_sends(tcp, game, mine["inbox"], [b"real"])
    [real] = take(tab, 1)
    assert envelope(real) == b"real" and real["connection"] == 1, real     # the same connection: not cut
    assert ack(tab, real) is True
    state = run(tab, "postbox_state")
    assert state["connection"] == 1 and "close" not in state["events"] and state["log"] == [], state
    run(tab, "postbox_close")


def test_the_inbox_queue_bound_drops_counts_and_what_it_dropped_comes_again(tab, broker):
    tcp, ws = broker
    game = os.urandom(32)
    mine = opened(tab, ws, game, max_queued=3)
    sent = [b"n%d" % i for i in range(5)]
    desk_sends(tcp, game, mine["inbox"], sent)
    drained = run(tab, "postbox_drained", {"quiet": scaled(0.5), "timeout": scaled(10)})
    assert drained["drained"] is True and drained["queued"] == 3 and drained["dropped"] == 2, drained
    kept = take(tab, 3)
    assert [envelope(p) for p in kept] == sent[:3]
    for p in kept:
        assert ack(tab, p), (p, run(tab, "postbox_state"))
    run(tab, "postbox_close")
    opened(tab, ws, game)
    again = take(tab, 2)                                          # never acknowledged: sent again
    assert sorted(envelope(p) for p in again) == sent[3:], again
    for p in again:
        assert ack(tab, p), (p, run(tab, "postbox_state"))
    run(tab, "postbox_close")


def test_a_broker_that_lost_the_session_is_named_after_the_reconnect(tab, tmp_path):
    """A broker restarted without its store: mqtt.js reconnects (subscribing again), the tab's
    postbox says in one line that what waited is lost, and takes envelopes again."""
    with namespaced_broker(tmp_path, "cvrtpl") as (tcp, ws, b):
        game = os.urandom(32)
        mine = opened(tab, ws, game)
        b.stop()
        b.start()
        wait_until(lambda: run(tab, "postbox_state")["connection"] == 2, 20, "the tab's postbox reconnecting")
        back = run(tab, "postbox_drained", {"quiet": scaled(0.5), "timeout": scaled(20)})
        assert back["drained"] is True and back["ready"] is True, back
        [lost, gone] = back["log"]
        assert f"connection to {ws} lost; reconnecting" in lost, back
        assert f"the broker {ws} no longer held this seat's session" in gone, back
        desk_sends(tcp, game, mine["inbox"], [b"after"])
        [after] = take(tab, 1)
        assert envelope(after) == b"after" and after["connection"] == 2, after
        assert ack(tab, after)
        run(tab, "postbox_close")
