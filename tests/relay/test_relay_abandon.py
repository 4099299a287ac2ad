"""Abandon records through the broker: a node of a relayed game dies for good; after the
time limit the other two co-sign an abandon record over the relay, both end with it
(exit 1), and their transcripts verify as abandoned by that seat."""

from tests.games.pick import quick
from tests.node.procs import read_until
from tests.relay.nodes import RelayedGame, verify


def test_a_seat_that_vanished_is_abandoned_through_the_broker(tmp_path, broker):
    game, options = quick(3)
    g = RelayedGame(tmp_path, broker.url, game, 3, options, host_args=["--time-limit", "3"], bot_delay=0.05)
    try:
        game_id = g.wait_started()
        g.wait_events(g.host, 5)
        gone = g.joiners[1]
        seat = g.seats[g.procs.index(gone)]
        gone.kill()
        gone.wait()
        assert read_until(g.host, "abandoned", timeout=60)["stalled"] == [seat]
        assert read_until(g.joiners[0], "abandoned", timeout=60)["stalled"] == [seat]
        assert g.finish(timeout=60)[:2] == [1, 1]
    finally:
        g.kill()
    files = g.transcripts(game_id)[:2]
    assert files[0].read_bytes() == files[1].read_bytes()
    report = verify(files[0])
    assert report["valid"] and not report["complete"] and report["abandoned_by"] == [seat], report
