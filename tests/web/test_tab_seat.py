"""One seat of a game in the browser tab (issue 32, item 2): the worker runs the asyncio seat
driver (clients/tab/py/tab_seat.py, through tab_seat_ops) on protocol/ under Pyodide, and the
page carries its frames to and from two seats this test runs in CPython on the same driver
(tests/tab_seats.py `shuttle`, over a network that drops and duplicates frames). The game
ends complete in the tab, and the tab's transcript is byte for byte the CPython seats'."""

from __future__ import annotations

import asyncio
import random

import msgpack
import pytest

from protocol.verify import verify_bytes
from tests.helpers import timeout as scaled
from tests.tab_seats import Net, genesis, key_seed, seat, shuttle
from tests.web.tab_fixtures import bundle, driver, server, tab  # noqa: F401 - fixtures
from tests.web.tab_page import call

pytestmark = pytest.mark.xdist_group("tab")


def test_a_tab_seat_plays_a_game_with_two_cpython_seats_and_ends_with_their_transcript(tab):  # noqa: F811
    page, _ = tab
    keys, secrets, g = genesis(13)
    net = Net(random.Random(13), drop=0.05, dup=0.05, delay=0.005)
    seats = {i: seat(g, keys, secrets, i, net.links(i), 13) for i in (1, 2)}
    for s in seats.values():
        s.linger = scaled(10)                 # the tab's answers come through the page: give them time
        s.sync_interval = 0.1

    async def op(name: str, data: bytes) -> dict:
        return (await asyncio.to_thread(call, page, name, data))["result"]

    async def game() -> tuple[dict, dict]:
        started = await op("seat_start", msgpack.packb({"genesis": g.to_wire(), "key": key_seed(13, 0),
                                                        "secret": secrets[0], "seed": 5, "sync": 0.1}))
        assert started["seat"] == 0 and started["running"], started
        _, last = await asyncio.gather(asyncio.gather(*(s.run() for s in seats.values())),
                                       shuttle(net, 0, lambda data: op("seat_feed", data), wait=0.05))
        return last, await op("seat_result", b"")

    last, result = asyncio.run(asyncio.wait_for(game(), scaled(240)))
    assert last["outcome"]["kind"] == "complete" and result["refused"] == [] and result["bad_frames"] == 0, result
    assert [s.outcome.kind for s in seats.values()] == ["complete"] * 2
    transcript = bytes.fromhex(result["transcript"])
    assert {s.transcript() for s in seats.values()} == {transcript}
    report = verify_bytes(transcript)
    assert report.ok and report.messages == result["messages"] > 0, report.to_json()
