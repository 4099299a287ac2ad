"""One seat on the tab's asyncio driver (clients/tab/py/tab_seat.py) and two desktop nodes
(node/app/game.py GameNode, trio, in a thread of their own) play one game over real TCP links
on loopback: the driver dials both with the desktop's framing and handshake (tests/tab_seats.py
TcpLink), and every seat ends with the same transcript, which verifies; a forged or illegal
move the driver's seat sends is refused by the desktop nodes, naming it, and one a desktop
node sends is refused by the driver's seat, naming that node's seat."""

from __future__ import annotations

import asyncio
import logging

import pytest

from clients.bot import make_bot
from node.app.game import GameNode
from protocol import games
from protocol.verify import verify_bytes
from tests.games.pick import quick_game, short_game
from tests.helpers import timeout as scaled
from tests.node.conftest import Cluster
from tests.tab_seats import N, Tamper, TcpLink, cheat, desktop_seats, tab_seat


class Tampered:
    """A link whose frames to `peer` go through `tamper` first (a cheating seat)."""

    def __init__(self, link: TcpLink, peer: int, tamper: Tamper):
        self.link, self.peer, self.tamper, self.inbox = link, peer, tamper, link.inbox

    async def send(self, frame: dict) -> None:
        for one in self.tamper(self.peer, frame):
            await self.link.send(one)

    async def close(self) -> None:
        await self.link.close()


def play(tmp_path, cheat_kind: str | None = None) -> tuple[Cluster, object, bytes]:
    """Seat 0 on the driver, seats 1 and 2 desktop nodes: (the cluster, seat 0's outcome and
    transcript), once all three stopped."""
    game = quick_game(N)
    engine = games.get(game)
    cluster = Cluster(tmp_path, N, engine=engine, options={**engine.default_options(N), **short_game(game)[1]},
                      seed=21)
    g = cluster.genesis

    async def tab() -> tuple[object, bytes]:
        links = {i: await TcpLink.dial(*cluster.ports[i], cluster.keys[0], g.game_id, g.seats[i]) for i in (1, 2)}
        if cheat_kind is not None:
            links = {i: Tampered(link, i, cheat(cheat_kind, cluster.keys[0])) for i, link in links.items()}
        seat = tab_seat.TabSeat(g.to_wire(), cluster.keys[0], cluster.secrets[0],
                                tab_seat.bot_decider(make_bot("random", g.game, seed=3)), links, lambda: asyncio.get_running_loop().time())
        outcome = await seat.run()
        for link in links.values():
            await link.close()
        return outcome, seat.transcript()

    with desktop_seats(cluster.start, [1, 2], scaled(90), scaled(30)):
        outcome, transcript = asyncio.run(asyncio.wait_for(tab(), scaled(90)))
    return cluster, outcome, transcript


def test_a_tab_seat_and_two_desktop_nodes_finish_one_game_over_tcp(tmp_path):
    cluster, outcome, transcript = play(tmp_path)
    g = cluster.genesis
    assert outcome.kind == "complete" and outcome.refused == [], outcome
    desk = {(d / "games" / g.game_id.hex() / "transcript.caravan").read_bytes() for d in cluster.dirs[1:]}
    assert desk == {transcript}
    report = verify_bytes(transcript)
    assert report.ok and report.messages > 2 * N, report.to_json()


@pytest.mark.parametrize("kind", ["forged", "illegal"])
def test_desktop_nodes_name_a_tab_seat_that_sends_a_forged_or_illegal_move(tmp_path, caplog, kind):
    caplog.set_level(logging.WARNING, logger="caravan.node")
    cluster, outcome, transcript = play(tmp_path, kind)
    refused = [r.getMessage() for r in caplog.records if "refused" in r.getMessage()]
    assert refused and all("seat 0" in line for line in refused), refused
    g = cluster.genesis
    assert outcome.kind == "complete", outcome
    desk = {(d / "games" / g.game_id.hex() / "transcript.caravan").read_bytes() for d in cluster.dirs[1:]}
    assert desk == {transcript} and verify_bytes(transcript).ok


@pytest.mark.parametrize("kind", ["forged", "illegal"])
def test_a_tab_seat_names_a_desktop_node_that_sends_a_forged_or_illegal_move(tmp_path, monkeypatch, kind):
    honest_send_all = GameNode.send_all
    tampers: dict[int, Tamper] = {}

    async def send_all(node: GameNode, frame, exclude=None):       # seat 1's node cheats once
        if node.seat != 1 or type(frame) is not dict:
            return await honest_send_all(node, frame, exclude)
        tamper = tampers.setdefault(node.seat, cheat(kind, node.key))
        for one in tamper(0, frame):
            await honest_send_all(node, one, exclude)

    monkeypatch.setattr(GameNode, "send_all", send_all)
    cluster, outcome, transcript = play(tmp_path)
    assert outcome.refused, "the tab's seat took the bad move"
    assert all(r.peer == 1 and r.error.seat == 1 and "seat 1" in str(r.error) for r in outcome.refused), outcome.refused
    assert outcome.kind == "complete"
    desk = {(d / "games" / cluster.genesis.game_id.hex() / "transcript.caravan").read_bytes() for d in cluster.dirs[1:]}
    assert desk == {transcript} and verify_bytes(transcript).ok
