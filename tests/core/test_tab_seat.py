"""The tab's seat driver (clients/tab/py/tab_seat.py) in CPython, on asyncio: three seats of a
real game, each a TabSeat with a random bot from the registry, linked in memory by a network
that drops, duplicates and reorders their frames (as encoded bytes), finish the game with
byte-identical transcripts that protocol/verify.py accepts; a seat whose peer sends a forged
or illegal message refuses it naming that peer and its signer, and the game still ends. And
the worker's seat ops (tab_seat_ops), run here: one seat whose frames a shuttle carries
through `seat_feed` plays with two seats on the driver; tests/web/test_tab_seat.py runs the
same ops in a browser tab."""

from __future__ import annotations

import asyncio
import json
import random

import msgpack
import pytest

from protocol.link.framing import FrameError
from protocol.errors import BadSignature, Equivocation, IllegalMove
from protocol.verify import verify_bytes
from tests.helpers import timeout
from tests.tab_seats import N, Net, cheat, genesis, key_seed, seat, shuttle, tab_module


def play(net: Net, seed: int) -> list:
    """Three seats on `net` play a game to the end: the seats (each with its outcome)."""
    keys, secrets, g = genesis(seed)
    seats = [seat(g, keys, secrets, i, net.links(i), seed) for i in range(N)]

    async def main() -> None:
        await asyncio.wait_for(asyncio.gather(*(s.run() for s in seats)), timeout(90))

    asyncio.run(main())
    return seats


def test_three_tab_seats_finish_a_game_through_a_lossy_network_with_identical_transcripts():
    net = Net(random.Random(7), drop=0.2, dup=0.2, delay=0.01)
    seats = play(net, seed=7)
    assert [s.outcome.kind for s in seats] == ["complete"] * N, [s.outcome for s in seats]
    transcripts = {s.transcript() for s in seats}
    assert len(transcripts) == 1
    report = verify_bytes(transcripts.pop())
    assert report.ok and report.messages == len(seats[0].session.log) > 0, report.to_json()
    assert all(s.refused == [] for s in seats)


class Failing:
    """A link whose sends fail now and then, as a relay link that broke does (FrameError)."""

    def __init__(self, link, rng: random.Random):
        self.link, self.rng, self.inbox, self.failed = link, rng, link.inbox, 0

    async def send(self, frame: dict) -> None:
        if self.rng.random() < 0.2:
            self.failed += 1
            raise FrameError("link closed")
        await self.link.send(frame)


def test_a_link_whose_sends_fail_loses_frames_and_stops_nothing():
    keys, secrets, g = genesis(5)
    net = Net(random.Random(5))
    rng = random.Random(5)
    links = [{peer: Failing(link, rng) for peer, link in net.links(i).items()} for i in range(N)]
    seats = [seat(g, keys, secrets, i, links[i], 5) for i in range(N)]

    async def main() -> None:
        await asyncio.wait_for(asyncio.gather(*(s.run() for s in seats)), timeout(90))

    asyncio.run(main())
    assert sum(link.failed for each in links for link in each.values()) > 0
    assert [s.outcome.kind for s in seats] == ["complete"] * N, [s.outcome for s in seats]
    assert len({s.transcript() for s in seats}) == 1


def test_a_seat_names_the_peer_that_sent_a_forged_or_illegal_message():
    for kind, errors in (("forged", (BadSignature,)), ("illegal", (IllegalMove, Equivocation))):
        net = Net(random.Random(3), drop=0.1, dup=0.1, delay=0.005)
        keys, _, _ = genesis(3)
        net.tamper[2] = cheat(kind, keys[2])
        seats = play(net, seed=3)
        named = [r for s in seats[:2] for r in s.refused]
        assert named, f"the {kind} message was taken"
        assert all(r.peer == 2 and r.error.seat == 2 and type(r.error) in errors for r in named), named
        assert str(named[0]).startswith("from seat 2: refused:") and "seat 2" in str(named[0].error)
        assert [s.outcome.kind for s in seats] == ["complete"] * N
        assert len({s.transcript() for s in seats}) == 1


def test_two_tab_seats_abandon_a_seat_that_went_silent_with_a_record_that_verifies():
    keys, secrets, g = genesis(17, time_limit=1)
    net = Net(random.Random(17), drop=0.1, dup=0.1, delay=0.005)
    seats = [seat(g, keys, secrets, i, net.links(i), 17) for i in range(N)]

    async def main() -> None:
        stays = [asyncio.ensure_future(s.run()) for s in seats[:2]]
        leaves = asyncio.ensure_future(seats[2].run())
        while len(seats[2].session.log) < 4:                   # it played a little, then it stops
            await asyncio.sleep(0.01)
        leaves.cancel()
        await asyncio.gather(*stays)

    asyncio.run(asyncio.wait_for(main(), timeout(60)))
    assert [s.outcome.kind for s in seats[:2]] == ["abandoned"] * 2, [s.outcome for s in seats[:2]]
    assert seats[2].outcome is None
    transcript = seats[0].transcript()
    assert seats[1].transcript() == transcript
    report = verify_bytes(transcript)
    assert report.valid and report.abandoned_by == [2], report.to_json()


def test_the_worker_seat_ops_play_one_seat_whose_frames_a_shuttle_carries():
    ops = tab_module("tab_seat_ops")
    keys, secrets, g = genesis(11)
    net = Net(random.Random(11), drop=0.1, dup=0.1, delay=0.005)
    seats = {i: seat(g, keys, secrets, i, net.links(i), 11) for i in (1, 2)}

    async def op(name: str, data: bytes) -> dict:
        return json.loads(json.dumps(await ops.OPS[name](data)))          # as the page gets it

    with pytest.raises(ValueError, match="no seat: call seat_start first"):
        asyncio.run(op("seat_feed", msgpack.packb({"frames": []})))

    async def game() -> tuple[dict, dict]:
        started = await op("seat_start", msgpack.packb({"genesis": g.to_wire(), "key": key_seed(11, 0),
                                                        "secret": secrets[0], "seed": 5, "sync": 0.02}))
        assert started["seat"] == 0 and started["running"], started
        with pytest.raises(ValueError, match="already running"):
            await op("seat_start", msgpack.packb({"genesis": g.to_wire(), "key": key_seed(11, 0),
                                                  "secret": secrets[0], "seed": 5}))
        junk = await op("seat_feed", msgpack.packb({"frames": [[7, b"\x93"], [1, b"\xc1"], [0, b"\x90"], [2, "x"]]}))
        assert junk["bad_frames"] == 4 and junk["running"], junk
        _, last = await asyncio.gather(asyncio.gather(*(s.run() for s in seats.values())),
                                       shuttle(net, 0, lambda data: op("seat_feed", data)))
        return last, await op("seat_result", b"")

    last, result = asyncio.run(asyncio.wait_for(game(), timeout(90)))
    assert last["outcome"]["kind"] == "complete" and result["refused"] == [], result
    assert [s.outcome.kind for s in seats.values()] == ["complete"] * 2
    transcript = bytes.fromhex(result["transcript"])
    assert {s.transcript() for s in seats.values()} == {transcript}
    assert verify_bytes(transcript).ok
