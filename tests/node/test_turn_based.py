"""Turn-based tables (issue 33): the time per move is the table's silence limit. A seat's
node that is offline longer than a live table's limit, but less than the time per move,
comes back and the game goes on; one away longer than the time per move is abandoned, after
the time per move and not before.

The nodes run in one process on loopback with trio's mock clock (autojump): the hours of
silence are virtual, so the defaults people use (a live table's 300 s, a turn-based one's
1 h) are what is tested, in seconds of real time. The nodes check proofs and fsync on the loop
(Cluster threads=False): while a worker thread ran, every task waited and the clock raced on."""

from __future__ import annotations

import pytest
import trio
import trio.testing

from protocol import genesis as G
from protocol.verify import verify_bytes
from tests.helpers import wait_until_async
from tests.node.conftest import Cluster

LIVE_LIMIT = 300          # `caravan host`'s default time limit for a live table
MOVE_TIME = 3600          # the shortest time per move `caravan host --move-time` allows
SHORT_MOVE = 900          # 15 min, set through the genesis (below the command line's 1 h)
AWAY = 400                # longer than the live limit, shorter than the time per move


@pytest.fixture
def clock():
    """Virtual time that jumps ahead as soon as every task waits (the sockets are loopback
    and in this process: nothing real is waited for long)."""
    return trio.testing.MockClock(autojump_threshold=0.0)


def _transcripts(c: Cluster) -> list[bytes]:
    """Every seat's transcript (a seat stopped for good has none)."""
    paths = [d / "games" / c.genesis.game_id.hex() / "transcript.caravan" for d in c.dirs]
    return [p.read_bytes() for p in paths if p.exists()]


def _states(c: Cluster) -> str:
    """Each seat's node as a failure message shows it: what it waits for, and why."""
    return "; ".join(f"seat {i}: outcome {n.outcome} {n.outcome_text!r}, counts {n.counts()}, "
                     f"recovered {n.recovered}, waiting for {n.session.waiting_for()}, links {sorted(n.conns)}"
                     for i, n in enumerate(c.nodes) if n is not None)


async def _stop_seat_midgame(c: Cluster, nursery: trio.Nursery, victim: int) -> None:
    """Start every seat's node, each in a cancel scope; at the victim's third decision, stop
    its node (as ^C would: it closes its store) and return once it is down. Started again
    (c.make), the victim's node decides like the others."""
    scopes = [trio.CancelScope() for _ in range(c.n)]
    done = [trio.Event() for _ in range(c.n)]
    asked = trio.Event()
    decisions = {"n": 0}
    plain = c.decider

    def decider(i: int):
        decide = plain(i)
        if i != victim or c.nodes[victim] is not None:
            return decide

        async def stops_at_the_third(view, legal, kind):
            decisions["n"] += 1
            if decisions["n"] == 3:
                asked.set()
                await trio.sleep_forever()             # its node is stopped while it "thinks"
            return await decide(view, legal, kind)
        return stops_at_the_third
    c.decider = decider

    async def run(i: int, task_status=trio.TASK_STATUS_IGNORED) -> None:
        node = c.make(i)
        with scopes[i]:
            await node.run(task_status=task_status)
        done[i].set()

    for i in range(c.n):
        c.ports[i] = ("127.0.0.1", await nursery.start(run, i))
    await asked.wait()
    assert not c.nodes[victim].session.complete
    scopes[victim].cancel()
    await done[victim].wait()


async def test_a_seat_away_longer_than_a_live_limit_comes_back_within_the_move_time(tmp_path, clock):
    c = Cluster(tmp_path, 3, seed=7, options={"rounds": 4}, time_limit=MOVE_TIME, pace=G.TURN_BASED, threads=False)
    assert c.genesis.turn_based and c.genesis.time_limit == MOVE_TIME
    try:
        with trio.fail_after(AWAY + 2 * MOVE_TIME):
            async with trio.open_nursery() as nursery:
                await _stop_seat_midgame(c, nursery, 2)
                await trio.sleep(AWAY)                        # seat 2 is offline: virtual seconds
                assert [c.nodes[i].outcome for i in (0, 1)] == [None, None], "nobody abandoned seat 2"
                back = c.make(2)
                await back.run(dial_all=True)                 # it comes back, catches up and plays on
    except trio.TooSlowError:
        pytest.fail(f"the game did not end by {trio.current_time():.0f} virtual s: {_states(c)}")
    assert [c.nodes[i].outcome for i in range(3)] == ["complete"] * 3, [n.outcome_text for n in c.nodes]
    files = _transcripts(c)
    assert len(set(files)) == 1
    report = verify_bytes(files[0])
    assert report.ok and report.pace == G.TURN_BASED and report.time_limit == MOVE_TIME


async def test_the_same_absence_ends_a_live_table(tmp_path, clock):
    """The control: with a live table's limit the same absence is abandoned (so the test
    above would fail if the time per move were not the limit)."""
    c = Cluster(tmp_path, 3, seed=7, options={"rounds": 4}, time_limit=LIVE_LIMIT, threads=False)
    assert not c.genesis.turn_based
    with trio.fail_after(AWAY + 4 * LIVE_LIMIT):
        async with trio.open_nursery() as nursery:
            await _stop_seat_midgame(c, nursery, 2)
            await wait_until_async(lambda: all(c.nodes[i].finished.is_set() for i in (0, 1)),
                                   AWAY + 2 * LIVE_LIMIT, "seats 0 and 1 to end the game")
            nursery.cancel_scope.cancel()
    assert [c.nodes[i].outcome for i in (0, 1)] == ["abandoned"] * 2
    assert "no message within the time limit of 300 s" in c.nodes[0].outcome_text


async def test_a_seat_away_longer_than_the_move_time_is_abandoned_after_it(tmp_path, clock):
    """A shorter time per move than people may set (the protocol allows it: tests use it)
    keeps the virtual hour's ticks from costing real seconds."""
    c = Cluster(tmp_path, 3, seed=7, options={"rounds": 4}, time_limit=SHORT_MOVE, pace=G.TURN_BASED, threads=False)
    with trio.fail_after(SHORT_MOVE + 4 * SHORT_MOVE + 600):
        async with trio.open_nursery() as nursery:
            await _stop_seat_midgame(c, nursery, 2)
            stopped_at = trio.current_time()
            await wait_until_async(lambda: all(c.nodes[i].finished.is_set() for i in (0, 1)),
                                   2 * SHORT_MOVE, "seats 0 and 1 to end the game")
            ended_at = trio.current_time()
            nursery.cancel_scope.cancel()
    assert [c.nodes[i].outcome for i in (0, 1)] == ["abandoned"] * 2, [c.nodes[i].outcome_text for i in (0, 1)]
    assert SHORT_MOVE <= ended_at - stopped_at < SHORT_MOVE + 60, ended_at - stopped_at
    assert "abandoned by seat 2: no message within the time per move of 15 min" in c.nodes[0].outcome_text
    first, second = _transcripts(c)[:2]
    assert first == second
    report = verify_bytes(first)
    assert report.valid and report.abandoned_by == [2] and report.pace == G.TURN_BASED
