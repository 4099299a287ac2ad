"""A tab hosts a relayed lobby (issue 32): `lobby_host` opens it with the tab's own key (the
sans-I/O host of protocol/seat/hosting.py over the tab's relay links), two desktop nodes join
by its invite (`caravan join INVITE` processes with a bot), the tab shows who took which
seat, signs the genesis once the lobby is full and plays seat 0 to the end (`joined_play`):
every seat ends with the same transcript, which verifies. A joiner leaving frees its seat.
A bad game or bad options, or a second lobby while one is open, are refused in one line. Mosquitto runs in a network namespace of the test's own
(tests/web/test_tab_net.py says why)."""

from __future__ import annotations

import msgpack
import pytest

from node.storage.store import GameStore
from protocol import genesis as G
from protocol.verify import verify_bytes
from tests.games.pick import quick_game, short_game
from tests.helpers import killed_on_exit, timeout as scaled
from tests.node.procs import finish, node, read_until
from tests.web.tab_fixtures import bundle, driver, server, tab  # noqa: F401 - fixtures
from tests.web.tab_page import call
from tests.web.test_tab_lobby import refusal, wait_for
from tests.web.test_tab_net import broker  # noqa: F401 - the fixture

pytestmark = pytest.mark.xdist_group("tab")

GAME = quick_game(3)
OPTIONS = short_game(GAME)[1]


def test_a_tab_hosts_a_relayed_lobby_two_desktops_join_by_its_invite_and_the_game_plays_to_the_end(
        tab, broker, tmp_path):  # noqa: F811
    page, _ = tab
    _, ws_url = broker
    me = call(page, "identity")["result"]
    hosted = call(page, "lobby_host", msgpack.packb({"url": ws_url, "game": GAME, "players": 3,
                                                     "options": OPTIONS, "name": "Tab\x07"}))["result"]
    assert "error" not in hosted, hosted
    assert hosted["invite"].startswith("caravan+ws://") and hosted["lobby_id"] in hosted["invite"], hosted
    state = call(page, "lobby_state")["result"]
    assert state["hosting"] and state["state"] == "hosting" and state["invite"] == hosted["invite"], state
    assert [(s["seat"], s["name"], s["taken"], s["you"]) for s in state["seats"]] == [
        (0, "Tab", True, True), (1, "", False, False), (2, "", False, False)], state
    dirs = [tmp_path / f"seat{i}" for i in (1, 2)]
    with killed_on_exit() as procs:
        for i, d in enumerate(dirs, start=1):
            procs.append(node(["join", hosted["invite"], "--bot", "random", "--seed", str(i), "--name", f"Desk{i}"],
                              d, tmp_path / f"seat{i}.log"))
            wait_for(page, "lobby_state", lambda s, i=i: s["seats"][i]["taken"] or s["state"] != "hosting", 60)
        started = wait_for(page, "lobby_state", lambda s: s["state"] != "hosting" and s["state"] != "signing", 60)
        assert started["state"] == "started" and started["error"] == "", started
        game_id = started["game_id"]
        assert [s["name"] for s in started["seats"]] == ["Tab", "Desk1", "Desk2"], started
        assert game_id in started["joined"]
        played = call(page, "joined_play", msgpack.packb({"game_id": game_id, "seed": 5,
                                                          "within": scaled(30)}))["result"]
        assert "error" not in played and played["seat"] == 0, played
        assert "secret" not in str(hosted) + str(started) + str(played)
        assert [read_until(p, "start", timeout=30)["game_id"] for p in procs] == [game_id, game_id]
        genesis = G.parse(GameStore(dirs[0], bytes.fromhex(game_id)).genesis())
        assert genesis.seats[0].hex() == me["public"]             # the tab's own key holds seat 0
        state = wait_for(page, "seat_state", lambda s: not s["running"], 240)
        result = call(page, "seat_result")["result"]
        assert finish(procs, scaled(120)) == [0, 0], [(tmp_path / f"seat{i}.log").read_text()[-2000:] for i in (1, 2)]
    assert result["outcome"]["kind"] == "complete" and result["refused"] == [], (state, result)
    transcript = bytes.fromhex(result["transcript"])
    assert {(d / "games" / game_id / "transcript.caravan").read_bytes() for d in dirs} == {transcript}
    report = verify_bytes(transcript)
    assert report.ok and report.messages == result["messages"] > 0, report.to_json()


def test_a_tab_refuses_to_host_an_unknown_game_or_bad_options_in_one_line(tab, broker):  # noqa: F811
    page, _ = tab
    tcp_url, ws_url = broker
    refused = refusal(page, "lobby_host", {"url": ws_url, "game": "no-such-game", "players": 2})
    assert refused.startswith("lobby_host: unknown game 'no-such-game'"), refused
    refused = refusal(page, "lobby_host", {"url": ws_url, "game": GAME, "players": 3,
                                           "options": {"no such option": 1}})
    assert refused.startswith("lobby_host: ") and "no such option" in refused, refused
    refused = refusal(page, "lobby_host", {"url": ws_url, "game": GAME, "players": 99})
    assert refused.startswith("lobby_host: ") and "players" in refused, refused
    refused = refusal(page, "lobby_host", {"url": str(tcp_url), "game": GAME, "players": 3})
    assert "not reachable from a tab" in refused, refused


def test_a_joiner_leaving_the_tabs_lobby_frees_its_seat(tab, broker, tmp_path):  # noqa: F811
    page, _ = tab
    _, ws_url = broker
    hosted = call(page, "lobby_host", msgpack.packb({"url": ws_url, "game": GAME, "players": 3,
                                                     "options": OPTIONS}))["result"]
    assert "error" not in hosted, hosted
    with killed_on_exit() as procs:
        procs.append(node(["join", hosted["invite"], "--bot", "random", "--name", "Leaver"], tmp_path / "leaver",
                          tmp_path / "leaver.log"))
        seated = wait_for(page, "lobby_state", lambda s: s["seats"][1]["taken"], 60)
        assert seated["seats"][1]["name"] == "Leaver" and seated["state"] == "hosting", seated
        procs[0].terminate()                           # a joiner that stops closes its link
        left = wait_for(page, "lobby_state", lambda s: not s["seats"][1]["taken"], 60)
    assert left["state"] == "hosting" and not any(s["taken"] for s in left["seats"][1:]), left
    assert any(line.startswith("Leaver (key ") and " left (1/3 seated" in line for line in left["log"]), left["log"]
    refused = refusal(page, "lobby_host", {"url": ws_url, "game": GAME, "players": 3})
    assert refused == "lobby_host: this tab already hosts a lobby", refused
