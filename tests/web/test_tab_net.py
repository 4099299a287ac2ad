"""The tab reaches a real broker (issue 32, item 2): mqtt.js in the tab's worker, over the
browser's WebSocket, to Mosquitto's websockets listener; a desktop node's relay (paho over
TCP, node/net/relay.py) on the same broker.

Why this is safe to run on a shared machine: Mosquitto 2.0 binds its websockets listener on
every address whatever the configuration says (tests/relay/netns.py), so the broker runs in a
network namespace the test makes, with only its loopback up; Chromium and the desktop relay
reach its two listeners through forwarders that listen on the machine's 127.0.0.1 only.

The tab dials the desktop node's inbox and completes a relay link on the transport-free core
(protocol/link: RelayFrames and the handshake, as node/net/relay_link.py drives them): each
side proves its key to the other, sealed frames go both ways, and a forged frame injected on
the tab's topic is refused by the tab, which names the link and the peer."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import socket
import struct
import time
from functools import partial

import msgpack
import pytest
import trio

from node.net import relay as desk_relay
from node.net.handshake import handshake, inbox_of
from node.net.relay_url import RelayUrl
from protocol.identity import SigningKey, fingerprint
from tests.helpers import timeout as scaled
from tests.relay.broker import Broker
from tests.relay.netns import forward, namespace
from tests.web.tab_page import CALL, open_tab, tab_module
from tests.web.tab_fixtures import TCP_PORT, WS_PORT, namespaced_broker
from tests.web.tab_fixtures import bundle, driver, server  # noqa: F401 - fixtures

pytestmark = pytest.mark.xdist_group("tab")

PASSWORD = "s3cret-Pw-4-ann"


@pytest.fixture(scope="module")
def broker(tmp_path_factory):
    """Mosquitto in a namespace of its own: (its TCP URL, its ws:// URL), both on the machine's 127.0.0.1."""
    with namespaced_broker(tmp_path_factory.mktemp("broker"), "cvrtab") as (tcp, ws, _):
        yield tcp, ws


@pytest.fixture(scope="module")
def login_broker(tmp_path_factory):
    """A second Mosquitto, in a namespace of its own, that takes only USER ann with her
    password: its ws:// URL (without the login)."""
    with namespaced_broker(tmp_path_factory.mktemp("login-broker"), "cvrtlg", users={"ann": PASSWORD}) as (_, ws, _b):
        yield ws


@pytest.fixture(scope="module")
def tab(driver, server):  # noqa: F811
    ready = open_tab(driver, server)
    assert ready["ok"], ready
    return driver


def run(driver, op: str, args=None, packed: bytes | None = None) -> dict:
    """The worker's `op` (msgpack args in): its answer, or {"error": ...} as the page got it."""
    import base64
    data = packed if packed is not None else (None if args is None else msgpack.packb(args, use_bin_type=True))
    got = driver.execute_async_script(CALL, op, None if data is None else base64.b64encode(data).decode())
    return got["result"] if got["ok"] else {"error": got["error"]}


async def call_from_trio(driver, op: str, args=None, packed: bytes | None = None) -> dict:
    """`run` from trio code: in a thread, while trio's tasks (a desktop relay) go on."""
    return await trio.to_thread.run_sync(partial(run, driver, op, args, packed))


def frame(answer: dict):
    """The value of the frame a relay_recv answer carries."""
    assert "frame" in answer, answer
    return msgpack.unpackb(bytes.fromhex(answer["frame"]))


def test_a_non_websocket_broker_url_is_one_clear_line(tab):
    answer = run(tab, "broker_connect", {"url": "mqtt://127.0.0.1:1883"})
    assert "a tab reaches a broker by ws:// or wss:// only" in answer["error"], answer
    assert "Traceback" not in answer["error"]


def test_an_unreachable_broker_is_one_clear_line(tab):
    with socket.socket() as s:                        # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        url = f"ws://127.0.0.1:{s.getsockname()[1]}/mqtt"
    answer = run(tab, "broker_connect", {"url": url, "timeout": 2})
    assert answer == {"error": f"broker_connect: the broker {url} did not answer within 2 s"}, answer


def test_a_broker_login_goes_to_the_broker_and_nowhere_else(tab, login_broker):
    """A refusal is one line naming the broker without the login; with the right password
    the tab connects, and no answer shows the password."""
    with_login = login_broker.replace("ws://", "ws://ann:{}@")
    refused = run(tab, "broker_connect", {"url": with_login.format("wrong-password"), "timeout": 5})
    assert refused["error"].startswith(f"broker_connect: the broker {login_broker} refused this tab: "), refused
    assert "wrong-password" not in refused["error"]
    connected = run(tab, "broker_connect", {"url": with_login.format(PASSWORD)})
    assert connected.get("connected") == login_broker, connected
    assert PASSWORD not in json.dumps(connected)
    mistyped = run(tab, "broker_connect", {"url": f"mqtt://ann:{PASSWORD}@127.0.0.1:1883"})
    assert mistyped == {"error": "broker_connect: mqtt://127.0.0.1:1883: a tab reaches a broker by ws:// or wss:// "
                                 "only (the broker's websockets listener)"}, mistyped


def test_the_tabs_message_queue_is_bounded():
    """Messages wait for Python in a queue bounded in count and bytes; a topic with a taker
    (a relay link's) is not queued. Run by CPython on the module the tab runs."""
    tab_broker = tab_module("tab_broker")

    class Payload:                                   # what mqtt.js hands over: a Uint8Array's proxy
        def __init__(self, data: bytes):
            self.data = data

        def to_bytes(self) -> bytes:
            return self.data

    broker = tab_broker.TabBroker(max_queued=3, max_bytes=100)
    for i in range(5):
        broker._received("t", Payload(bytes([i]) * 2))
    assert (len(broker.queue), broker.dropped) == (3, 2)
    broker = tab_broker.TabBroker(max_queued=100, max_bytes=10)
    for size in (4, 4, 4, 2):
        broker._received("t", Payload(b"x" * size))
    assert ([len(d) for _, d in broker.queue], broker.dropped) == ([4, 4, 2], 1)
    taken: list[bytes] = []
    broker.routes["link"] = taken.append
    broker._received("link", Payload(b"frame"))
    assert taken == [b"frame"] and len(broker.queue) == 3

    async def drain() -> list:
        return [await broker.next_message(1.0) for _ in range(4)]

    got = asyncio.run(drain())
    assert got[:3] == [("t", b"xxxx"), ("t", b"xxxx"), ("t", b"xx")] and got[3] is None
    assert broker.queued_bytes == 0


def test_the_tab_links_with_a_desktop_relay_through_the_broker(tab, broker):
    tcp_url, ws_url = broker
    desk_key = SigningKey.generate()
    scope = os.urandom(32)
    seen: dict = {}
    proven = trio.Event()

    async def desk_side(link) -> None:
        seen["peer"] = await handshake(link, desk_key, scope, dialer=False)
        proven.set()
        await link.send({"from": "desk", "n": 0})
        while (frame := await link.recv()) is not None:
            if frame == {"inject": True}:            # a forged frame first, at the seq the next real one takes
                link._publish(struct.pack(">Q", link._out_seq) + os.urandom(48))
                await link.send({"after": "forgery"})
                continue
            await link.send({"echo": frame})

    async def main() -> None:
        async with desk_relay.connect(tcp_url, desk_key.public, scopes=[scope]) as relay:
            endpoint = relay.endpoint(scope)
            async with trio.open_nursery() as nursery:
                await nursery.start(endpoint.serve, desk_side)
                tab_call = partial(call_from_trio, tab)
                connected = await tab_call("broker_connect", {"url": ws_url})
                assert connected.get("connected") == ws_url, connected
                dialled = await tab_call("relay_dial", {"scope": scope, "peer": inbox_of(desk_key.public)})
                assert dialled.get("peer") == fingerprint(desk_key.public), dialled
                await proven.wait()                      # the desk takes the tab's auth a moment later
                assert fingerprint(seen["peer"]) == connected["key"] == dialled["key"]   # the tab's key, proven
                first = await tab_call("relay_recv", {"timeout": scaled(10)})
                assert frame(first) == {"from": "desk", "n": 0}, first
                for value in ({"n": 1}, {"n": [2, b"x" * 300]}):
                    await tab_call("relay_send", packed=msgpack.packb(value, use_bin_type=True))
                    echoed = await tab_call("relay_recv", {"timeout": scaled(10)})
                    assert frame(echoed) == {"echo": value}, echoed
                assert echoed["forged"] == 0 and echoed["log"] == []
                await tab_call("relay_send", packed=msgpack.packb({"inject": True}))
                after = await tab_call("relay_recv", {"timeout": scaled(10)})
                assert frame(after) == {"after": "forgery"}, after
                assert after["forged"] == 1, after
                [line] = after["log"]
                assert "refused a frame that fails authentication" in line and after["address"] in line, line
                assert fingerprint(desk_key.public) in line, line
                await tab_call("relay_send", packed=msgpack.packb({"n": 3}))      # the link goes on
                echoed = await tab_call("relay_recv", {"timeout": scaled(10)})
                assert frame(echoed) == {"echo": {"n": 3}}, echoed
                nursery.cancel_scope.cancel()

    async def bounded() -> None:
        with trio.fail_after(scaled(120)):
            await main()

    trio.run(bounded)


def test_a_desktop_relay_dials_the_tab_which_serves_its_inbox(tab, broker):
    """The tab listens on its inbox (as a host's node does): a desktop node dials it, the
    tab accepts, and the handshake proves each key to the other; frames go both ways."""
    tcp_url, ws_url = broker
    desk_key = SigningKey.generate()
    scope = os.urandom(32)

    async def main() -> None:
        async with desk_relay.connect(tcp_url, desk_key.public, scopes=[scope]) as relay:
            tab_call = partial(call_from_trio, tab)
            connected = await tab_call("broker_connect", {"url": ws_url})
            listening = await tab_call("relay_listen", {"scope": scope})
            assert listening == {"inbox": connected["inbox"], "key": connected["key"]}, listening
            link = await relay.endpoint(scope).dial(listening["inbox"])
            accepted: dict = {}

            async def tab_accepts() -> None:
                accepted.update(await tab_call("relay_accept", {"timeout": scaled(20)}))

            async with trio.open_nursery() as nursery:
                nursery.start_soon(tab_accepts)
                peer = await handshake(link, desk_key, scope, dialer=True)
            assert fingerprint(peer) == connected["key"]
            assert accepted.get("peer") == fingerprint(desk_key.public), accepted
            await link.send({"n": 1})
            assert frame(await tab_call("relay_recv", {"timeout": scaled(10)})) == {"n": 1}
            await tab_call("relay_send", packed=msgpack.packb({"back": [1, b"y"]}, use_bin_type=True))
            assert await link.recv() == {"back": [1, b"y"]}
            await link.aclose()
            assert (await tab_call("relay_recv", {"timeout": scaled(10)}))["frame"] is None   # the desk closed it

    async def bounded() -> None:
        with trio.fail_after(scaled(120)):
            await main()

    trio.run(bounded)


def test_a_lost_broker_connection_fails_the_link_in_one_line(tab, tmp_path):
    """The way to the broker goes (a phone off the network): the tab's link fails, saying
    so, as a desktop's does (its node then redials and resyncs)."""
    desk_key = SigningKey.generate()
    scope = os.urandom(32)
    with namespace("cvrtlo") as prefix, contextlib.ExitStack() as stack:
        b = Broker(tmp_path, host="127.0.0.1", port=TCP_PORT, prefix=prefix, websockets_port=WS_PORT).start()
        stack.callback(b.stop)
        tcp = stack.enter_context(forward(prefix, TCP_PORT))
        ws_way = contextlib.ExitStack()
        ws_url = f"ws://127.0.0.1:{ws_way.enter_context(forward(prefix, WS_PORT))}/mqtt"
        stack.callback(ws_way.close)

        async def desk_side(link) -> None:
            await handshake(link, desk_key, scope, dialer=False)
            while await link.recv() is not None:
                pass

        async def main() -> None:
            async with desk_relay.connect(RelayUrl("127.0.0.1", tcp), desk_key.public, scopes=[scope]) as relay:
                async with trio.open_nursery() as nursery:
                    await nursery.start(relay.endpoint(scope).serve, desk_side)
                    tab_call = partial(call_from_trio, tab)
                    assert (await tab_call("broker_connect", {"url": ws_url})).get("connected") == ws_url
                    dialled = await tab_call("relay_dial", {"scope": scope, "peer": inbox_of(desk_key.public)})
                    assert dialled.get("peer") == fingerprint(desk_key.public), dialled
                    ws_way.close()                           # the way to the broker is gone
                    lost = await tab_call("relay_recv", {"timeout": scaled(30)})
                    assert lost["error"] == f"relay_recv: the connection to the broker {ws_url} was lost", lost
                    nursery.cancel_scope.cancel()

        async def bounded() -> None:
            with trio.fail_after(scaled(120)):
                await main()

        trio.run(bounded)
    assert run(tab, "broker_close").get("closed") == ws_url     # (a connection that lost its broker closes at once)


def test_a_session_keeps_qos1_messages_while_the_tab_is_away(tab, broker):
    """clean start false and a session expiry: what was published while the tab was not
    connected waits on the broker, and comes when it is back."""
    tcp_url, ws_url = broker
    client_id, topic = f"caravan-tab-test-{os.getpid()}", f"caravan/v1/test/{os.urandom(4).hex()}"
    asked = {"url": ws_url, "client_id": client_id, "clean_start": False, "session_expiry": 300}
    assert run(tab, "broker_connect", asked).get("connected") == ws_url
    assert run(tab, "broker_subscribe", {"topic": topic, "qos": 1}) == {"granted": 1}
    assert run(tab, "broker_close").get("closed") == ws_url
    import paho.mqtt.client as mqtt
    from paho.mqtt.enums import CallbackAPIVersion
    other = mqtt.Client(CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5)
    other.connect(tcp_url.host, tcp_url.port)
    other.loop_start()
    try:
        other.publish(topic, b"while away", qos=1).wait_for_publish(scaled(10))
    finally:
        other.disconnect()
        other.loop_stop()
    assert run(tab, "broker_connect", asked).get("connected") == ws_url
    got = run(tab, "broker_next", {"timeout": scaled(10)})
    assert got["message"] == {"topic": topic, "payload": b"while away".hex()}, got
    run(tab, "broker_publish", {"topic": topic, "payload": b"own", "qos": 0})
    got = run(tab, "broker_next", {"timeout": scaled(10)})
    assert got["message"] == {"topic": topic, "payload": b"own".hex()}, got
    started = time.monotonic()
    assert run(tab, "broker_next", {"timeout": 0.5})["message"] is None and time.monotonic() - started < scaled(10)
