"""A friend joins from a phone's browser tab, as the README shows it (issue 32): a desktop
`caravan host --relay ws://... --tab URL` prints an invite and the link that opens the tab with
it; the friend opens that link (`URL#invite=...`), types a name and takes a seat; the tab shows
the seats while the lobby fills (a desktop joiner comes last), then opens the table page of the
game it stored; the friend plays by clicking moves; the page is reloaded mid-game and the game
goes on from the tab's store; the game ends with the tab's transcript byte-identical to the
desktops', verified on the page and by `caravan verify`. All at 390×844. With
CARAVAN_TAB_SHOTS=DIR the pictures the README shows are written there (tab-join-phone.png,
tab-table-phone.png, tab-move-phone.png). Mosquitto runs in a network namespace of the test's
own (tests/web/test_tab_net.py says why)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import quote

import pytest
from selenium.webdriver.common.by import By

from node.storage.store import GameStore
from protocol import genesis as G
from protocol.verify import verify_bytes
from tests.games.pick import cli_options, quick_game, short_game
from tests.helpers import wait_until
from tests.node.procs import ROOT, env, read_until
from tests.relay.nodes import RelayedGame
from tests.web.tab_fixtures import bundle, driver, server  # noqa: F401 - fixtures
from tests.web.tab_page import READY, call, click_a_move
from tests.web.test_tab_net import broker  # noqa: F401 - the fixture

pytestmark = pytest.mark.xdist_group("tab")

GAME = quick_game(3)
OPTIONS = cli_options(short_game(GAME)[1])
PHONE = {"width": 390, "height": 844, "deviceScaleFactor": 1, "mobile": True}


def shots(tmp_path: Path) -> Path:
    out = Path(os.environ.get("CARAVAN_TAB_SHOTS") or tmp_path)
    out.mkdir(parents=True, exist_ok=True)
    return out


def ready(page) -> None:
    answer = page.execute_async_script(READY)
    assert answer["ok"], answer


def test_a_friend_joins_from_a_phone_tab_by_the_invite_link_and_plays_to_the_end(driver, server, broker,  # noqa: F811
                                                                                 tmp_path):
    page, out = driver, shots(tmp_path)
    _, ws_url = broker
    page.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", PHONE)
    g = RelayedGame(tmp_path, ws_url, GAME, 3, OPTIONS, host_args=["--name", "Ada", "--tab", server],
                    join_args=["--name", "Cy"], joiners=0)
    try:
        link = read_until(g.host, "tab_link", timeout=20)["link"]      # what `caravan host --tab URL` printed
        assert link == f"{server}#invite={quote(g.invite, safe='')}", link
        page.get(link)
        ready(page)
        assert page.find_element(By.ID, "join-invite").get_attribute("value") == g.invite
        fingerprint = wait_until(lambda: page.find_element(By.ID, "key-fingerprint").text.strip("…"), 30,
                                 "the tab's key fingerprint")
        me = call(page, "identity")["result"]
        assert fingerprint == me["fingerprint"], (fingerprint, me)
        page.find_element(By.ID, "join-name").send_keys("Bea")
        wait_until(lambda: page.find_element(By.ID, "join").is_enabled(), 30, "the Take a seat button")
        page.find_element(By.ID, "join").click()
        you = wait_until(lambda: page.find_elements(By.CSS_SELECTOR, "#join-seats li.you"), 60,
                         "the tab's own seat in the lobby",
                         why=lambda: page.find_element(By.ID, "join-status").text)
        assert [li.text for li in page.find_elements(By.CSS_SELECTOR, "#join-seats li")] == ["Ada", "Bea (you)", "free"]
        assert you[0].text == "Bea (you)" and "waiting for 1 more" in page.find_element(By.ID, "join-status").text
        page.execute_script("document.getElementById('join-title').scrollIntoView({block: 'start'})")
        page.save_screenshot(str(out / "tab-join-phone.png"))
        g.add_joiner(g.invite)
        game_id = g.wait_started()
        wait_until(lambda: f"#game={game_id}" in page.current_url, 60, "the table page of the game",
                   why=lambda: page.find_element(By.ID, "join-status").text)
        ready(page)
        assert "Bea, seat 1 of 3" in wait_until(lambda: page.find_element(By.ID, "me").text, 60, "who I am")
        clicks, reloaded, shot = 0, False, False
        deadline = time.monotonic() + 300
        while not page.find_element(By.ID, "result").is_displayed():
            assert time.monotonic() < deadline, page.find_element(By.ID, "status").text
            if clicks >= 2 and not shot:               # the README's pictures: the board, then the moves
                if not page.find_element(By.ID, "decide").is_displayed():
                    time.sleep(0.1)
                    continue
                shot = True
                page.execute_script("window.scrollTo(0, 0)")
                time.sleep(0.3)
                page.save_screenshot(str(out / "tab-table-phone.png"))
                page.execute_script("document.getElementById('status').scrollIntoView({block: 'start'});"
                                    "window.scrollBy(0, -48)")
                time.sleep(0.3)
                page.save_screenshot(str(out / "tab-move-phone.png"))
            if click_a_move(page):
                clicks += 1
                if clicks == 4 and not reloaded:       # the phone drops the page: it resumes from the store
                    page.refresh()
                    ready(page)
                    reloaded = True
            time.sleep(0.1)
        assert reloaded and shot, f"the game ended after {clicks} moves, before the reload"
        badge = wait_until(lambda: page.find_elements(By.CSS_SELECTOR, "#result-files .badge.ok"), 60,
                           "the transcript's verdict on the page")
        assert badge[0].text.startswith("Verified:")
        result = call(page, "seat_result")["result"]
        assert g.finish(timeout=120) == [0, 0], [g.log(i)[-2000:] for i in (0, 1)]
    finally:
        g.kill()
        page.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    assert result["outcome"]["kind"] == "complete" and result["refused"] == [], result
    transcript = bytes.fromhex(result["transcript"])
    assert {p.read_bytes() for p in g.transcripts(game_id)[:2]} == {transcript}
    assert verify_bytes(transcript).ok
    path = tmp_path / "tab.caravan"
    path.write_bytes(transcript)
    cli = subprocess.run([sys.executable, "-m", "node", "verify", str(path)], capture_output=True, text=True,
                         env=env(), cwd=ROOT, timeout=120)
    assert cli.returncode == 0, cli.stdout + cli.stderr
    genesis = G.parse(GameStore(g.dirs[0], bytes.fromhex(game_id)).genesis())
    assert genesis.seats[1].hex() == me["public"]             # the tab's own key holds its seat


def test_a_table_link_to_a_game_this_tab_does_not_hold_says_so(driver, server, bundle):  # noqa: F811
    """`table.html#game=ID` of a game not in this browser's store (a link from another phone, a
    store cleared): the table page says why in one line, and nothing else happens."""
    manifest = json.loads((bundle.out / "manifest.json").read_bytes())
    driver.get("about:blank")                          # not a hash change of a table page already open
    driver.get(f"{server}{manifest['files']['table.html']['path']}#game=ffff")
    ready(driver)
    said = wait_until(lambda: refused(driver, "ffff"), 30, "the table page's refusal", why=lambda: conn(driver))
    assert said == ("Refused: no stored game 'ffff' in this browser (a game is kept in the browser "
                    "that joined it: open it from there)"), said
    assert not driver.find_element(By.ID, "decide").is_displayed()
    driver.execute_script("location.hash = 'game=eeee'")   # another game's link on the open page: that game's page
    wait_until(lambda: refused(driver, "eeee"), 30, "the other game's refusal", why=lambda: conn(driver))


def conn(driver) -> str:
    """The table page's connection line ("" while the page is loading)."""
    try:
        return driver.find_element(By.ID, "conn").text
    except Exception:                  # noqa: BLE001 - the page is (re)loading: nothing to read yet
        return ""


def refused(driver, game: str) -> str | None:
    said = conn(driver)
    return said if said.startswith("Refused:") and f"'{game}'" in said else None
