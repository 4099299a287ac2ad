"""Spectators of a relayed game through a broker restart (issue 34, item 3): two watchers
(real `caravan watch` processes on a real Mosquitto), each on another player's node, lose
the broker for a few seconds mid-game, as the players do; they redial as the players do
(the same backoff and patience) and end with the players' transcript, byte for byte."""

from __future__ import annotations

import os
import signal
import time

from protocol.verify import verify_bytes
from tests.games.pick import quick
from tests.node.procs import finish, node, read_until
from tests.relay.nodes import RelayedGame

OUTAGE = 4.0
"""How long the broker is away: longer than a relay dial's 3 s, so a watcher's first redial fails."""


def _watch(tmp_path, name: str, invite: str):
    return node(["watch", invite, "--json", "--priority", "normal", "--out", str(tmp_path / f"{name}.caravan")],
                tmp_path / name, tmp_path / f"{name}.log")


def test_two_watchers_follow_a_relayed_game_through_a_broker_restart(tmp_path, broker):
    game, options = quick(3)            # about the watchers' links, not a game
    g = RelayedGame(tmp_path, broker.url, game, 3, options=options, host_args=["--spectators", "yes"], bot_delay=0.1)
    watchers = []
    try:
        game_id = g.wait_started()
        invites = [read_until(p, "watch_invite", timeout=20)["invite"] for p in g.procs]
        os.kill(g.procs[2].pid, signal.SIGSTOP)             # the game waits for seat 2 until both watchers follow it,
        try:                                                # however slowly they start on a busy machine
            watchers = [_watch(tmp_path, "w0", invites[0]), _watch(tmp_path, "w1", invites[1])]
            for w in watchers:
                assert read_until(w, "watching", timeout=60)["game_id"] == game_id
        finally:
            os.kill(g.procs[2].pid, signal.SIGCONT)
        for w in watchers:                                  # the game under way, both watchers verifying it
            read_until(w, "event", timeout=60, count=10)
        broker.stop()
        time.sleep(OUTAGE)                                  # the outage itself, not a wait for an event
        broker.start()
        for w in watchers:
            done = read_until(w, "transcript", timeout=180)
            assert done["verified"] is True, done
        codes = finish(watchers, timeout=30)
        assert g.finish(timeout=120) == [0, 0, 0], [g.log(i)[-800:] for i in range(3)]
        assert codes == [0, 0], [(tmp_path / f"w{i}.log").read_text()[-1500:] for i in range(2)]
    finally:
        g.kill()
        for w in watchers:
            if w.poll() is None:
                w.kill()
                w.wait()
    players_copy = g.transcripts(game_id)[0].read_bytes()
    assert verify_bytes(players_copy).ok
    for i in range(2):
        assert (tmp_path / f"w{i}.caravan").read_bytes() == players_copy
        assert "connection lost" in (tmp_path / f"w{i}.log").read_text()     # it did lose the broker
