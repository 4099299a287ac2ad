"""One link end in the tab, driven by the page's calls: the transport-free core
(protocol/link) fed the bytes a desktop node sent, answering the bytes to send back. A first
driver, for the tab's tests (a handshake with a desktop node, then sealed frames echoed);
a seat of a game runs on asyncio in tab_seat.py (tab_seat_ops' ops), its links over the relay
(tab_relay) still to come (issue 32, item 2)."""

from __future__ import annotations

import time
from typing import Any

import msgpack

from protocol.identity import SigningKey, fingerprint
from protocol.link.framing import TcpFraming
from protocol.link.handshake import DONE, Handshake

TIMEOUT = 30.0


class TabLink:
    """The listener's end of one TCP-framed link: a fresh key made in the tab."""

    def __init__(self, scope: bytes, link: bytes):
        self.key = SigningKey.generate()
        self.shake = Handshake(self.key, scope, dialer=False, now=time.monotonic(), timeout=TIMEOUT, link=link)
        self.framing = TcpFraming()
        self.echoed = 0

    def start(self) -> bytes:
        return self.framing.frame(self.shake.hello)

    def feed(self, data: bytes) -> bytes:
        """The desktop's bytes in; the tab's bytes out. Before the link is sealed its frames go
        to the handshake; after, each frame comes back as {"echo": frame}."""
        self.framing.feed(data)
        out = b""
        while self.framing.whole():
            frame = self.framing.next()
            if self.shake.step == DONE:
                out += self.framing.frame({"echo": frame})
                self.echoed += 1
                continue
            for answer in self.shake.receive(frame, time.monotonic()):
                out += self.framing.frame(answer)
            if self.shake.step == DONE:
                self.framing.seal(self.shake.push, self.shake.pull)
        return out

    def state(self) -> dict[str, Any]:
        peer = self.shake.peer_key
        return {"key": self.key.public.hex(), "step": self.shake.step, "echoed": self.echoed,
                "peer": fingerprint(peer) if peer else None}


_link: TabLink | None = None


def start(data: bytes | None) -> dict[str, Any]:
    """A new link end: `data` is msgpack {"scope": bytes, "link": bytes}; answers its hello's bytes."""
    global _link
    if data is None:
        return {"error": "link_start needs {scope, link} as msgpack"}
    asked = msgpack.unpackb(data, raw=False)
    _link = TabLink(asked["scope"], asked["link"])
    return {"send": _link.start().hex(), **_link.state()}


def feed(data: bytes | None) -> dict[str, Any]:
    """The desktop's bytes for the link: what to send back and where the link stands."""
    if _link is None:
        return {"error": "no link: call link_start first"}
    return {"send": _link.feed(data or b"").hex(), **_link.state()}
