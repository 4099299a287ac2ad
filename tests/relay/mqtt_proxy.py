"""A faulty or malicious broker, for tests: an MQTT-aware TCP proxy between nodes and a
real broker that drops, duplicates or delays PUBLISH packets, and injects forged, replayed
or foreign ones, on a seeded schedule.

It understands only MQTT's packet framing (fixed header + remaining length) and the
PUBLISH layout (topic, packet id, MQTT 5 properties, payload); everything else passes
through untouched. Injected packets are sent at QoS 0 so the broker never sees an
acknowledgement it did not ask for.
"""

from __future__ import annotations

import random
import socket
import threading
import time
from dataclasses import dataclass, field

from tests.helpers import timeout as scaled

PUBLISH = 3
CONNECT = 1


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        n, digit = n >> 7, n & 0x7F
        out.append(digit | (0x80 if n else 0))
        if not n:
            return bytes(out)


def _read_varint(data: bytes, at: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        byte = data[at]
        at += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            return value, at


@dataclass
class Publish:
    """One PUBLISH packet, taken apart (MQTT 3.1.1 or 5)."""
    flags: int
    topic: bytes
    packet_id: bytes          # b"" at QoS 0
    properties: bytes         # the MQTT 5 property block including its length; b"" for 3.1.1
    payload: bytes

    @classmethod
    def parse(cls, packet: bytes, v5: bool) -> "Publish":
        flags = packet[0] & 0x0F
        _, at = _read_varint(packet, 1)
        tlen = int.from_bytes(packet[at:at + 2], "big")
        topic = packet[at + 2:at + 2 + tlen]
        at += 2 + tlen
        pid = b""
        if (flags >> 1) & 3:
            pid, at = packet[at:at + 2], at + 2
        props = b""
        if v5:
            plen, end = _read_varint(packet, at)
            props, at = packet[at:end + plen], end + plen
        return cls(flags, topic, pid, props, packet[at:])

    def at_qos0(self) -> bytes:
        """This message as a QoS 0, non-retained PUBLISH (needs no acknowledgement)."""
        body = len(self.topic).to_bytes(2, "big") + self.topic + self.properties + self.payload
        return bytes([PUBLISH << 4]) + _varint(len(body)) + body


@dataclass
class Faults:
    """What the proxy does to PUBLISH packets going to the nodes ("down"), each with a
    probability per packet; `directions` may add "up" (node to broker) for drop/dup/delay."""
    drop: float = 0.0
    duplicate: float = 0.0
    delay: float = 0.0                 # probability of holding a packet back...
    delay_s: tuple[float, float] = (0.05, 0.3)   # ...this long (the stream behind it waits: order holds)
    replay: float = 0.0                # re-send an earlier message of this connection, later
    forge: float = 0.0                 # a copy of this message with its payload's bytes altered
    foreign: float = 0.0               # another connection's payload under this connection's topic
    directions: tuple[str, ...] = ("down",)


@dataclass
class Counters:
    forwarded: int = 0
    dropped: int = 0
    duplicated: int = 0
    delayed: int = 0
    injected: int = 0
    kinds: dict[str, int] = field(default_factory=dict)


class MqttProxy:
    """Listens on 127.0.0.1 (or `host`) at a free port and forwards every connection to
    `upstream`, applying `faults`. Use as a context manager or call close()."""

    def __init__(self, upstream: tuple[str, int], faults: Faults | None = None, seed: int = 0,
                 host: str = "127.0.0.1", armed: bool = True):
        self.upstream = upstream
        self.faults = faults or Faults()
        self.rng = random.Random(seed)
        self.counters = Counters()
        self.armed = threading.Event()        # faults are made only while armed (e.g. once a game started)
        if armed:
            self.armed.set()
        self._lock = threading.Lock()
        self._seen: list[Publish] = []        # every PUBLISH sent down, for replays and foreign payloads
        self._sock = socket.socket()
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._sock.bind((host, 0))
        self._sock.listen(64)
        self.host, self.port = host, self._sock.getsockname()[1]
        self._closed = False
        self._conns: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    @property
    def url(self) -> str:
        return f"mqtt://{self.host}:{self.port}"

    def __enter__(self) -> "MqttProxy":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def cut(self) -> None:
        """Break every connection made so far, as a network or broker hiccup would (the proxy
        keeps listening: the nodes reconnect through it)."""
        conns, self._conns = self._conns, []
        for s in conns:
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def close(self) -> None:
        self._closed = True
        for s in [self._sock, *self._conns]:
            try:
                s.close()
            except OSError:
                pass

    # ------------------------------------------------------------------ plumbing
    def _accept(self) -> None:
        while not self._closed:
            try:
                client, _ = self._sock.accept()
            except OSError:
                return
            try:
                broker = socket.create_connection(self.upstream, timeout=scaled(5))
                broker.settimeout(None)
            except OSError:
                client.close()
                continue
            self._conns += [client, broker]
            link = _Link(self, client, broker)
            threading.Thread(target=link.pump, args=(client, broker, "up"), daemon=True).start()
            threading.Thread(target=link.pump, args=(broker, client, "down"), daemon=True).start()

    def _roll(self, p: float) -> bool:
        with self._lock:
            return p > 0 and self.rng.random() < p

    def _count(self, what: str) -> None:
        with self._lock:
            setattr(self.counters, what, getattr(self.counters, what) + 1)

    def _inject_kind(self, kind: str) -> None:
        with self._lock:
            self.counters.injected += 1
            self.counters.kinds[kind] = self.counters.kinds.get(kind, 0) + 1


class _Link:
    """One node's connection through the proxy."""

    def __init__(self, proxy: MqttProxy, client: socket.socket, broker: socket.socket):
        self.proxy = proxy
        self.client = client
        self.v5 = False
        self.send_lock = {id(client): threading.Lock(), id(broker): threading.Lock()}
        self.mine: list[Publish] = []

    def _send(self, sock: socket.socket, data: bytes) -> None:
        with self.send_lock[id(sock)]:
            sock.sendall(data)

    def pump(self, src: socket.socket, dst: socket.socket, direction: str) -> None:
        buf = bytearray()
        try:
            while True:
                chunk = src.recv(65536)
                if not chunk:
                    break
                buf += chunk
                while (packet := _take_packet(buf)) is not None:
                    self._handle(packet, dst, direction)
        except OSError:
            pass
        finally:
            for s in (src, dst):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def _handle(self, packet: bytes, dst: socket.socket, direction: str) -> None:
        p, f = self.proxy, self.proxy.faults
        kind = packet[0] >> 4
        if kind == CONNECT:
            _, at = _read_varint(packet, 1)
            name_len = int.from_bytes(packet[at:at + 2], "big")
            self.v5 = packet[at + 2 + name_len] == 5
        active = kind == PUBLISH and p.armed.is_set() and direction in f.directions
        if kind == PUBLISH and direction == "down":
            pub = Publish.parse(packet, self.v5)
            with p._lock:
                p._seen.append(pub)
            self.mine.append(pub)
        if active:
            if p._roll(f.drop):
                p._count("dropped")
                return
            if p._roll(f.delay):
                p._count("delayed")
                time.sleep(p.rng.uniform(*f.delay_s))      # the delay fault itself (CONTRIBUTING)
        self._send(dst, packet)
        p._count("forwarded")
        if not active:
            return
        if p._roll(f.duplicate):
            p._count("duplicated")
            self._send(dst, bytes([packet[0] | 0x08]) + packet[1:] if (packet[0] >> 1) & 3 else packet)
        if direction != "down":
            return
        pub = self.mine[-1]
        if p._roll(f.replay) and len(self.mine) > 1:
            old = self.mine[p.rng.randrange(len(self.mine) - 1)]
            self._send(dst, old.at_qos0())
            p._inject_kind("replay")
        if p._roll(f.forge) and pub.payload:
            payload = bytearray(pub.payload)
            i = p.rng.randrange(len(payload))
            payload[i] ^= 1 << p.rng.randrange(8)
            self._send(dst, Publish(0, pub.topic, b"", pub.properties, bytes(payload)).at_qos0())
            p._inject_kind("forge")
        if p._roll(f.foreign):
            with p._lock:
                others = [q for q in p._seen if q.topic != pub.topic and q.payload]
            if others:
                other = others[p.rng.randrange(len(others))]
                self._send(dst, Publish(0, pub.topic, b"", pub.properties, other.payload).at_qos0())
                p._inject_kind("foreign")


def _take_packet(buf: bytearray) -> bytes | None:
    """Remove and return the first whole MQTT packet in buf, or None if it is incomplete."""
    if len(buf) < 2:
        return None
    length = shift = 0
    at = 1
    while True:
        if at >= len(buf):
            return None
        byte = buf[at]
        at += 1
        length |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            break
        if at > 4:
            raise OSError("malformed MQTT remaining length")
    if len(buf) < at + length:
        return None
    packet = bytes(buf[:at + length])
    del buf[:at + length]
    return packet
