"""A friend takes a seat at a turn-based table from the browser tab (issue 33): its lobby goes
by mail (clients/tab/py/tab_mail_lobby.py), so the host's node, the tab and a desktop friend
never need to run together. On a real Mosquitto that keeps its sessions (persistence, a
websockets listener, in a network namespace of the test's own): `caravan host --pace
turn-based --move-time 24h --until-idle` creates the table and stops; the tab, at 390x844,
takes a seat from the invite through the page ("Join a game"), which says so in words, and
is closed; a desktop friend joins and stops; the host's next run seats both and posts the
genesis to sign; the tab's page, opened again, signs it by itself; the friend signs; the
host's next run starts the game, and the tab's page shows it in Your games with its table
link, under the host's game id. An invite whose lobby's advert is signed by another key than
the invite's pin is refused in one plain line, as is a table whose seats are all taken (a
second tab comes after the host seated everyone). Then the game is played to its end: the
tab's player opens its table from Your games and taps the moves its page offers, while the
host's node and the friend's run one at a time (`caravan resume --until-idle`), the table
page reloaded once mid-game (its seat gone, resumed from the store); the tab's transcript is
the desktops' byte for byte and passes the real `caravan verify`. The game is the one with
the fewest decisions (tests/games/pick.py). With CARAVAN_TAB_SHOTS=DIR the phone's pictures
are written there."""

from __future__ import annotations

import json
import os
import time
from concurrent.futures import ThreadPoolExecutor

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion
from selenium.webdriver.common.by import By

from node.storage.store import GameStore
from node.tab.build import bundled_games
from protocol import genesis as G
from protocol.identity import SigningKey
from protocol.link.relay_url import lobby_topic, parse_invite
from protocol.mail import lobby_letters
from protocol.seat.hosting import BEACON_LENGTH
from tests.games.pick import cli_options, fewest_decisions, quick, short_game
from tests.helpers import timeout as scaled, wait_until
from tests.relay.nodes import RelayedGame, run_alone, verify, wait_alone
from tests.web.tab_fixtures import namespaced_broker
from tests.web.tab_fixtures import bundle, driver, second_driver, server  # noqa: F401 - fixtures
from tests.web.tab_page import CALL, READY, call, click_a_move
from tests.web.test_tab_friend import PHONE, shots

pytestmark = pytest.mark.xdist_group("tab")

TURN_BASED = ["--pace", "turn-based", "--move-time", "24h"]
DESKTOPS = (0, 1)
"""The data dirs of the host's node (seat 0) and of the desktop friend's."""


@pytest.fixture(scope="module")
def broker(tmp_path_factory):
    """Mosquitto with persistence in a namespace of its own: (its TCP URL, its ws:// URL)."""
    with namespaced_broker(tmp_path_factory.mktemp("mail-join-broker"), "cvrtmj", persistent=True) as (tcp, ws, _):
        yield tcp, ws


def open_page(page, server: str) -> None:  # noqa: F811
    """The first page at a phone's size, Python ready and the join button usable."""
    page.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", PHONE)
    page.get(server)
    answer = page.execute_async_script(READY)
    assert answer["ok"], answer
    wait_until(lambda: page.find_element(By.ID, "join").is_enabled(), 30, "the Take a seat button")


def join(page, invite: str, name: str) -> tuple[str, str]:
    """Take a seat through the page: (the line it shows once the join answered, its class)."""
    status = page.find_element(By.ID, "join-status")
    page.execute_script("const s = document.getElementById('join-status'); s.textContent = ''; s.className = ''")
    for field, value in (("join-invite", invite), ("join-name", name)):
        page.find_element(By.ID, field).clear()
        page.find_element(By.ID, field).send_keys(value)
    page.find_element(By.ID, "join").click()
    wait_until(lambda: status.get_attribute("class") == "bad" or "keep this page" in status.text, 60,
               "the join's answer on the page", why=lambda: status.text)
    text = status.text
    assert "\n" not in text and "Traceback" not in text, text
    return text, status.get_attribute("class")


def shot(page, element_id: str, path) -> None:
    """The phone's screen with `element_id` at its top."""
    page.execute_script("document.getElementById(arguments[0]).scrollIntoView()", element_id)
    page.save_screenshot(str(path))


