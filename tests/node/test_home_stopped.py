"""Issue 34: the home labels a table by what happened to its node. A node that only gave up
(nobody answered for 60 s, or no abandon record could be made) or whose store failed leaves
the table "stopped" with the node's own line, never "over"; a game that ended is "over"."""

from __future__ import annotations

from node.home_tables import Table

GAVE_UP = ("no other seat's node has answered for 60 s (they may have finished or left; the game was waiting "
           "for seat 1): stopped with 7 messages kept — caravan resume 0123 fetches the rest once any of them "
           "is back")


def test_a_node_that_gave_up_leaves_its_table_stopped_with_its_line():
    table = Table("k", "Fixture")
    table.on_line("every seat signed the genesis; play starts", "genesis", {"game_id": "0123"})
    table.on_line(GAVE_UP, "gave-up", {})
    table.finish(None)                               # the node returned: no result
    assert (table.state, table.error) == ("stopped", GAVE_UP)
    assert table.to_json()["state"] == "stopped" and GAVE_UP in table.to_json()["lines"]


def test_a_store_failure_leaves_its_table_stopped_too():
    table = Table("k", "Fixture")
    line = "cannot write to games/0123/messages.log: No space left on device; nothing more is signed"
    table.on_line(line, "store-failed", {})
    table.finish(None)
    assert (table.state, table.error) == ("stopped", line)


def test_a_game_that_ended_is_over():
    table = Table("k", "Fixture")
    table.on_line("game over: won by seat 0; scores seat 0 3, seat 1 1", "result", {})
    table.finish({"winners": [0], "scores": [3, 1]})
    assert (table.state, table.error) == ("over", "")
