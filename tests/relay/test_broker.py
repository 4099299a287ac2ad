"""The test broker itself: it starts, accepts MQTT connections, and stops and restarts on
the same port (the broker-outage tests rely on that)."""

import socket

from tests.helpers import timeout as scaled
from tests.relay.broker import Broker

CONNECT = bytes([0x10, 12, 0, 4]) + b"MQTT" + bytes([4, 2, 0, 10, 0, 0])   # MQTT 3.1.1, empty client id


def connack(port: int) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=scaled(5)) as s:
        s.sendall(CONNECT)
        return s.recv(4)


def test_broker_answers_and_restarts(tmp_path):
    b = Broker(tmp_path).start()
    try:
        assert connack(b.port) == bytes([0x20, 2, 0, 0])      # CONNACK, accepted
        b.stop()
        try:
            connack(b.port)
            raise AssertionError("the stopped broker still answered")
        except OSError:
            pass
        b.start()
        assert connack(b.port) == bytes([0x20, 2, 0, 0])
    finally:
        b.stop()
