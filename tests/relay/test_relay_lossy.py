"""A lossy broker: every node's MQTT messages are duplicated or reordered at random and
some are lost. Duplicates are dropped by sequence number, frames ahead of their turn wait
for it; each loss closes its link (the frame after it waits GAP_WAIT), the node redials and
the heads resync brings what was missed. Three nodes
of a real game (in one process, each with its own broker connection) finish with the same
transcript, which verifies."""

import random

import trio

from node.net import relay, relay_link
from node.app.game import GameNode
from node.net.relay_url import parse_relay_url
from node.storage.store import GameStore
from protocol import games
from protocol.verify import verify_bytes
from tests.games.pick import quick_game
from tests.helpers import timeout
from tests.node.conftest import Cluster, bot_decider


async def test_a_game_through_a_broker_that_duplicates_reorders_and_loses_messages(tmp_path, broker, monkeypatch):
    # a reordered frame's predecessor comes within milliseconds here: a gap waits 1 s, not 4,
    # before its link is closed (9 losses took 36 s of the game)
    monkeypatch.setattr(relay_link, "GAP_WAIT", 1.0)
    rng = random.Random(7)
    fate = {"lost": 0, "doubled": 0, "swapped": 0}
    publish = relay.Relay.publish
    held: dict[str, bytes] = {}

    def lossy(self, topic, payload):
        roll = rng.random()
        if roll < 0.004 and payload[8:9] != relay.OPEN:
            fate["lost"] += 1
            return
        if roll < 0.03 and topic not in held:          # sent after the next one on its link
            held[topic] = payload
            fate["swapped"] += 1
            return
        publish(self, topic, payload)
        if topic in held:
            publish(self, topic, held.pop(topic))
        if roll > 0.95:
            fate["doubled"] += 1
            publish(self, topic, payload)

    monkeypatch.setattr(relay.Relay, "publish", lossy)
    c = Cluster(tmp_path, 3, engine=games.get(quick_game(3)), seed=3)
    url = parse_relay_url(broker.url)

    async def seat(i: int) -> None:
        async with relay.connect(url, c.keys[i].public) as r:
            store = GameStore(c.dirs[i], c.genesis.game_id)
            node = GameNode(store, c.keys[i], bot_decider(i), ("127.0.0.1", 0), {},
                            relay=r.endpoint(c.genesis.game_id))
            await node.run()
            assert node.outcome == "complete", node.outcome_text

    with trio.fail_after(timeout(180)):
        async with trio.open_nursery() as nursery:
            for i in range(3):
                nursery.start_soon(seat, i)
    assert fate["lost"] >= 1 and fate["swapped"] >= 10 and fate["doubled"] >= 20, fate
    files = [(d / "games" / c.genesis.game_id.hex() / "transcript.caravan").read_bytes() for d in c.dirs]
    assert len(set(files)) == 1
    report = verify_bytes(files[0])
    assert report.ok and report.complete, report.error
