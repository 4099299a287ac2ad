"""The test proxy itself (tests/relay/mqtt_proxy.py), with raw MQTT 3.1.1 and 5 clients
against a real Mosquitto: what passes it unharmed arrives intact and in order, and each
fault it is told to make is made."""

from __future__ import annotations

import hashlib
import socket
import time

import pytest

from tests.helpers import timeout
from tests.relay.mqtt_proxy import Faults, MqttProxy, Publish, _take_packet

N = 60


class Raw(socket.socket):
    """A socket with its own receive buffer."""
    buf: bytearray


def _connect(port: int, v5: bool) -> Raw:
    s = Raw()
    s.settimeout(timeout(5))
    s.connect(("127.0.0.1", port))
    var = b"\x00\x04MQTT" + bytes([5 if v5 else 4, 2, 0, 30]) + (b"\x00" if v5 else b"")
    body = var + b"\x00\x00"                                   # empty client id
    s.sendall(bytes([0x10, len(body)]) + body)
    buf = bytearray()
    assert _next(s, buf)[0] >> 4 == 2                            # CONNACK
    s.buf = buf
    return s


def _next(s: socket.socket, buf: bytearray) -> bytes:
    while (packet := _take_packet(buf)) is None:
        chunk = s.recv(65536)
        if not chunk:
            raise EOFError
        buf += chunk
    return packet


def _subscribe(s: socket.socket, topic: bytes, v5: bool) -> None:
    body = b"\x00\x01" + (b"\x00" if v5 else b"") + len(topic).to_bytes(2, "big") + topic + b"\x00"
    s.sendall(bytes([0x82, len(body)]) + body)
    while _next(s, s.buf)[0] >> 4 != 9:                          # SUBACK
        pass


def _publish(s: socket.socket, topic: bytes, payload: bytes) -> None:
    s.sendall(Publish(0, topic, b"", b"", payload).at_qos0())    # 3.1.1: no properties


def _received(s: socket.socket, v5: bool, quiet: float = 1.0) -> list[Publish]:
    """Every PUBLISH that arrives until none has for `quiet` s (scaled): nothing more is coming."""
    s.settimeout(timeout(quiet))
    out = []
    try:
        while True:
            packet = _next(s, s.buf)
            if packet[0] >> 4 == 3:
                out.append(Publish.parse(packet, v5))
    except (socket.timeout, EOFError):
        return out


def _run(broker, faults: Faults, v5: bool, topics=(b"g/a",)) -> tuple[list[Publish], MqttProxy, list[bytes]]:
    with MqttProxy(("127.0.0.1", broker.port), faults, seed=3) as proxy:
        sub = _connect(proxy.port, v5)
        _subscribe(sub, b"g/#", v5)
        pub = _connect(broker.port, False)
        sent = []
        for i in range(N):
            topic = topics[i % len(topics)]
            sent.append(b"%03d:" % i + hashlib.sha256(bytes([i])).hexdigest()[:8].encode())
            _publish(pub, topic, sent[-1])
            time.sleep(0.002)            # stays (CONTRIBUTING): the publishers' pace
        got = _received(sub, v5)
        sub.close()
        pub.close()
        return got, proxy, sent


@pytest.mark.parametrize("v5", [False, True])
def test_clean_proxy_passes_everything_in_order(broker, v5):
    got, proxy, sent = _run(broker, Faults(), v5)
    assert [p.payload for p in got] == sent and proxy.counters.injected == 0


def test_drop_duplicate_delay(broker):
    got, proxy, sent = _run(broker, Faults(drop=0.2, duplicate=0.2, delay=0.1, delay_s=(0.01, 0.03)), True)
    payloads = [p.payload for p in got]
    c = proxy.counters
    assert c.dropped > 0 and c.duplicated > 0 and c.delayed > 0
    assert len(payloads) == N - c.dropped + c.duplicated
    assert sorted(set(payloads)) == [m for m in sent if m in payloads]     # order kept
    assert len(set(payloads)) == N - c.dropped


def test_injections_are_forged_replayed_or_foreign(broker):
    got, proxy, sent = _run(broker, Faults(replay=0.2, forge=0.2, foreign=0.2), True, topics=(b"g/a", b"g/b"))
    kinds = proxy.counters.kinds
    assert kinds.get("replay") and kinds.get("forge") and kinds.get("foreign")
    assert len(got) == N + proxy.counters.injected
    forged = [p for p in got if p.payload not in sent]
    assert len(forged) == kinds["forge"]                 # one bit flipped: never a real payload (each carries its own digest)
    assert all(len(p.payload) == 12 for p in forged)
    by_topic = {}
    for p in got:
        by_topic.setdefault(p.payload, set()).add(p.topic)
    assert any(len(topics) == 2 for topics in by_topic.values())       # a payload under a foreign topic
