"""A turn-based table through a broker whose nodes never run at the same time, from the
host's first run to the end of the game (issue 33): the lobby goes by mail too. The host
creates the table and stops; each friend joins alone and stops; the host's next run seats
them and posts the genesis to sign, each friend's next run signs it, the host's next run
starts the game, and the game is played one node at a time (`caravan resume --until-idle`)
on a real Mosquitto that persists its sessions. All transcripts are identical and verify; a
friend who comes to a full table is refused, and told why."""

from __future__ import annotations

import json

from tests.games.pick import quick
from tests.helpers import timeout as scaled
from tests.node.procs import node
from tests.relay.broker import Broker
from tests.relay.nodes import assert_all_verify, play_alternately, turn_based_lobby, wait_alone

TURN_BASED = ["--pace", "turn-based", "--move-time", "1h"]
MAX_RUNS = 400


def test_a_table_whose_nodes_never_run_together_from_its_creation_finishes_and_refuses_a_late_friend(tmp_path):
    broker = Broker(tmp_path, persistent=True).start()
    game, options = quick(3)
    try:
        g, game_id = turn_based_lobby(tmp_path, broker.url, game, options, TURN_BASED)
        late = node(["join", g.invite, "--bot", "random", "--until-idle"], tmp_path / "late", tmp_path / "late.log")
        code = late.wait(timeout=scaled(60))
        lines = [json.loads(x) for x in late.stdout.read().splitlines() if x.startswith("{")]
        done, waits = play_alternately(g, game_id, MAX_RUNS)
        assert len(done) == 3, f"not finished after {MAX_RUNS} runs; last waits: {waits[-6:]}"
    finally:
        broker.stop()
    assert_all_verify(g, game_id)
    for i in range(3):
        assert "Traceback" not in g.log(i)
    texts = " ".join(x.get("text", "") for x in lines) + late.log.read_text()
    assert code != 0 and "is full: its 3 seats are taken" in texts, texts
    assert "Traceback" not in texts
