"""A turn-based table through a broker whose seats' nodes are never running at the same time
(issue 33, store and forward): the lobby runs with every seat online (`host`/`join
--until-idle` stop once the game is stored and their postboxes are open), then the test
starts one seat's node at a time (`caravan resume GAME --until-idle`, its bot decides), lets
it do all it can until it stops by itself saying whom the game waits for, and starts the
next, until every seat has finished; the broker is a real Mosquitto that persists its
sessions, restarted once mid-game. All transcripts are identical and verify."""

from __future__ import annotations

import pytest

from tests.games.conformance import hook
from tests.games.pick import cli_options, covering, short_game
from tests.relay.broker import Broker
from tests.relay.nodes import RelayedGame, assert_all_verify, play_alternately, turn_based_lobby, verify

TURN_BASED = ["--pace", "turn-based", "--move-time", "1h"]
MAX_RUNS = 400
"""Runs of single nodes before the test gives up on the game finishing."""


CASES = [(game, cli_options(hook(game, "TURN_BASED_OPTIONS", short_game(game)[1]))) for game in covering(3)]
"""Games that together show every kind of step (the costliest tables of the suite: not every game)."""


@pytest.mark.parametrize("game, options", CASES)
def test_three_seats_whose_nodes_never_run_together_finish_a_game(tmp_path, game, options):
    broker = Broker(tmp_path, persistent=True).start()

    def restart(run: int) -> None:
        if run == 7:
            broker.stop()                             # with its persistence file: nothing is lost
            broker.start()
    try:
        g, game_id = turn_based_lobby(tmp_path, broker.url, game, options, TURN_BASED)
        done, waits = play_alternately(g, game_id, MAX_RUNS, before_run=restart)
        assert len(done) == 3, f"not finished after {MAX_RUNS} runs; last waits: {waits[-6:]}"
        assert any(w.startswith("nothing to do until seat") for w in waits), waits[:6]
    finally:
        broker.stop()
    paths = g.transcripts(game_id)
    data = [p.read_bytes() for p in paths]
    assert data[0] == data[1] == data[2]
    report = verify(paths[0])
    assert report["exit"] == 0 and report["complete"], report
    assert report["pace"] == "turn-based"
    for i in range(3):
        assert "Traceback" not in g.log(i)


def test_a_turn_based_table_with_every_node_running_plays_through_postboxes(tmp_path):
    """Without --until-idle the nodes stay and play at once; the first envelopes may reach a
    seat before its postbox exists on the broker (lost there): they are sent again."""
    game, options = CASES[-1]
    broker = Broker(tmp_path, persistent=True).start()
    try:
        g = RelayedGame(tmp_path, broker.url, game, 3, options, host_args=TURN_BASED)
        try:
            game_id = g.wait_started()
            assert g.finish(timeout=240) == [0, 0, 0], [g.log(i)[-600:] for i in range(3)]
        finally:
            g.kill()
    finally:
        broker.stop()
    assert_all_verify(g, game_id)
    for i in range(3):
        assert "Traceback" not in g.log(i)
        assert (g.dirs[i] / "games" / game_id / "mailbox.json").is_file()      # it went through postboxes
