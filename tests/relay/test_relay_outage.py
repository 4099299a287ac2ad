"""A relayed game (real `caravan` processes) whose broker is stopped for 5 s mid-game and
started again on the same port: every node reconnects, redials, resyncs and finishes, and
the transcript verifies."""

import time

from tests.games.pick import quick
from tests.relay.nodes import RelayedGame, assert_all_verify


def test_the_broker_stopped_for_5_s_mid_game(tmp_path, broker):
    game, options = quick(3)
    g = RelayedGame(tmp_path, broker.url, game, 3, options, bot_delay=0.05)
    try:
        game_id = g.wait_started()
        g.wait_events(g.host, 10)
        broker.stop()
        time.sleep(5)                  # stays (CONTRIBUTING): the outage is what is tested
        broker.start()
        assert g.finish(timeout=120) == [0, 0, 0], [g.log(i)[-800:] for i in range(3)]
    finally:
        g.kill()
    assert_all_verify(g, game_id)
    for i in range(3):
        assert "connection lost" in g.log(i) and "reconnected" in g.log(i), g.log(i)[-800:]
