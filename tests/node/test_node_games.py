"""Every registered game whose hooks name a `NODE_GAME` (players, options) plays it to the end among
nodes on loopback — its hidden hands, deck draws and simultaneous choices over the real protocol —
and the transcript, the same on every node, verifies. (A game installed from its own package has
no test of its own in tests/: this is its real-node game.)"""

import pytest

from protocol import games
from protocol.verify import verify_bytes
from tests.games.conformance import hook
from tests.node.conftest import Cluster

NODE_GAMES = [g for g in games.names() if hook(g, "NODE_GAME") is not None]


@pytest.mark.parametrize("game", NODE_GAMES)
async def test_the_game_plays_over_real_nodes_and_verifies(tmp_path, game):
    n, options = hook(game, "NODE_GAME")
    engine = games.get(game)
    c = Cluster(tmp_path, n, engine=engine, options={**engine.default_options(n), **options}, seed=n)
    report = verify_bytes(await c.play_to_the_end(120))
    assert report.ok, report.error
    assert report.result["winners"] and len(report.result["scores"]) == n