def games_shown(page) -> list[str]:
    """Your games' lines, read at once (the page redraws the list at each of its runs)."""
    return page.execute_script("return [...document.querySelectorAll('#games li')].map((li) => li.textContent)")


def game_link(page, game_id: str) -> str | None:
    """The text of Your games' link to the table of `game_id`, once it shows."""
    return page.execute_script("const a = document.querySelector(`#games a[href$='#game=${arguments[0]}']`);"
                               "return a && a.textContent", game_id)


def tapping_while(page, run) -> tuple[list[dict], int]:
    """Tap every move the table page offers until the future `run` (a desktop's node running
    alone) is done: (its lines, the moves tapped)."""
    taps = 0
    while not run.done():
        taps += click_a_move(page)
        time.sleep(0.1)
    return run.result(), taps


def ended(lines: list[dict]) -> bool:
    """A desktop's run saw the game end."""
    return any(x["type"] in ("result", "ended") for x in lines)


def result_shown(page) -> bool:
    return page.find_element(By.ID, "result").is_displayed()


def seat_messages(page) -> int | None:
    """How many messages the tab's seat holds; None while no seat runs in the page's worker."""
    answer = page.execute_async_script(CALL, "seat_state", None)
    return answer["result"]["messages"] if answer["ok"] else None


def reload_table(page) -> None:
    """Reload the table page (its worker and seat gone) and wait until the seat resumed from
    the store with every message it held."""
    held = seat_messages(page)
    page.refresh()
    assert page.execute_async_script(READY)["ok"]
    wait_until(lambda: (seat_messages(page) or -1) >= held, 60, "the seat resumed from the store after the reload")


def play_to_the_end(page, g: RelayedGame, game_id: str, max_runs: int = 60) -> int:
    """The tab's player taps its moves while each desktop's node runs alone in turn, until the
    page shows the result and both desktops saw the end; the table page is reloaded once after
    the tab's first move. The number of moves tapped."""
    done: set[int] = set()
    taps, reloaded = 0, False
    with ThreadPoolExecutor(1) as pool:
        for run in range(max_runs):
            if taps and not reloaded:                  # the phone drops the page: it resumes from the store
                reload_table(page)
                reloaded = True
            i = DESKTOPS[run % len(DESKTOPS)]
            if i in done:
                continue
            lines, tapped = tapping_while(page, pool.submit(run_alone, g, i, game_id))
            taps += tapped
            if ended(lines):
                done.add(i)
            if done == set(DESKTOPS):
                break
    assert done == set(DESKTOPS), f"after {max_runs} runs only the desktops {done} saw the game end"
    wait_until(lambda: result_shown(page), 60, "the result on the tab's table page")
    assert reloaded, f"the game ended after {taps} moves, before the table page was reloaded"
    return taps


def forged_invite(tcp_url, invite: str) -> str:
    """An invite to another lobby whose retained advert a stranger signed and hid with this
    invite's pin (a key on the broker trying to pass for the host)."""
    parsed, stranger, lobby = parse_invite(invite), SigningKey.generate(), os.urandom(16)
    game = quick(3)[0]
    fields = {"lobby": lobby, "game": game, "title": game, "players": 3, "options": {}, "time_limit": 86400,
              "pace": G.TURN_BASED, "nonce": os.urandom(16), "beacon_length": BEACON_LENGTH,
              "host_key": stranger.public, "name": "Bea"}
    hidden = lobby_letters.hide(lobby_letters.sign_advert(stranger, fields), parsed.host_pin)
    announced = json.dumps({"lobby": lobby.hex(), "game": game, "players": 3, "seated": 1, "pace": G.TURN_BASED,
                            "mail": hidden.hex()}).encode()
    client = mqtt.Client(CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5)
    client.connect(tcp_url.host, tcp_url.port)
    client.loop_start()
    try:
        sent = client.publish(lobby_topic(lobby), announced, qos=1, retain=True)
        sent.wait_for_publish(scaled(5))
        assert sent.is_published()
    finally:
        client.disconnect()
        client.loop_stop()
    return invite.replace(parsed.lobby, lobby.hex())


