"""A node of a relayed game killed mid-game (SIGKILL) and restarted with `caravan resume`:
it finds the broker in its stored game, reconnects, resyncs and the game finishes."""

import time

from tests.node.procs import node, read_until
from tests.relay.nodes import RelayedGame, assert_all_verify


def test_a_node_killed_mid_game_resumes_through_the_relay(tmp_path, broker):
    g = RelayedGame(tmp_path, broker.url, "sabbat", 3, bot_delay=0.05)
    try:
        game_id = g.wait_started()
        g.wait_events(g.joiners[0], 8)
        g.joiners[0].kill()
        g.joiners[0].wait()
        time.sleep(1)
        resumed = node(["resume", game_id[:16], "--bot", "random", "--seed", "7"], g.dirs[1], g.logs[1])
        g.procs[1] = resumed
        assert "through the broker mqtt://127.0.0.1:" in read_until(resumed, "resume", timeout=20)["text"]
        assert g.finish(timeout=120) == [0, 0, 0], [g.log(i)[-800:] for i in range(3)]
    finally:
        g.kill()
    assert_all_verify(g, game_id)
