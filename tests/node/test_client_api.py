"""The client API: JSON lines; invalid answers get an error and a second chance; a bot
process (--bot-cmd) plays a whole game."""

import sys

import trio
import trio.testing

from node.app.client_api import ClientDecider, LineChannel, spawn_bot
from node.app.game import GameNode
from node.storage.store import GameStore
from protocol.verify import verify_bytes
from tests.helpers import timeout
from tests.node.conftest import Cluster
from tests.node.procs import ROOT


async def test_invalid_answers_get_an_error_and_another_try():
    node_side, client_side = trio.testing.memory_stream_pair()
    decider = ClientDecider(LineChannel(node_side, node_side))
    client = LineChannel(client_side, client_side)
    async with trio.open_nursery() as nursery:
        result = {}

        async def ask():
            result["action"] = await decider({"score": 1}, ["keep", ["bonus", 2]], "act")
        nursery.start_soon(ask)
        msg = await client.recv()
        assert msg["type"] == "decide" and msg["kind"] == "act" and msg["view"] == {"score": 1}
        assert [a["action"] for a in msg["actions"]] == ["keep", ["bonus", 2]]
        assert all(isinstance(a["text"], str) for a in msg["actions"])
        await client_side.send_all(b"not json\n")
        assert (await client.recv())["type"] == "error"
        await client.send({"type": "act", "decision": msg["decision"], "action": 7})
        err = await client.recv()
        assert err["type"] == "error" and "0..1" in err["message"]
        await client.send({"type": "act", "decision": msg["decision"] + 1, "action": 0})
        assert (await client.recv())["type"] == "error"
        await client.send({"type": "act", "decision": msg["decision"], "action": 1})
    assert result["action"] == ["bonus", 2]


async def test_a_bot_process_plays_a_game(tmp_path, monkeypatch):
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    c = Cluster(tmp_path, 3, seed=9)
    with trio.fail_after(timeout(60)):
        async with trio.open_nursery() as nursery:
            decider, proc = await spawn_bot(f"{sys.executable} -m clients.stdio_bot random", nursery)
            await decider.hello({"game": "fixture", "seat": 0})
            store = GameStore(c.dirs[0], c.genesis.game_id)
            n0 = GameNode(store, c.keys[0], decider, ("127.0.0.1", 0), c.ports)
            c.nodes[0] = n0
            c.ports[0] = ("127.0.0.1", await nursery.start(lambda task_status: n0.run(task_status=task_status)))
            for i in (1, 2):
                await c.start(nursery, i)
            # wait for the three nodes, then stop the bot process
            while not all(n is not None and n.session.complete for n in c.nodes):
                await trio.sleep(0.05)    # a poll's pause inside a bounded wait
            await decider.result(n0.session.result())
            await proc.stdin.aclose()
    data = (c.dirs[0] / "games" / c.genesis.game_id.hex() / "transcript.caravan").read_bytes()
    assert verify_bytes(data).ok
