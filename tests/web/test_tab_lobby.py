"""A friend in the browser tab takes a seat in a relayed lobby by its invite (issue 32): a
`caravan host --relay ws://...` process prints the invite, the tab joins it with its own key
(tab_lobby `lobby_join`: the sans-I/O joiner of protocol/seat/joiner.py over the tab's relay
link), sees the seats while the lobby fills, signs the genesis, and plays the game to the end
over relay links (`joined_play`) with the host and a desktop joiner: every seat ends with the
same transcript, which verifies. An invite pinned to another key, or naming another game,
is refused in one line and nothing is signed. Mosquitto runs in a network namespace of the
test's own (tests/web/test_tab_net.py says why)."""

from __future__ import annotations

import base64
import time

import msgpack
import pytest

from node.storage.store import GameStore
from protocol import genesis as G
from protocol.identity import SigningKey
from protocol.link.handshake import key_pin
from protocol.verify import verify_bytes
from tests.games.pick import cli_options, quick_game, short_game
from tests.helpers import timeout as scaled
from tests.relay.nodes import RelayedGame
from tests.web.tab_fixtures import bundle, driver, server, tab  # noqa: F401 - fixtures
from tests.web.tab_page import CALL, call
from tests.web.test_tab_net import broker  # noqa: F401 - the fixture

pytestmark = pytest.mark.xdist_group("tab")

GAME = quick_game(3)
OPTIONS = cli_options(short_game(GAME)[1])

START_JOIN = """const data = Uint8Array.from(atob(arguments[0]), (c) => c.charCodeAt(0));
window.caravanJoin = window.caravanTab.call("lobby_join", data).then(
  (r) => ({ok: true, result: r}), (e) => ({ok: false, error: String(e && e.message || e)}));"""
AWAIT_JOIN = "const done = arguments[arguments.length - 1]; window.caravanJoin.then(done);"


def packed(args: dict) -> str:
    return base64.b64encode(msgpack.packb(args)).decode()


def refusal(page, op: str, args: dict) -> str:
    """The one line the worker refused `op` with."""
    answer = page.execute_async_script(CALL, op, packed(args))
    assert not answer["ok"] and "\n" not in answer["error"], answer
    return answer["error"]


def wait_for(page, op: str, done, within: float) -> dict:
    """Call `op` until `done(result)`, for at most `within` seconds."""
    deadline = time.monotonic() + scaled(within)
    while not done(result := call(page, op)["result"]):
        assert time.monotonic() < deadline, result
        time.sleep(0.2)
    return result


def test_a_tab_joins_a_relayed_lobby_by_its_invite_with_its_own_key_and_plays_to_the_end(
        tab, broker, tmp_path):  # noqa: F811
    page, _ = tab
    _, ws_url = broker
    me = call(page, "identity")["result"]
    g = RelayedGame(tmp_path, ws_url, GAME, 3, OPTIONS, joiners=0)
    try:
        page.execute_script(START_JOIN, packed({"invite": g.invite, "name": "Tab", "game": GAME,
                                                "within": scaled(30)}))
        waiting = wait_for(page, "lobby_state", lambda s: any(x["you"] for x in s["seats"]), 60)
        assert waiting["joining"] and waiting["game"] == GAME and waiting["players"] == 3, waiting
        assert [(s["seat"], s["taken"], s["you"]) for s in waiting["seats"]] == [(0, True, False), (1, True, True),
                                                                                 (2, False, False)], waiting
        assert waiting["seats"][1]["name"] == "Tab"
        g.add_joiner(g.invite)
        joined = page.execute_async_script(AWAIT_JOIN)
        assert joined["ok"] and "error" not in joined["result"], joined
        joined = joined["result"]
        played = call(page, "joined_play", msgpack.packb({"game_id": joined["game_id"], "seed": 5,
                                                          "within": scaled(30)}))["result"]
        assert "error" not in played and played["seat"] == 1, played
        assert "secret" not in str(joined) + str(played)
        game_id = g.wait_started()
        assert joined["game_id"] == game_id and joined["seat"] == 1 and joined["game"] == GAME, joined
        genesis = G.parse(GameStore(g.dirs[0], bytes.fromhex(game_id)).genesis())
        assert genesis.seats[1].hex() == me["public"]             # the tab's own key holds its seat
        assert joined["names"][1] == "Tab" and len(joined["names"]) == 3
        state = wait_for(page, "seat_state", lambda s: not s["running"], 240)
        result = call(page, "seat_result")["result"]
        assert g.finish(timeout=120) == [0, 0], [g.log(i)[-2000:] for i in (0, 1)]
    finally:
        g.kill()
    assert result["outcome"]["kind"] == "complete" and result["refused"] == [], (state, result)
    transcript = bytes.fromhex(result["transcript"])
    assert {p.read_bytes() for p in g.transcripts(game_id)[:2]} == {transcript}
    report = verify_bytes(transcript)
    assert report.ok and report.messages == result["messages"] > 0, report.to_json()
    assert call(page, "lobby_state")["result"] == {"joining": False, "seats": [], "joined": [game_id]}


def test_the_tab_refuses_a_lobby_whose_host_is_not_the_pinned_key_or_of_another_game(
        tab, broker, tmp_path):  # noqa: F811
    page, _ = tab
    _, ws_url = broker
    g = RelayedGame(tmp_path, ws_url, GAME, 3, OPTIONS, joiners=0)
    try:
        head, _, pin = g.invite.rpartition("/")
        other = head + "/" + key_pin(SigningKey.generate().public).hex()
        refused = refusal(page, "lobby_join", {"invite": other, "within": 3})
        assert refused.startswith("lobby_join: no lobby answered at the invite's host key"), refused
        refused = refusal(page, "lobby_join", {"invite": g.invite, "game": "not-" + GAME, "within": scaled(30)})
        assert refused == f"lobby_join: the lobby is for {GAME!r}, not {'not-' + GAME!r}", refused
        refused = refusal(page, "lobby_join", {"invite": head})
        assert refused.startswith("lobby_join: ") and "names no host key" in refused, refused
        assert call(page, "lobby_state")["result"]["joining"] is False
        assert g.host.poll() is None                   # the host's lobby still waits: nothing was signed
    finally:
        g.kill()
