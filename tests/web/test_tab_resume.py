"""The tab keeps its game and survives a reload (issue 32): a seat in the browser tab plays
with two desktop nodes through a real broker, its game kept in the tab's store (seat_relay
{"store": true}: IndexedDB); mid-game the page is reloaded (its worker, its Python and every
link gone), connects to the broker again and resumes the stored game (game_resume): its log
replayed, it dials the desktops again, and the game completes with the tab's transcript equal
to the desktops', and valid. The games list shows the game, and nothing secret.

The desktop seats run in a trio thread (tests/tab_seats.py desktop_seats, relayed_desktops)."""

from __future__ import annotations

import base64
import time

import msgpack
import pytest
import trio

from protocol.verify import verify_bytes
from tests.helpers import timeout as scaled
from tests.tab_seats import desktop_seats, genesis, key_seed, relayed_desktops
from tests.web.tab_fixtures import bundle, driver, server, tab  # noqa: F401 - fixtures
from tests.web.tab_page import CALL, READY, call
from tests.web.test_tab_net import broker  # noqa: F401 - the fixture

pytestmark = pytest.mark.xdist_group("tab")

SEED = 23


def until_done(page, deadline: float) -> dict:
    while (state := call(page, "seat_state")["result"])["running"]:
        assert time.monotonic() < deadline, state
        time.sleep(0.5)
    return state


@pytest.mark.parametrize("me", [0, 2])
def test_a_tab_seat_reloaded_mid_game_resumes_its_stored_game_and_finishes_it(tab, broker, tmp_path, me):  # noqa: F811
    """As seat 0 the tab dials both desktops again; as seat 2 the desktops dial it again (once
    their links to the gone tab fall idle) and it takes their links."""
    page, _ = tab
    tcp_url, ws_url = broker
    keys, secrets, g = genesis(SEED + me, time_limit=0)
    dirs = {i: tmp_path / f"seat{i}" for i in range(3) if i != me}
    with desktop_seats(relayed_desktops(tcp_url, g, keys, secrets, dirs), list(dirs), scaled(300), scaled(60)):
        assert call(page, "broker_connect", msgpack.packb({"url": ws_url}))["result"].get("connected") == ws_url
        joined = call(page, "seat_relay", msgpack.packb({"genesis": g.to_wire(), "key": key_seed(SEED + me, me),
                                                         "secret": secrets[me], "seed": 5, "within": scaled(30),
                                                         "store": True, "names": ["tab", "b", "c"]}))["result"]
        assert joined["seat"] == me and joined["running"], joined
        deadline = time.monotonic() + scaled(120)
        while (state := call(page, "seat_state")["result"])["messages"] < 40:
            assert state["running"] and time.monotonic() < deadline, state
            time.sleep(0.2)

        page.refresh()                                     # mid-game: the worker and its links are gone
        ready = page.execute_async_script(READY)
        assert ready["ok"], ready
        listed = call(page, "games_list")["result"]["games"]
        [mine] = [one for one in listed if one["game_id"] == g.game_id.hex()]
        assert mine["seat"] == me and mine["names"] == ["tab", "b", "c"] and mine["broker"] == ws_url, mine
        assert mine["messages"] >= 1 and secrets[me].hex() not in repr(listed), mine
        assert call(page, "broker_connect", msgpack.packb({"url": ws_url}))["result"].get("connected") == ws_url
        resumed = call(page, "game_resume", msgpack.packb({"game_id": g.game_id.hex()[:16],
                                                          "key": key_seed(SEED + me, me), "seed": 6,
                                                          "within": scaled(30)}))["result"]
        assert "error" not in resumed and resumed["running"] and resumed["replayed"] == mine["messages"], resumed
        assert secrets[me].hex() not in repr(resumed)

        until_done(page, time.monotonic() + scaled(240))
        result = call(page, "seat_result")["result"]
    assert result["outcome"]["kind"] == "complete" and result["refused"] == [], result
    transcript = bytes.fromhex(result["transcript"])
    desk = {(dirs[i] / "games" / g.game_id.hex() / "transcript.caravan").read_bytes() for i in dirs}
    assert desk == {transcript}
    report = verify_bytes(transcript)
    assert report.ok and report.complete and report.messages == result["messages"] > 0, report.to_json()
    unknown = base64.b64encode(msgpack.packb({"game_id": "ffff", "seed": 1})).decode()
    again = page.execute_async_script(CALL, "game_resume", unknown)
    assert again == {"ok": False, "error": "game_resume: no stored game 'ffff' in this browser (a game is "
                                              "kept in the browser that joined it: open it from there)"}, again


def test_the_links_a_tab_dials_are_dialled_again_when_a_desktop_cuts_them(tab, broker, tmp_path):  # noqa: F811
    """Mid-game both desktop nodes cut their links to the tab's seat 0 and refuse it for a
    while: they never dial a seat before theirs, so only the tab dialling again (with its
    backoff) brings the game to its end."""
    page, _ = tab
    tcp_url, ws_url = broker
    keys, secrets, g = genesis(SEED + 5, time_limit=0)
    dirs, nodes = {i: tmp_path / f"seat{i}" for i in (1, 2)}, {}
    with desktop_seats(relayed_desktops(tcp_url, g, keys, secrets, dirs, nodes), list(dirs), scaled(300),
                       scaled(60)):
        assert call(page, "broker_connect", msgpack.packb({"url": ws_url}))["result"].get("connected") == ws_url
        joined = call(page, "seat_relay", msgpack.packb({"genesis": g.to_wire(), "key": key_seed(SEED + 5, 0),
                                                         "secret": secrets[0], "seed": 7,
                                                         "within": scaled(30)}))["result"]
        assert joined["running"], joined
        deadline = time.monotonic() + scaled(120)
        while (state := call(page, "seat_state")["result"])["messages"] < 40:
            assert state["running"] and time.monotonic() < deadline, state
            time.sleep(0.2)
        for i in (1, 2):
            trio.from_thread.run_sync(nodes[i].cut, 0, trio_token=nodes["token"])
        time.sleep(3)                                      # the tab's redials are refused meanwhile
        cut_at = call(page, "seat_state")["result"]
        assert cut_at["running"], cut_at
        for i in (1, 2):
            trio.from_thread.run_sync(nodes[i].restore, 0, trio_token=nodes["token"])
        until_done(page, time.monotonic() + scaled(240))
        result = call(page, "seat_result")["result"]
    assert result["outcome"]["kind"] == "complete" and result["messages"] > cut_at["messages"], result
    desk = {(dirs[i] / "games" / g.game_id.hex() / "transcript.caravan").read_bytes() for i in (1, 2)}
    assert desk == {bytes.fromhex(result["transcript"])}
