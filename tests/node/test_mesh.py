"""Nodes on loopback play the fixture game over TCP: full mesh, gossip, resync."""

import pytest
import trio

from protocol import transcript
from protocol.verify import verify_bytes
from tests.helpers import timeout
from tests.node.conftest import Cluster


def transcripts(c: Cluster) -> list[bytes]:
    return [(d / "games" / c.genesis.game_id.hex() / "transcript.caravan").read_bytes() for d in c.dirs]


@pytest.mark.parametrize("n", [3, 6])
async def test_nodes_play_the_fixture_game_to_the_end(tmp_path, n):
    c = Cluster(tmp_path, n, seed=n)
    with trio.fail_after(timeout(60)):
        async with trio.open_nursery() as nursery:
            for i in range(n):
                await c.start(nursery, i)
    files = transcripts(c)
    assert len(set(files)) == 1, "every node must hold the identical transcript"
    report = verify_bytes(files[0])
    assert report.ok, report.error


async def test_links_dropped_and_restored_mid_game(tmp_path):
    c = Cluster(tmp_path, 4, seed=7, options={"rounds": 4})
    with trio.fail_after(timeout(60)):
        async with trio.open_nursery() as nursery:
            nodes = [await c.start(nursery, i) for i in range(4)]
            # wait for play to start, then cut 0-1 and 2-3 for a while, then restore
            while len(nodes[0].session.log) < 10:
                await trio.sleep(0.01)    # a poll's pause inside a bounded wait
            for a, b in ((0, 1), (2, 3)):
                nodes[a].cut(b)
                nodes[b].cut(a)
            progressed = len(nodes[0].session.log)
            await trio.sleep(0.5)          # stays (CONTRIBUTING): the cut's length is the scenario
            for a, b in ((0, 1), (2, 3)):
                nodes[a].restore(b)
                nodes[b].restore(a)
    files = transcripts(c)
    assert len(set(files)) == 1
    assert verify_bytes(files[0]).ok
    assert len(transcript.load(files[0])[1]) > progressed