def test_a_tab_takes_a_seat_at_a_turn_based_table_by_mail_and_plays_it_to_the_end(
        driver, second_driver, server, broker, tmp_path):  # noqa: F811
    tcp_url, ws_url = broker
    page, out = driver, shots(tmp_path)
    game = fewest_decisions(3, among=bundled_games())      # one the tab's bundle holds
    options = cli_options(short_game(game)[1])
    g = RelayedGame(tmp_path, ws_url, game, 3, options, host_args=[*TURN_BASED, "--until-idle", "--name", "Bea"],
                    join_args=["--until-idle"], joiners=0)
    try:
        lobby = g.lobby["lobby"]
        wait_alone(g.host, 0, g)                          # the host created the table and stopped
        open_page(page, server)

        text, kind = join(page, forged_invite(tcp_url, g.invite), "Tab")
        assert kind == "bad" and "is signed by key" in text and "nothing was sent or signed" in text, text
        assert call(page, "mail_lobbies")["result"] == {"lobbies": []}

        text, kind = join(page, g.invite, "Tab")
        assert kind == "good" and text.startswith("You asked for a seat at Bea's turn-based "), text
        assert "(1 d per move)" in text and "keep this page, or open it again later" in text, text
        shown = wait_until(lambda: games_shown(page), 30, "the lobby in Your games")
        assert len(shown) == 1 and "Waiting for the host's node to run again" in shown[0], shown
        shot(page, "join-status", out / "tab-mail-join-phone.png")
        page.get("about:blank")                           # the tab is closed

        g.add_joiner(g.invite)                            # a desktop friend joins and stops
        wait_alone(g.procs[-1], 1, g)
        run_alone(g, 0, lobby)                            # the host seats both, posts the genesis to sign

        open_page(second_driver, server)                  # another friend's tab, after every seat is taken
        text, kind = join(second_driver, g.invite, "Late")
        assert kind == "bad" and text == f"lobby {lobby[:8]} is full: its 3 seats are taken", text

        open_page(page, server)                           # the tab opens again: it signs by itself
        wait_until(lambda: any("You have seat 1." in x for x in games_shown(page)), 60, "the tab's signature",
                   why=lambda: games_shown(page))
        shot(page, "games-title", out / "tab-mail-signed-phone.png")
        run_alone(g, 1, lobby)                            # the desktop friend signs
        starts = [x for x in run_alone(g, 0, lobby) if x["type"] == "start"]
        assert starts, "the host's run that found every signature started no game"
        game_id = starts[0]["game_id"]
        link = wait_until(lambda: game_link(page, game_id), 60, "the started game in Your games",
                          why=lambda: games_shown(page))
        assert "turn-based" in link and link.split(": ", 1)[1].split(", ")[1].endswith("(you)"), link
        shot(page, "games-title", out / "tab-mail-started-phone.png")
        assert call(page, "mail_lobbies")["result"] == {"lobbies": []}
        genesis = G.parse(GameStore(g.dirs[0], bytes.fromhex(game_id)).genesis())
        me = call(page, "identity")["result"]
        assert genesis.seats[1].hex() == me["public"]     # the tab's own key holds its seat
        stored = call(page, "games_list")["result"]["games"]
        assert [(x["game_id"], x["seat"], x["broker"]) for x in stored] == [(game_id, 1, ws_url)], stored
        assert stored[0]["pace"] == G.pace_text(G.TURN_BASED, genesis.time_limit) and stored[0]["title"], stored

        page.find_element(By.CSS_SELECTOR, f"#games a[href$='#game={game_id}']").click()
        wait_until(lambda: page.current_url.endswith(f"#game={game_id}"), 30, "the table page of the game")
        assert page.execute_async_script(READY)["ok"]
        taps = play_to_the_end(page, g, game_id)
        result = call(page, "seat_result")["result"]
    finally:
        g.kill()
    for i in range(2):
        assert "Traceback" not in g.log(i)
    assert taps and result["outcome"]["kind"] == "complete" and result["refused"] == [], (taps, result)
    transcript = bytes.fromhex(result["transcript"])
    assert {p.read_bytes() for p in g.transcripts(game_id)[:2]} == {transcript}
    (tmp_path / "tab.caravan").write_bytes(transcript)
    report = verify(tmp_path / "tab.caravan")
    assert report["exit"] == 0 and report["complete"] and report["pace"] == "turn-based", report
