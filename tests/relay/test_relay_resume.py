"""A node of a relayed game killed mid-game (SIGKILL) and restarted with `caravan resume`:
it finds the broker in its stored game, reconnects, resyncs and the game finishes."""

import re

from tests.games.pick import quick
from tests.helpers import wait_exit, wait_until
from tests.node.procs import node, read_until
from tests.relay.nodes import RelayedGame, assert_all_verify


def _connections_gone(broker) -> int:
    """How many client connections Mosquitto has logged as ended so far."""
    return len(re.findall(r"Client \S+ (?:closed its connection|disconnected)", broker.log.read_text(errors="replace")))


def test_a_node_killed_mid_game_resumes_through_the_relay(tmp_path, broker):
    game, options = quick(3)
    g = RelayedGame(tmp_path, broker.url, game, 3, options, bot_delay=0.05)
    try:
        game_id = g.wait_started()
        g.wait_events(g.joiners[0], 8)
        dropped = _connections_gone(broker)
        g.joiners[0].kill()
        wait_exit(g.joiners[0], 10, "the killed node")
        wait_until(lambda: _connections_gone(broker) > dropped, 10, "the broker to see the killed node's connection go")
        resumed = node(["resume", game_id[:16], "--bot", "random", "--seed", "7"], g.dirs[1], g.logs[1])
        g.procs[1] = resumed
        assert "through the broker mqtt://127.0.0.1:" in read_until(resumed, "resume", timeout=20)["text"]
        assert g.finish(timeout=120) == [0, 0, 0], [g.log(i)[-800:] for i in range(3)]
    finally:
        g.kill()
    assert_all_verify(g, game_id)
