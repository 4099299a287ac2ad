"""Issue 27, item 1: a relayed lobby nobody can hijack. Another client of the same (real,
local) Mosquitto reads the lobby id from the retained announcement and the host's inbox
from the invite, runs the project's own `Lobby` under that lobby id at that inbox to seat
the joiner in *its* game, and a raw client injects frames on every link of the lobby while
the handshakes run: forged and replayed frames, competing lobby adverts, and hellos and
auths signed by the attacker's key for exactly that link. Before the fix the joiner signed
the attacker's genesis or failed in most tries; now it joins the real host's game, every
time."""

from __future__ import annotations

import os
import struct
import threading

import msgpack
import trio

from node.net import relay
from node.net.handshake import VERSION, _hello_signed, inbox_of, pin_inbox
from node.app.lobby import Lobby, join
from node.net.relay_link import PRESEAL
from node.net.relay_url import parse_invite, parse_relay_url
from protocol.identity import SigningKey
from tests.node.conftest import games  # noqa: F401  (registers the fixture game)
from tests.helpers import timeout
from tests.relay.nodes import Outsider

TRIES = 5
OPTIONS = {"rounds": 2}


async def _connected(url, key, task_status=trio.TASK_STATUS_IGNORED):
    async with relay.connect(parse_relay_url(url), key.public) as r:
        task_status.started(r)
        await trio.sleep_forever()


class Injector(Outsider):
    """A raw broker client: at each new link of the lobby it publishes, on both directions'
    topics and at the sequence numbers the handshake uses (sealed and unsealed), random
    bytes, replays of frames it saw, a lobby advert of its own, and a hello and an auth
    signed by its key for exactly that link; and more junk at the first sealed seq than a
    link holds before it is sealed."""

    def __init__(self, url: str, lobby: str, key: SigningKey):
        super().__init__(url)
        self.lobby, self.key = lobby, key
        self.attacked: set[str] = set()
        self.injected = 0
        self.lock = threading.Lock()
        self.client.on_message = self._seen

    def _seen(self, client, userdata, msg) -> None:
        self.seen.append((msg.topic, bytes(msg.payload)))
        parts = msg.topic.split("/")
        if len(parts) != 6 or parts[2] != self.lobby:
            return
        to, frm, nonce = parts[3:]
        link = f"{frm}/{to}/{nonce}" if msg.payload[:9] == bytes(8) + b"O" else f"{to}/{frm}/{nonce}"
        with self.lock:
            if link in self.attacked:
                return
            self.attacked.add(link)
        dialer, listener, _ = link.split("/")
        replays = [p for t, p in self.seen[-20:]]
        for topic, role in ((f"caravan/v1/{self.lobby}/{listener}/{dialer}/{nonce}", "dialer"),
                            (f"caravan/v1/{self.lobby}/{dialer}/{listener}/{nonce}", "listener")):
            hello = {"t": "hello", "v": VERSION, "scope": bytes.fromhex(self.lobby), "key": self.key.public,
                     "nonce": os.urandom(32), "eph": os.urandom(32)}
            hello["sig"] = self.key.sign(_hello_signed(role, hello["scope"], link.encode(), hello))
            frames = [msgpack.packb(f, use_bin_type=True) for f in (
                hello, {"t": "auth", "sig": os.urandom(64), "hdr": os.urandom(24)},
                {"t": "lobby", "lobby": self.lobby, "game": "fixture", "title": "x", "players": 2, "seated": 1,
                 "port": None, "options": OPTIONS, "time_limit": 0})]
            for n in range(1, 5):
                for seq in (n, PRESEAL | n):
                    bodies = [os.urandom(40), *(b"D" + f for f in frames), replays[n % len(replays)][8:]]
                    for body in bodies:
                        client.publish(topic, struct.pack(">Q", seq) + body, qos=1)
                        self.injected += 1
            for _ in range(40):              # more sealed-looking junk than a link holds before it is sealed
                client.publish(topic, struct.pack(">Q", 1) + os.urandom(200), qos=1)
                self.injected += 1


async def _one_try(url: str, relays: dict) -> tuple[bytes, bytes, bytes]:
    """One real host, the attacker's lobby under its id, one joiner with the invite: the
    game ids the host and the joiner ended in, and the attacker's."""
    host_key, attacker_key = SigningKey.generate(), SigningKey.generate()
    joiner_key = SigningKey.generate()
    got: dict[str, bytes] = {}
    async with trio.open_nursery() as nursery:
        host_relay = await nursery.start(_connected, url, host_key)
        attacker_relay = await nursery.start(_connected, url, attacker_key)
        joiner_relay = await nursery.start(_connected, url, joiner_key)
        real = Lobby(host_key, "fixture", 2, OPTIONS)
        invite = parse_invite(real.invite(parse_relay_url(url)))
        host_relay.announce(real.lobby_id, real.status())

        async def host():
            got["host"] = (await real.run(host_relay.endpoint(real.lobby_id), os.urandom(32))).game_id
        nursery.start_soon(host)
        # the attacker: the lobby id from the retained announcement, the inbox from the invite
        found = await attacker_relay.lookup(real.lobby_id.hex())
        assert found is not None and found["lobby"] == real.lobby_id.hex()
        fake = Lobby(attacker_key, "fixture", 2, OPTIONS)
        fake.lobby_id = bytes.fromhex(found["lobby"])
        inbox = pin_inbox(invite.host_pin)
        assert inbox == inbox_of(host_key.public) != "host"
        await attacker_relay.subscribe(f"{relay.ROOT}/{fake.lobby_id.hex()}/{inbox}/+/+")

        async def attacker():
            got["attacker"] = (await fake.run(attacker_relay.endpoint(fake.lobby_id, inbox), os.urandom(32))).game_id
        nursery.start_soon(attacker)
        injector = Injector(url, real.lobby_id.hex(), attacker_key)
        try:
            endpoint = joiner_relay.endpoint(bytes.fromhex(invite.lobby))
            with trio.fail_after(timeout(60)):
                setup = await join(joiner_key, invite.url.host, invite.url.port, 0, os.urandom(32),
                                   relay=endpoint, host_pin=invite.host_pin)
                got["joiner"] = setup.game_id
                while "host" not in got:
                    await trio.sleep(0.05)    # a poll's pause inside a bounded wait
            relays["injected"] = relays.get("injected", 0) + injector.injected
        finally:
            injector.close()
        nursery.cancel_scope.cancel()
    return got["host"], got["joiner"], got.get("attacker", b"")


async def test_another_broker_client_cannot_seat_the_joiner_in_its_game(broker):
    counts: dict = {}
    for attempt in range(TRIES):
        host, joiner, attacker = await _one_try(broker.url, counts)
        assert joiner == host, f"try {attempt + 1}: the joiner ended in another game than the real host's"
        assert attacker == b""
    assert counts["injected"] > 100 * TRIES, counts
