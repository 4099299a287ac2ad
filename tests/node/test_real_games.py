"""Every real game plays to the end among nodes on loopback, with identical verified
transcripts on every node."""

import pytest
import trio

from protocol import games
from protocol.verify import verify_bytes
from tests.node.conftest import Cluster

CASES = [("sabbat", 3), ("sabbat", 4), ("sare", 2), ("sare", 4), ("nomads", 3), ("nomads", 6)]


@pytest.mark.parametrize("game, n", CASES)
async def test_real_game_over_the_node(tmp_path, game, n):
    engine = games.get(game)
    c = Cluster(tmp_path, n, engine=engine, seed=n)
    with trio.fail_after(240):
        async with trio.open_nursery() as nursery:
            for i in range(n):
                await c.start(nursery, i)
    files = [(d / "games" / c.genesis.game_id.hex() / "transcript.caravan").read_bytes() for d in c.dirs]
    assert len(set(files)) == 1
    report = verify_bytes(files[0])
    assert report.ok, report.error
    assert report.result["winners"]
