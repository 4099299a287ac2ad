"""One seat on the tab's asyncio driver (clients/tab/py/tab_seat.py) and two desktop nodes
(node/app/game.py GameNode, trio, in a thread of their own) play one game over real TCP links
on loopback: the driver dials both with the desktop's framing and handshake (tests/tab_seats.py
TcpLink), and every seat ends with the same transcript, which verifies."""

from __future__ import annotations

import asyncio
import threading

import trio

from clients.bot import make_bot
from protocol import games
from protocol.verify import verify_bytes
from tests.games.pick import quick_game, short_game
from tests.helpers import timeout as scaled
from tests.node.conftest import Cluster
from tests.tab_seats import N, TcpLink, tab_seat


def test_a_tab_seat_and_two_desktop_nodes_finish_one_game_over_tcp(tmp_path):
    game = quick_game(N)
    engine = games.get(game)
    cluster = Cluster(tmp_path, N, engine=engine, options={**engine.default_options(N), **short_game(game)[1]},
                      seed=21)
    started, failed = threading.Event(), []

    def desktop() -> None:
        async def main() -> None:
            with trio.fail_after(scaled(90)):
                async with trio.open_nursery() as nursery:
                    for i in (1, 2):
                        await cluster.start(nursery, i)
                    started.set()
        try:
            trio.run(main)
        except BaseException as exc:                   # noqa: BLE001 - reported by the test below
            failed.append(exc)
            started.set()

    thread = threading.Thread(target=desktop, daemon=True)
    thread.start()
    assert started.wait(scaled(30)) and not failed, failed
    g = cluster.genesis

    async def tab() -> tuple[object, bytes]:
        links = {i: await TcpLink.dial(*cluster.ports[i], cluster.keys[0], g.game_id, g.seats[i]) for i in (1, 2)}
        seat = tab_seat.TabSeat(g.to_wire(), cluster.keys[0], cluster.secrets[0],
                                tab_seat.bot_decider(make_bot("random", g.game, seed=3)), links, lambda: asyncio.get_running_loop().time())
        outcome = await seat.run()
        for link in links.values():
            await link.close()
        return outcome, seat.transcript()

    outcome, transcript = asyncio.run(asyncio.wait_for(tab(), scaled(90)))
    thread.join(scaled(30))
    assert not thread.is_alive() and not failed, failed
    assert outcome.kind == "complete" and outcome.refused == [], outcome
    desk = {(d / "games" / g.game_id.hex() / "transcript.caravan").read_bytes() for d in cluster.dirs[1:]}
    assert desk == {transcript}
    report = verify_bytes(transcript)
    assert report.ok and report.messages > 2 * N, report.to_json()
