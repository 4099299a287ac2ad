"""Time limits over days on a turn-based table through a broker (issue 33, item 5), with real
Mosquitto persisting its sessions and nodes that never run at the same time (`caravan resume
--until-idle`, one after another). The days pass under faketime: each run's clock is set that
far ahead of the real one (a constant offset, so nothing sleeps).

A seat whose node stays away for days between its runs, but comes back while the game has
waited for it less than the time per move, loses nothing. A seat that stays away longer is
recorded as silent, with a valid co-signed record, although its two accusers are never online
together: each proposes only once its own clock saw the whole time per move pass since it first
held that state (across its runs), their proposals and signatures wait on the broker, and each
keeps what it proposed, signed and took (node/storage/vote_memory.py)."""

from __future__ import annotations

import shutil

from tests.games.pick import quick_game
from tests.helpers import missing_system_package
from tests.relay.broker import Broker
from tests.relay.nodes import run_alone, turn_based_lobby, verify

DAY = 24 * 3600
MOVE_TIME = 3 * DAY
TURN_BASED = ["--pace", "turn-based", "--move-time", "3d"]
WARM_UP = 6
"""Runs played a day apart before one seat goes silent."""


def test_a_seat_away_longer_than_the_move_time_is_recorded_silent_by_accusers_never_online_together(tmp_path):
    if shutil.which("faketime") is None:
        missing_system_package("faketime", "apt-get install faketime")
    broker = Broker(tmp_path, persistent=True).start()
    try:
        g, game_id = turn_based_lobby(tmp_path, broker.url, quick_game(3), [], TURN_BASED)

        def run(i: int, days: float, codes: tuple[int, ...] = (0,)) -> list[dict]:
            """Seat dir i's node alone, its clock `days` ahead of the real one."""
            return run_alone(g, i, game_id, prefix=["faketime", "-f", f"+{int(days * DAY)}"], codes=codes)

        def idle(lines: list[dict]) -> dict:
            stop = [x for x in lines if x["type"] == "idle"]
            assert stop, [x.get("text") for x in lines][-5:]
            return stop[-1]

        # every node away for two days or more between its runs, the game waiting a day at most
        seat_of: dict[int, int] = {}
        i, day, runs = 0, 0.0, 0
        while True:
            day += 1
            lines = run(i, day)
            runs += 1
            seat_of.update({i: x["seat"] for x in lines if x["type"] == "start"})
            waiting = idle(lines)["waiting_for"]
            dirs = {seat: d for d, seat in seat_of.items()}
            if runs >= WARM_UP and len(waiting) == 1 and dirs.get(waiting[0], i) != i:
                break
            awaited = [dirs[s] for s in waiting if s in dirs]
            i = awaited[0] if awaited and len(seat_of) == 3 else (i + 1) % 3
            assert runs < 60, "the game never waited for one seat alone"
        silent = dirs[waiting[0]]
        last, other = i, 3 - i - silent                # `last` made the state that waits for `silent`
        for d in range(3):
            assert "proposed to abandon" not in g.log(d), g.log(d)[-800:]
        transcript = g.transcripts(game_id)

        # the accusers run in turn, never together; the silent seat's node does not run
        since = day                                    # `last` holds the state from then, `other` from its next run
        assert idle(run(other, since + 1))["text"].startswith("nothing to do until seat")
        assert idle(run(last, since + 2))["text"].startswith("nothing to do until seat")   # 2 days: not yet
        assert "proposed to abandon" in idle(run(last, since + 3.5))["text"]
        # its own clock has seen 2.6 days since it first held the state: it does not propose yet
        assert idle(run(other, since + 3.6))["text"].startswith("nothing to do until seat")
        assert "signed an abandon statement" in idle(run(other, since + 4.5))["text"]
        ended = run(last, since + 4.6, codes=(1,))
        assert [x["stalled"] for x in ended if x["type"] == "abandoned"] == [[waiting[0]]], ended[-3:]
        ended = run(other, since + 4.7, codes=(1,))
        assert [x["stalled"] for x in ended if x["type"] == "abandoned"] == [[waiting[0]]], ended[-3:]
    finally:
        broker.stop()
    assert transcript[last].read_bytes() == transcript[other].read_bytes()
    report = verify(transcript[last])
    assert report["valid"] and not report["complete"] and report["abandoned_by"] == [waiting[0]], report
    for d in range(3):
        assert "Traceback" not in g.log(d)
