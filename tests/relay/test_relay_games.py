"""A whole game of each installed game (3 players, its hooks' short options) hosted with `caravan host --relay` and joined with the
printed invite, every node a real `caravan` process talking only through a local Mosquitto:
every node finishes with the same transcript, and `caravan verify` accepts it."""

import pytest

from tests.games.pick import cli_options, games_with, short_game
from tests.relay.nodes import RelayedGame, assert_all_verify

CASES = [(game, 3, cli_options(short_game(game)[1])) for game in games_with(players=3)]


@pytest.mark.parametrize("game, players, options", CASES)
def test_a_whole_game_through_the_broker(tmp_path, broker, game, players, options):
    g = RelayedGame(tmp_path, broker.url, game, players, options)
    try:
        assert g.invite == f"caravan+mqtt://127.0.0.1:{broker.port}/{g.lobby['lobby']}/{g.lobby['host_key']}"
        game_id = g.wait_started()
        assert g.finish(timeout=90) == [0] * players, [g.log(i)[-600:] for i in range(players)]
    finally:
        g.kill()
    assert_all_verify(g, game_id)
    for i in range(players):
        assert "Traceback" not in g.log(i)
