"""Issue 34: the home labels a table by what happened to its node. A node that only gave up
(nobody answered for 60 s, or no abandon record could be made) or whose store failed leaves
the table "stopped" with the node's own line, never "over"; a game that ended is "over"."""

from __future__ import annotations

import time

from node.pages.home_tables import Table
from tests.helpers import timeout as scaled
from tests.node.procs import node, read_until
from tests.web.home_fixtures import api, start_home

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


def test_continue_of_a_game_whose_peers_are_gone_ends_stopped_on_the_home(tmp_path, monkeypatch):
    """Real processes: a CLI game (host in the home's data dir, a joiner) killed mid-game; the
    home's Continue resumes it, nobody answers, the node gives up: the table says "stopped"
    with the node's line (CARAVAN_TEST_ALONE_AFTER shortens the 60 s rule for these nodes)."""
    monkeypatch.setenv("CARAVAN_TEST_ALONE_AFTER", "2")
    common = ["--bot", "random", "--bot-delay", "0.3", "--bind", "127.0.0.1"]
    host = node(["host", "fixture", "--players", "2", "-o", "rounds=10", "--no-discovery", *common],
                tmp_path / "home", tmp_path / "host.log")
    procs = [host]
    try:
        port = read_until(host, "lobby", timeout=60)["port"]
        procs.append(node(["join", f"127.0.0.1:{port}", *common], tmp_path / "friend", tmp_path / "friend.log"))
        game_id = read_until(host, "genesis", timeout=60)["game_id"]
        read_until(host, "event", timeout=60)                   # the game is under way
        for p in procs:
            p.kill()
            p.wait(timeout=30)
        home, url = start_home(tmp_path, "home")
        procs.append(home.proc)
        key = api(url, "continue", {"game_id": game_id})["table"]["key"]
        deadline = time.monotonic() + scaled(60)
        while (table := next(t for t in api(url, "state")["tables"] if t["key"] == key))["state"] in (
                "starting", "lobby", "playing"):
            assert time.monotonic() < deadline, table
            time.sleep(0.1)                  # a poll's pause inside the bounded wait
        assert table["state"] == "stopped", table
        assert table["error"].startswith("no other seat's node has answered for 2 s"), table["error"]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
