"""MQTT over websockets (issue 32: the listener a browser tab reaches the broker through): a
host whose relay is `ws://` and a friend on the same broker's plain TCP listener play a
whole game, and both transcripts verify. Mosquitto's websockets listener binds every
address whatever its configuration says, so the broker and the nodes run in a network
namespace the test makes (only its loopback is up), never on the machine's own addresses."""

from __future__ import annotations

import pytest

from protocol import games
from protocol.verify import verify_bytes
from tests.fixture_game import ENGINE
from tests.node.procs import finish, node, read_until
from tests.relay import netns
from tests.relay.broker import Broker

WS_PORT = 9001
"""Inside the test's own namespace: nothing else listens there."""


@pytest.fixture
def namespace():
    """A network namespace with only its loopback up (tests/relay/netns.py), removed afterwards."""
    with netns.namespace("cvrws") as prefix:
        yield prefix


def test_a_websockets_host_and_a_tcp_friend_play_through_one_broker(tmp_path, namespace):
    broker = Broker(tmp_path, host="127.0.0.1", port=1883, prefix=namespace)
    broker.conf.write_text(broker.conf.read_text() + f"listener {WS_PORT}\nprotocol websockets\n")
    broker.start()
    dirs, logs = [tmp_path / "host", tmp_path / "friend"], [tmp_path / "host.log", tmp_path / "friend.log"]
    procs = []
    try:
        procs.append(node(["host", "fixture", "--players", "2", "--relay", f"ws://127.0.0.1:{WS_PORT}", "--bot",
                           "random", "--no-discovery"], dirs[0], logs[0], prefix=namespace))
        invite = read_until(procs[0], "invite", timeout=30)["invite"]
        assert invite.startswith(f"caravan+ws://127.0.0.1:{WS_PORT}/"), invite
        tcp_invite = invite.replace(f"caravan+ws://127.0.0.1:{WS_PORT}/", "caravan+mqtt://127.0.0.1:1883/")
        procs.append(node(["join", tcp_invite, "--bot", "random", "--seed", "1"], dirs[1], logs[1], prefix=namespace))
        game_id = read_until(procs[0], "genesis", timeout=60)["game_id"]
        codes = finish(procs, timeout=120)
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
        broker.stop()
    assert codes == [0, 0], [log.read_text()[-2000:] for log in logs]
    files = [(d / "games" / game_id / "transcript.caravan").read_bytes() for d in dirs]
    games.register(ENGINE)
    assert files[0] == files[1] and verify_bytes(files[0]).ok
