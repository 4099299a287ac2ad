"""One node's view of silence never costs its own seat (issue 27, item 3): a node whose
clock runs 20 times fast (under faketime) sees a slow but legal player "silent" long past
the time limit many times over. It may propose to abandon that player, but a proposal
binds nobody until every other seat that would sign has judged the same silence on its own
clock; so it plays on, nobody is abandoned and the game finishes on every node."""

from __future__ import annotations

import shutil
import time

from tests.helpers import missing_system_package, timeout
from tests.node.stalls import collect, one_truth, start

LIMIT = 5
SLOW = 1.5
"""The slow player's thinking time per decision: legal (under LIMIT), but 30 s to the fast clock."""


def test_a_node_with_a_20x_fast_clock_loses_no_seat(tmp_path):
    if shutil.which("faketime") is None:
        missing_system_package("faketime", "apt-get install faketime")
    # process 1 runs 20x fast; process 2 thinks SLOW seconds a decision
    game = start(tmp_path, rounds=3, time_limit=LIMIT, delays=[0.02, 0.02, SLOW],
                 prefixes={1: ["faketime", "-f", "+0 x20"]})
    try:
        deadline = time.monotonic() + timeout(120)
        results = [collect(p, deadline) for p in game.procs]
    finally:
        game.kill_all()
    codes = [c for c, _ in results]
    assert one_truth(game, [0, 1, 2], codes, stalled=None) == "complete", (codes, game.tails())
    fast = next(i for i, log in enumerate(game.logs) if log.name == "n1.log")
    assert "proposed to abandon" in game.logs[fast].read_text(), game.tails()   # it did judge silence
    for _, lines in results:
        assert not any(x.get("type") in ("abandoned", "gave-up") for x in lines), lines
