"""A friend with no desktop hosts a game from the tab's first page (issue 32): at 390×844 the
page's "Host a game" form takes the broker's ws:// URL, the game (by its title), the number of
players and a name; "Open the table" shows the invite (with its share link, `#invite=...` on
the tab's own URL, as a friend opens it) and the seats filling in as two desktop `caravan join
INVITE --bot random` processes join by the invite read from the page; once every seat signed,
the page opens the table of the game and the host plays seat 0 by clicking moves to the end:
the tab's transcript equals the desktops' and verifies (a live table, 300 s per move as a
desktop host's default). Bad input (an unknown broker scheme, a broker nobody answers at, bad
options, a time limit out of range) is refused in one line beside the form. With
CARAVAN_TAB_SHOTS=DIR the README's picture (tab-host-phone.png) is written there. Mosquitto
runs in a network namespace of the test's own (tests/web/test_tab_net.py says why)."""

from __future__ import annotations

import json
import time
from urllib.parse import quote

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from node.storage.store import GameStore
from node.tab import build as tab_build
from protocol import games as engines
from protocol import genesis as G
from protocol.verify import verify_bytes
from tests.games.pick import quick_game, short_game
from tests.helpers import killed_on_exit, timeout as scaled, wait_until
from tests.node.procs import finish, node, read_until
from tests.web.tab_fixtures import bundle, driver, server  # noqa: F401 - fixtures
from tests.web.tab_page import READY, call, click_a_move
from tests.web.test_tab_friend import PHONE, shots
from tests.web.test_tab_net import broker  # noqa: F401 - the fixture

pytestmark = pytest.mark.xdist_group("tab")

GAME = quick_game(3)


def open_page(page, server: str) -> None:  # noqa: F811
    """The first page, Python ready and the games offered in the form."""
    page.get(server)
    answer = page.execute_async_script(READY)
    assert answer["ok"], answer
    wait_until(lambda: page.find_element(By.ID, "host").is_enabled(), 30, "the Open the table button")


def fill(page, url: str, players: int, name: str, options: str | None = None, time_limit: str = "300") -> None:
    """The form: the broker, the game by its title, the players, the name, the time limit (and
    options typed in)."""
    for field, value in (("host-url", url), ("host-name", name), ("host-time-limit", time_limit)):
        page.find_element(By.ID, field).clear()
        page.find_element(By.ID, field).send_keys(value)
    Select(page.find_element(By.ID, "host-game")).select_by_visible_text(engines.get(GAME).title)
    Select(page.find_element(By.ID, "host-players")).select_by_value(str(players))
    if options is not None:
        if page.find_element(By.ID, "host-options-box").get_attribute("open") is None:
            page.find_element(By.CSS_SELECTOR, "#host-options-box summary").click()
        page.find_element(By.ID, "host-options").clear()
        page.find_element(By.ID, "host-options").send_keys(options)


def refused(page) -> str:
    """The one line the page shows beside the form once it refused, the form usable again."""
    page.execute_script("const s = document.getElementById('host-status'); s.textContent = ''; s.className = ''")
    page.find_element(By.ID, "host").click()
    wait_until(lambda: page.find_element(By.ID, "host-status").get_attribute("class") == "bad", 60,
               "the refusal beside the form", why=lambda: page.find_element(By.ID, "host-status").text)
    wait_until(lambda: page.find_element(By.ID, "host").is_enabled(), 10, "the form usable again")
    text = page.find_element(By.ID, "host-status").text
    assert "\n" not in text and "Traceback" not in text, text
    assert page.find_element(By.ID, "host-lobby").get_attribute("hidden") is not None
    return text


def options_shown(page) -> dict:
    return json.loads(page.find_element(By.ID, "host-options").get_attribute("value"))


def test_the_host_form_offers_the_bundles_games_by_title_with_their_players_and_presets(
        bundle, driver, server):  # noqa: F811
    page = driver
    open_page(page, server)
    titles = [o.text for o in Select(page.find_element(By.ID, "host-game")).options]
    assert titles == [engines.get(name).title for name in tab_build.bundled_games()], titles
    engine = engines.get(GAME)
    Select(page.find_element(By.ID, "host-game")).select_by_visible_text(engine.title)
    players = [o.text for o in Select(page.find_element(By.ID, "host-players")).options]
    assert players == [str(n) for n in range(engine.min_players, engine.max_players + 1)], players
    assert options_shown(page) == engine.default_options(engine.min_players)
    Select(page.find_element(By.ID, "host-players")).select_by_value(str(engine.max_players))
    assert options_shown(page) == engine.default_options(engine.max_players)
    presets = getattr(engines.options_module(GAME), "PRESETS", {})
    shown = [o.text for o in Select(page.find_element(By.ID, "host-preset")).options]
    assert shown == ["The default options", *presets], shown
    for name, preset in presets.items():
        Select(page.find_element(By.ID, "host-preset")).select_by_visible_text(name)
        assert options_shown(page) == {**engine.default_options(engine.max_players), **preset}, name


