"""Every real game plays to the end among nodes on loopback, with identical verified
transcripts on every node."""

import pytest

from protocol import games
from protocol.verify import verify_bytes
from tests.games.pick import installed
from tests.node.conftest import Cluster

CASES = [(game, n) for game in installed() for n in sorted({games.get(game).min_players, games.get(game).max_players})]
"""Every installed game at its fewest and its most players."""


@pytest.mark.parametrize("game, n", CASES)
async def test_real_game_over_the_node(tmp_path, game, n):
    engine = games.get(game)
    c = Cluster(tmp_path, n, engine=engine, seed=n)
    report = verify_bytes(await c.play_to_the_end(240))
    assert report.ok, report.error
    assert report.result["winners"]
