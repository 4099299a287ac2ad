"""A seat of a game in the browser tab plays with two desktop nodes through a real broker
(issue 32, item 2): the tab's worker runs the asyncio seat driver (tab_seat_ops `seat_relay`)
over relay links of its own (mqtt.js over the browser's WebSocket to Mosquitto's websockets
listener, tab_relay), the desktop nodes are GameNodes (trio, paho over TCP) in a thread of this
test; every seat ends with the same transcript, which verifies. A desktop node that sends a
forged or illegal move is named by the tab. Mosquitto runs in a network
namespace of the test's own (tests/web/test_tab_net.py says why)."""

from __future__ import annotations

import threading
import time

import msgpack
import pytest
import trio

from node.app.game import GameNode
from node.net import relay as desk_relay
from node.storage.store import GameStore
from protocol import wire
from protocol.verify import verify_bytes
from tests.helpers import timeout as scaled
from tests.node.conftest import bot_decider
from tests.tab_seats import cheat, genesis, key_seed
from tests.web.tab_fixtures import bundle, driver, server, tab  # noqa: F401 - fixtures
from tests.web.tab_page import call
from tests.web.test_tab_net import broker  # noqa: F401 - the fixture

pytestmark = pytest.mark.xdist_group("tab")


@pytest.mark.parametrize("cheat_kind", [None, "forged", "illegal"])
def test_a_tab_seat_and_two_desktop_nodes_finish_a_game_through_the_broker(tab, broker, tmp_path, monkeypatch,  # noqa: F811
                                                                           cheat_kind):
    """With `cheat_kind`, seat 1's desktop node sends its first move forged or illegal: the tab
    refuses it naming seat 1, and the game still ends with one transcript."""
    if cheat_kind is not None:
        honest_send_all, tampers = GameNode.send_all, {}

        async def send_all(node: GameNode, frame, exclude=None):
            if node.seat != 1 or type(frame) is not dict:
                return await honest_send_all(node, frame, exclude)
            for one in tampers.setdefault(node.seat, cheat(cheat_kind, node.key))(0, frame):
                await honest_send_all(node, one, exclude)

        monkeypatch.setattr(GameNode, "send_all", send_all)
    page, _ = tab
    tcp_url, ws_url = broker
    keys, secrets, g = genesis(19, time_limit=0)
    started, failed = threading.Event(), []
    dirs = {i: tmp_path / f"seat{i}" for i in (1, 2)}

    def desktops() -> None:
        async def one(i: int, task_status) -> None:
            GameStore.create(dirs[i], g.to_wire(), g.game_id, {"secret": secrets[i], "committed": wire.encode([])}, {})
            async with desk_relay.connect(tcp_url, keys[i].public, scopes=[g.game_id]) as relay:
                node = GameNode(GameStore(dirs[i], g.game_id), keys[i], bot_decider(i), ("127.0.0.1", 0), {},
                                relay=relay.endpoint(g.game_id))
                await node.run(task_status=task_status)

        async def main() -> None:
            with trio.fail_after(scaled(240)):
                async with trio.open_nursery() as nursery:
                    for i in (1, 2):
                        await nursery.start(one, i)
                    started.set()
        try:
            trio.run(main)
        except BaseException as exc:                   # noqa: BLE001 - reported by the test below
            failed.append(exc)
            started.set()

    thread = threading.Thread(target=desktops, daemon=True)
    thread.start()
    assert started.wait(scaled(60)) and not failed, failed
    call(page, "broker_connect", msgpack.packb({"url": ws_url}))
    joined = call(page, "seat_relay", msgpack.packb({"genesis": g.to_wire(), "key": key_seed(19, 0),
                                                     "secret": secrets[0], "seed": 5, "within": scaled(30)}))["result"]
    assert joined["seat"] == 0 and joined["running"], joined
    deadline = time.monotonic() + scaled(240)
    while (state := call(page, "seat_state")["result"])["running"]:
        assert time.monotonic() < deadline, state
        time.sleep(0.5)
    result = call(page, "seat_result")["result"]
    thread.join(scaled(60))
    assert not thread.is_alive() and not failed, failed
    assert result["outcome"]["kind"] == "complete", result
    if cheat_kind is None:
        assert result["refused"] == [], result
    else:
        assert result["refused"] and all(line.startswith("from seat 1: refused:") and "[seat 1 " in line
                                          for line in result["refused"]), result["refused"]
    transcript = bytes.fromhex(result["transcript"])
    desk = {(dirs[i] / "games" / g.game_id.hex() / "transcript.caravan").read_bytes() for i in (1, 2)}
    assert desk == {transcript}
    report = verify_bytes(transcript)
    assert report.ok and report.messages == result["messages"] > 0, report.to_json()
