"""The tab's seat plays a turn-based table through its postbox (issue 33, store and forward): a
seat in the browser tab and two desktop seats (GameNodes with MailTransports, in a trio
thread: tests/tab_seats.py mailed_desktops) play a whole game of a turn-based table through
a real Mosquitto that keeps its sessions, never over live links. Mid-game the tab's page is
reloaded (its worker, its seat and its postbox connection gone) and the desktops go on until
they wait for it; meanwhile an envelope forged by a key that holds no seat waits in the tab's
inbox. The tab resumes the stored game (game_resume) from its store and its postbox session:
it refuses the forged envelope naming the seat it claims, and the game completes with the
three transcripts identical and the tab's passing the real `caravan verify`."""

from __future__ import annotations

import time

import msgpack
import pytest
import trio

from node.net.postbox import open_postbox
from protocol.genesis import TURN_BASED
from protocol.identity import SigningKey, fingerprint
from protocol.link.handshake import inbox_of
from protocol.mail.mailbox import Mailbox
from tests.helpers import timeout as scaled
from tests.relay.nodes import verify
from tests.tab_seats import desktop_seats, genesis, key_seed, mailed_desktops
from tests.web.tab_fixtures import namespaced_broker
from tests.web.tab_fixtures import bundle, driver, server, tab  # noqa: F401 - fixtures
from tests.web.tab_page import READY, call

pytestmark = pytest.mark.xdist_group("tab")

SEED = 61
HOUR = 3600
ME = 1


@pytest.fixture(scope="module")
def broker(tmp_path_factory):
    """Mosquitto with persistence in a namespace of its own: (its TCP URL, its ws:// URL)."""
    with namespaced_broker(tmp_path_factory.mktemp("turn-broker"), "cvrttb", persistent=True) as (tcp, ws, _):
        yield tcp, ws


def bounded(main) -> None:
    async def run_main() -> None:
        with trio.fail_after(scaled(60)):
            await main()
    trio.run(run_main)


def sessions_made(tcp, g, keys: list) -> None:
    """Every seat's postbox session made on the broker before any seat plays (the tab's too:
    the same names), so no envelope reaches an inbox that does not exist yet."""
    async def main() -> None:
        for key in keys:
            async with open_postbox(tcp, g.game_id, key.public, g.time_limit):
                pass
    bounded(main)


def forged_to(tcp, g, keys: list, to: int, claims: int) -> SigningKey:
    """An envelope to seat `to` claiming seat `claims`, signed by a key that holds no seat,
    published to `to`'s inbox; that key."""
    outsider = SigningKey.generate()
    seats = list(g.seats)
    seats[claims] = outsider.public
    envelope = Mailbox(g.game_id, seats, claims, outsider).seal(to, {"t": "heads", "h": [0, 0, 0]})

    async def main() -> None:
        async with open_postbox(tcp, g.game_id, outsider.public, g.time_limit) as box:
            box.send(inbox_of(keys[to].public), envelope)
            assert await box.flush(scaled(10))
    bounded(main)
    return outsider


def desk(nodes: dict, i: int, read):
    return trio.from_thread.run_sync(lambda: read(nodes[i]), trio_token=nodes["token"])


def state(page) -> dict:
    return call(page, "seat_state")["result"]


def test_a_tab_seat_plays_a_turn_based_table_through_its_postbox_across_a_reload(tab, broker, tmp_path):  # noqa: F811
    page, _ = tab
    tcp, ws = broker
    keys, secrets, g = genesis(SEED, time_limit=HOUR, pace=TURN_BASED)
    assert g.pace == TURN_BASED
    sessions_made(tcp, g, keys)
    dirs, nodes = {i: tmp_path / f"seat{i}" for i in range(3) if i != ME}, {}
    with desktop_seats(mailed_desktops(tcp, g, keys, secrets, dirs, nodes), list(dirs), scaled(400), scaled(60)):
        started = call(page, "seat_mail", msgpack.packb({"genesis": g.to_wire(), "key": key_seed(SEED, ME),
                                                         "secret": secrets[ME], "seed": 5, "url": ws,
                                                         "within": scaled(30), "names": ["a", "tab", "c"]}))["result"]
        assert "error" not in started and started["seat"] == ME and started["running"], started
        deadline = time.monotonic() + scaled(120)
        while (now := state(page))["messages"] < 20:
            assert now["running"] and time.monotonic() < deadline, now
            time.sleep(0.2)

        page.refresh()                                     # the tab's seat and its postbox connection are gone
        ready = page.execute_async_script(READY)
        assert ready["ok"], ready
        deadline = time.monotonic() + scaled(120)        # the desktops go on until they wait for the tab
        while not all(desk(nodes, i, lambda n: ME in n.session.waiting_for() and n.mesh.recovered) for i in dirs):
            assert time.monotonic() < deadline, [desk(nodes, i, lambda n: n.session.describe_need()) for i in dirs]
            time.sleep(0.2)
        waited_at = max(desk(nodes, i, lambda n: len(n.session.log)) for i in dirs)
        outsider = forged_to(tcp, g, keys, ME, claims=0)

        [mine] = [one for one in call(page, "games_list")["result"]["games"] if one["game_id"] == g.game_id.hex()]
        assert mine["broker"] == ws and mine["seat"] == ME, mine
        resumed = call(page, "game_resume", msgpack.packb({"game_id": g.game_id.hex()[:16], "key": key_seed(SEED, ME),
                                                          "seed": 6, "within": scaled(30)}))["result"]
        assert "error" not in resumed and resumed["running"] and resumed["replayed"] == mine["messages"], resumed
        assert secrets[ME].hex() not in repr(resumed)
        deadline = time.monotonic() + scaled(240)
        while (now := state(page))["running"]:
            assert time.monotonic() < deadline, now
            time.sleep(0.5)
        result = call(page, "seat_result")["result"]
    assert result["outcome"]["kind"] == "complete" and result["refused"] == [], result
    assert result["messages"] > waited_at
    assert result["mail"]["refused"] == 1, result["mail"]
    [line] = [n for n in result["mail"]["log"] if "dropped an envelope" in n]
    assert line == (f"dropped an envelope: an envelope that claims seat 0 ({fingerprint(keys[0].public)}) but is not "
                    "signed by its key"), line
    assert fingerprint(outsider.public) not in line
    transcript = bytes.fromhex(result["transcript"])
    paths = [dirs[i] / "games" / g.game_id.hex() / "transcript.caravan" for i in dirs]
    assert {p.read_bytes() for p in paths} == {transcript}
    for i in dirs:
        assert (dirs[i] / "games" / g.game_id.hex() / "mailbox.json").is_file()    # through postboxes
    (tmp_path / "tab.caravan").write_bytes(transcript)
    report = verify(tmp_path / "tab.caravan")
    assert report["exit"] == 0 and report["complete"] and report["pace"] == "turn-based", report
