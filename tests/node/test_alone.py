"""A resumed node that finds nobody left (issue 27, item 4): the others finished and left
while it was down in the final signatures. With no time limit nothing else would ever end
it; it stops within a bound, says what happened in one line, and keeps what it holds — the
finished transcript already on its disk is not replaced by its unfinished copy."""

from __future__ import annotations

import trio

import node.app.game as game_mod
from node.storage.store import GameStore
from protocol.verify import verify_bytes
from tests.helpers import timeout as scaled
from tests.node.conftest import Cluster


async def test_a_resumed_node_with_nobody_left_stops_and_says_so(tmp_path, monkeypatch):
    c = Cluster(tmp_path, 3, seed=5)
    assert c.genesis.time_limit == 0                  # no time limit: no watchdog to end it
    with trio.fail_after(scaled(60)):
        async with trio.open_nursery() as nursery:
            for i in range(3):
                await c.start(nursery, i)
    path = c.dirs[1] / "games" / c.genesis.game_id.hex() / "transcript.caravan"
    finished = path.read_bytes()
    assert verify_bytes(finished).ok
    # seat 1 "was killed" before the last messages reached its disk; everyone else has left
    kept = GameStore(c.dirs[1], c.genesis.game_id).messages()[:-3]
    store = GameStore(c.dirs[1], c.genesis.game_id)
    (store.dir / "messages.log").unlink()
    for raw in kept:
        store.append(raw)
    store.close()
    monkeypatch.setattr(game_mod, "ALONE_AFTER", 2.0)
    node = c.make(1)
    t0 = trio.current_time()
    with trio.fail_after(scaled(30)):
        await node.run(dial_all=True)
    assert trio.current_time() - t0 < 2.0 + scaled(3), "it must stop within the bound"    # the bound, slack
    assert node.outcome == "gave-up", node.outcome_text
    assert "no other seat's node has answered for 2 s" in node.outcome_text
    assert f"caravan resume {c.genesis.game_id.hex()[:16]}" in node.outcome_text
    assert "\n" not in node.outcome_text
    assert path.read_bytes() == finished              # the finished transcript stays