def test_the_host_form_refuses_bad_input_in_one_line(driver, server, broker):  # noqa: F811
    page = driver
    tcp_url, ws_url = broker
    open_page(page, server)
    fill(page, str(tcp_url), 3, "Ada")
    assert "not reachable from a tab" in refused(page)
    fill(page, "http://127.0.0.1:1/mqtt", 3, "Ada")
    text = refused(page)
    assert text.startswith("'http://127.0.0.1:1/mqtt' is not an MQTT broker URL") and "ws://" in text, text
    fill(page, "ws://127.0.0.1:9/mqtt", 3, "Ada")
    unreachable = refused(page)
    assert "ws://127.0.0.1:9/mqtt did not answer" in unreachable, unreachable
    fill(page, ws_url, 3, "Ada", time_limit="90000")
    assert "time_limit a whole number of seconds, 0 (none) to 86400" in refused(page)
    fill(page, ws_url, 3, "Ada", options='{"no such option": 1}')
    assert "no such option" in refused(page)
    fill(page, ws_url, 3, "Ada", options="{not json")
    assert refused(page).startswith("The options are not JSON")
    assert page.execute_script("return localStorage.getItem('caravan.broker')") == ws_url


def test_a_phone_hosts_from_the_first_page_two_desktops_join_by_its_invite_and_it_plays_to_the_end(
        driver, server, broker, tmp_path):  # noqa: F811
    page, out = driver, shots(tmp_path)
    _, ws_url = broker
    assert short_game(GAME)[1] == {}, "the form hosts with the game's default options"
    page.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", PHONE)
    dirs = [tmp_path / f"seat{i}" for i in (1, 2)]
    try:
        with killed_on_exit() as procs:
            open_page(page, server)
            me = call(page, "identity")["result"]
            fill(page, ws_url, 3, "Ada")
            page.find_element(By.ID, "host").click()
            invite = wait_until(lambda: page.find_element(By.ID, "host-invite").get_attribute("value"), 60,
                                "the invite on the page", why=lambda: page.find_element(By.ID, "host-status").text)
            assert invite.startswith("caravan+ws://"), invite
            link = page.find_element(By.ID, "host-link").get_attribute("href")
            assert link == f"{server.split('#')[0]}#invite={quote(invite, safe='')}", (link, server)
            seats = lambda: page.execute_script(  # noqa: E731 - read at once: the list is redrawn as it polls
                "return [...document.querySelectorAll('#host-seats li')].map((li) => li.textContent)")
            assert wait_until(lambda: seats() == ["Ada (you)", "free", "free"], 30, "the seats", why=seats)
            for i, d in enumerate(dirs, start=1):
                procs.append(node(["join", invite, "--bot", "random", "--seed", str(i), "--name", f"Desk{i}"],
                                  d, tmp_path / f"seat{i}.log"))
                if i == 1:
                    wait_until(lambda: seats() == ["Ada (you)", "Desk1", "free"], 60, "the first joiner's seat",
                               why=seats)
                    status = page.find_element(By.ID, "host-status").text
                    assert f"Hosting {engines.get(GAME).title} for 3 players: waiting for 1 more" in status, status
                    assert not page.find_element(By.ID, "host-form").is_displayed()    # the invite takes its place
                    page.execute_script("document.getElementById('host-title').scrollIntoView({block: 'start'})")
                    time.sleep(0.3)
                    page.save_screenshot(str(out / "tab-host-phone.png"))
            wait_until(lambda: "#game=" in page.current_url, 90, "the table page of the game",
                       why=lambda: page.find_element(By.ID, "host-status").text)
            game_id = page.current_url.rsplit("#game=", 1)[1]
            assert [read_until(p, "start", timeout=30)["game_id"] for p in procs] == [game_id, game_id]
            answer = page.execute_async_script(READY)
            assert answer["ok"], answer
            assert "Ada, seat 0 of 3" in wait_until(lambda: page.find_element(By.ID, "me").text, 60, "who I am")
            clicks, deadline = 0, time.monotonic() + scaled(300)
            while not page.find_element(By.ID, "result").is_displayed():
                assert time.monotonic() < deadline, page.find_element(By.ID, "status").text
                clicks += click_a_move(page)
                time.sleep(0.1)
            assert clicks > 0
            badge = wait_until(lambda: page.find_elements(By.CSS_SELECTOR, "#result-files .badge.ok"), 60,
                               "the transcript's verdict on the page")
            assert badge[0].text.startswith("Verified:")
            result = call(page, "seat_result")["result"]
            assert finish(procs, scaled(120)) == [0, 0], [(tmp_path / f"seat{i}.log").read_text()[-2000:]
                                                          for i in (1, 2)]
    finally:
        page.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    assert result["outcome"]["kind"] == "complete" and result["refused"] == [], result
    transcript = bytes.fromhex(result["transcript"])
    assert {(d / "games" / game_id / "transcript.caravan").read_bytes() for d in dirs} == {transcript}
    assert verify_bytes(transcript).ok
    genesis = G.parse(GameStore(dirs[0], bytes.fromhex(game_id)).genesis())
    assert genesis.seats[0].hex() == me["public"]             # the tab's own key holds seat 0
    assert genesis.time_limit == 300 and genesis.pace == G.LIVE   # the form's default: a desktop host's
