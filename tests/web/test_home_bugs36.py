"""Issue 36, the home, in Chromium: the host cancels a lobby it hosts (its joiners are told)
and a friend leaves one; a Play again lobby a friend declined says so and offers Cancel; the
lobby reads as a table (game, options, seats, the invite once), not a log; the phone layout
(390×844, both themes) fits the screen with 44 px tap targets; the game-over panel always has
its badge and links; bots sit where New table put them; one name per player; the search bot's
thinking time labelled; end reasons and abandon badges in words; Play again titled by its game;
no "No games yet" before the list; Open tables name the host. CARAVAN_SHOTS=DIR keeps the
screenshots the tests take."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from clients import games as presentations
from tests.games.conformance import hook
from tests.games.pick import cli_options, games_with, installed
from tests.helpers import timeout as scaled, wait_until
from tests.web.home_fixtures import api, start_home
from tests.web.test_home_live_seats import seats_shown
from tests.web.test_home_rematch import _played_together   # noqa: F401 - also registers the fixture game

SHOTS = os.environ.get("CARAVAN_SHOTS")       # a folder: the tests leave their screenshots there


def _shot(browser, name: str) -> None:
    if SHOTS:
        browser.save_screenshot(str(Path(SHOTS) / f"{name}.png"))


def _table(url: str, key: str) -> dict:
    return next(t for t in api(url, "state")["tables"] if t["key"] == key)


def _text(browser, element_id: str) -> str:
    return browser.find_element(By.ID, element_id).text


def test_the_host_cancels_its_lobby_and_the_joiner_is_told(tmp_path: Path, browser):
    ada, ada_url = start_home(tmp_path, "ada")
    bea, bea_url = start_home(tmp_path, "bea")
    try:
        api(ada_url, "settings", {"name": "Ada"})
        api(bea_url, "settings", {"name": "Bea"})
        table = api(ada_url, "host", {"game": "fixture", "seats": ["friend", "friend"]})["table"]
        invite = wait_until(lambda: _table(ada_url, table["key"])["invite"], scaled(60), "Ada's invite")
        joined = api(bea_url, "join", {"invite": "127.0.0.1:" + invite.rsplit(":", 1)[1]})["table"]
        wait_until(lambda: any("joined" in line for line in _table(ada_url, table["key"])["lines"]),
                   scaled(60), "Bea joined Ada's lobby")
        browser.get(ada_url)
        wait = WebDriverWait(browser, scaled(30))
        wait.until(lambda d: d.find_element(By.ID, "cancel").is_displayed())
        assert "waiting for every seat" in _text(browser, "lobby-state")
        # bug 16: the game and its options, the seats, the invite once; the node's lines folded away
        wait.until(lambda d: "Bea (friend) ready" in _text(d, "lobby-seats"))
        seats = [li.text for li in browser.find_elements(By.CSS_SELECTOR, "#lobby-seats li")]
        assert seats == ["seat 0 Ada (you, the host) ready", "seat 1 Bea (friend) ready",
                         "seat 2 a friend empty: waiting"], seats
        assert _text(browser, "lobby-game") == "3 players · rounds 2"
        shown = _text(browser, "lobby")
        assert shown.count(invite.rsplit("/", 1)[-1]) == 1, shown          # the invite once (its key)
        assert "port" not in shown and "key " not in shown and "caravan join" not in shown, shown
        assert browser.find_element(By.CSS_SELECTOR, "#lobby-cli summary").text == "for the command line"
        _shot(browser, "lobby-cancel")
        browser.find_element(By.CSS_SELECTOR, "#lobby-cli summary").click()
        wait.until(lambda d: "caravan join" in _text(d, "lobby-cli"))
        browser.find_element(By.ID, "cancel").click()
        wait.until(lambda d: "cancelled" in _text(d, "lobby-state"))
        assert not browser.find_element(By.ID, "cancel").is_displayed()
        assert not browser.find_element(By.ID, "invite-row").is_displayed()
        assert _table(ada_url, table["key"])["state"] == "cancelled"
        told = wait_until(lambda: _table(bea_url, joined["key"])["state"] == "failed" and _table(bea_url, joined["key"]),
                          scaled(30), "Bea's table ends")
        assert "the host closed the lobby" in told["error"], told
        assert "Traceback" not in browser.page_source
    finally:
        for home in (ada, bea):
            home.proc.terminate()
            home.stop()


def test_a_declined_play_again_says_so_and_offers_cancel(tmp_path: Path, browser):
    ada, ada_url = start_home(tmp_path, "ada")
    bea, bea_url = start_home(tmp_path, "bea")
    try:
        ids = _played_together(ada_url, bea_url)
        again = api(ada_url, "rematch", {"game_id": ids[0]})["table"]
        wait_until(lambda: _table(ada_url, again["key"])["state"] == "lobby", scaled(60), "the Play again lobby")
        api(bea_url, "rematch", {"game_id": ids[1], "decline": True})
        wait_until(lambda: _table(ada_url, again["key"])["declined"] == ["Bea"], scaled(60), "Bea's decline")
        browser.get(ada_url)
        wait = WebDriverWait(browser, scaled(30))
        wait.until(lambda d: "Bea declined to play again" in _text(d, "lobby-state"))
        assert "waiting for every seat" not in _text(browser, "lobby-state")
        assert _text(browser, "lobby-title") == "Play again: Dice duel (test fixture)"     # bug 11: not its id
        assert browser.find_element(By.ID, "cancel").is_displayed()
        _shot(browser, "lobby-declined")
        browser.find_element(By.ID, "cancel").click()
        wait.until(lambda d: "cancelled" in _text(d, "lobby-state"))
        assert _table(ada_url, again["key"])["state"] == "cancelled"
    finally:
        for home in (ada, bea):
            home.proc.terminate()
            home.stop()


# every element past the viewport's right edge, and every tap target under 44 px (a checkbox or a
# radio button counts by its label, which is what a finger hits)
MEASURE = """
const vw = document.documentElement.clientWidth;
const wide = [...document.querySelectorAll("body *")].filter((e) => { const r = e.getBoundingClientRect();
  return r.width && r.right > vw + 0.5; }).map((e) => `${e.tagName}#${e.id}.${e.className}`);
const small = [...document.querySelectorAll("button, select, input, a, summary")]
  .filter((e) => e.getClientRects().length)
  .map((e) => { const t = ["checkbox", "radio"].includes(e.type) ? e.closest("label") || e : e;
    const r = t.getBoundingClientRect();
    return [`${e.tagName}#${e.id}.${e.className} ${(e.textContent || e.type).trim().slice(0, 20)}`,
            Math.round(r.width), Math.round(r.height)]; })
  .filter(([, w, h]) => w < 44 || h < 44);
return {viewport: vw, scroll: document.documentElement.scrollWidth, wide, small};
"""


def _finished_game_and_a_lobby(url: str) -> None:
    """A finished game in Your games (Play again, Replay, Transcript, Forget) and a lobby with
    its invite: the widest things the home shows."""
    import trio

    from tests.node.test_resume_memory import _play_page

    table = api(url, "host", {"game": "fixture", "seats": ["bot:random"], "options": {"rounds": "1"}})["table"]
    page = wait_until(lambda: _table(url, table["key"])["url"], scaled(60), "the table page")
    assert trio.run(_play_page, page, None)
    wait_until(lambda: _table(url, table["key"])["state"] == "over", scaled(60), "the game over")
    searched = presentations.first(games_with("sampler", players=3))       # a search bot's lobby
    api(url, "host", {"game": searched, "seats": ["friend", "bot:search@1"]})


def test_the_phone_layout_fits_the_screen_with_44px_tap_targets(tmp_path: Path, browser):
    home, url = start_home(tmp_path)
    try:
        _finished_game_and_a_lobby(url)
        browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                                {"width": 390, "height": 844, "deviceScaleFactor": 1, "mobile": True})
        for theme in ("light", "dark"):
            api(url, "settings", {"theme": theme})
            browser.get(url)
            WebDriverWait(browser, scaled(30)).until(
                lambda d: d.find_elements(By.CSS_SELECTOR, "#game-list button.forget")
                and d.find_element(By.ID, "invite").text and d.find_elements(By.CSS_SELECTOR, "#options input"))
            assert browser.find_element(By.ID, "cancel").is_displayed()
            _shot(browser, f"phone-{theme}")
            found = browser.execute_script(MEASURE)
            assert found["viewport"] == 390, found
            assert found["scroll"] <= 390 and not found["wide"], (theme, found)
            assert not found["small"], (theme, found)
    finally:
        browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
        home.proc.terminate()
        home.stop()


def test_game_over_always_has_the_badge_and_the_links(tmp_path: Path, browser, monkeypatch):
    """On a machine too busy to draw the replay page in time (CARAVAN_FILES_TIME=0), the game-over
    panel of a table opened from the home still has the verify badge, the transcript and a
    replay (the home's, read from disk)."""
    import urllib.request

    import trio

    from tests.node.test_resume_memory import _play_page

    monkeypatch.setenv("CARAVAN_FILES_TIME", "0")
    home, url = start_home(tmp_path)
    try:
        table = api(url, "host", {"game": "fixture", "seats": ["bot:random"], "options": {"rounds": "1"}})["table"]
        page = wait_until(lambda: _table(url, table["key"])["url"], scaled(60), "the table page")
        browser.get(page)
        WebDriverWait(browser, scaled(30)).until(lambda d: d.find_element(By.ID, "conn").text != "connecting…")
        assert trio.run(_play_page, page, None)
        wait = WebDriverWait(browser, scaled(30))
        wait.until(lambda d: d.find_element(By.ID, "result").is_displayed())
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#result-files .badge")
                   and d.find_elements(By.CSS_SELECTOR, "#result-files a.transcript")
                   and d.find_elements(By.CSS_SELECTOR, "#result-files a.replay"))
        assert "verified" in browser.find_element(By.CSS_SELECTOR, "#result-files .badge").text.lower()
        _shot(browser, "game-over-links")
        replay = browser.find_element(By.CSS_SELECTOR, "#result-files a.replay").get_attribute("href")
        if not replay.startswith("blob:"):
            with urllib.request.urlopen(replay, timeout=scaled(30)) as answer:
                assert answer.status == 200 and b"<html" in answer.read(2000).lower()
    finally:
        home.proc.terminate()
        home.stop()


def test_bots_sit_where_new_table_put_them(tmp_path: Path):
    """Bug 4: New table puts a friend at seat 1 and a bot at seat 2; the bot joins first, yet it
    plays seat 2 (and is named for it), the friend seat 1."""
    ada, ada_url = start_home(tmp_path, "ada")
    bea, bea_url = start_home(tmp_path, "bea")
    try:
        api(ada_url, "settings", {"name": "Ada"})
        api(bea_url, "settings", {"name": "Bea"})
        table = api(ada_url, "host", {"game": "fixture", "seats": ["friend", "bot:heuristic"]})["table"]
        wait_until(lambda: any(line.startswith("heuristic bot 2 (") and " joined " in line for line in _table(ada_url, table["key"])["lines"]),
                   scaled(60), "the bot joined first")
        invite = _table(ada_url, table["key"])["invite"]
        api(bea_url, "join", {"invite": "127.0.0.1:" + invite.rsplit(":", 1)[1]})
        game = wait_until(lambda: [g for g in api(ada_url, "state")["games"] if len(g["names"]) == 3],
                          scaled(60), "the game stored")[0]
        assert game["names"] == ["Ada", "Bea", "heuristic bot 2"], game["names"]
    finally:
        for home in (ada, bea):
            home.proc.terminate()
            home.stop()


def test_the_abandon_badge_says_abandoned_once():
    """Bug 10: "Abandoned: abandoned: seat(s) 0 sent nothing in time; …" — the verifier's own
    reason (protocol/verify.py's words for an abandon record, one seat or several, without
    "seat(s)" or "seats 1") under the badge's one prefix."""
    from clients.replay import badge
    from protocol.verify import Report, seats_in_words

    for stalled, signers, said in (([0], [1, 2], "seat 0 sent nothing in time; seats 1, 2 co-signed the record"),
                                   ([0, 2], [1], "seats 0, 2 sent nothing in time; seat 1 co-signed the record")):
        reason = f"abandoned: {seats_in_words(stalled)} sent nothing in time; {seats_in_words(signers)} co-signed the record"
        report = Report(valid=True, complete=False, abandoned_by=stalled, error={
            "position": 9, "code": "abandoned", "seat": None, "fingerprint": None, "reason": reason})
        assert badge(report) == ("warn", f"Abandoned: {said}")


@pytest.mark.parametrize("game", [g for g in installed() if hook(g, "END_REASON")])
def test_the_end_reason_is_said_in_words(tmp_path: Path, browser, game):
    """Bug 8: a game ended by a rule its hooks' END_REASON names (e.g. Sa-Rê's turn limit) reads
    in words ("the last turn was played (the turn limit)…"), not as the raw key ("turn_limit")."""
    import trio

    from tests.node.test_resume_memory import _play_page
    from tests.web.conftest import web_game

    players, options, words, raw = hook(game, "END_REASON")
    host, bots, url = web_game(tmp_path, game, players, cli_options(options))
    try:
        browser.get(url)
        WebDriverWait(browser, scaled(30)).until(lambda d: d.find_element(By.ID, "conn").text != "connecting…")
        assert trio.run(_play_page, url, None)
        WebDriverWait(browser, scaled(60)).until(lambda d: d.find_element(By.ID, "result").is_displayed()
                                                 and "ended" in d.find_element(By.ID, "result-tie").text)
        said = browser.find_element(By.ID, "result-tie").text
        assert words in said and raw not in said, said
    finally:
        for node in (host, *bots):
            node.proc.terminate()
            node.stop()


def test_new_table_labels_the_search_bots_thinking_time(tmp_path: Path, browser):
    """Bug 7: the search bot's thinking time has a visible label saying what it is."""
    from selenium.webdriver.support.ui import Select

    home, url = start_home(tmp_path)
    try:
        browser.get(url)
        wait = WebDriverWait(browser, scaled(30))
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#seats select"))
        Select(browser.find_element(By.CSS_SELECTOR, "#seats select")).select_by_value("bot:search")
        think = browser.find_element(By.CSS_SELECTOR, "#seats input[type=number]")
        wait.until(lambda d: think.is_displayed())
        label = browser.execute_script("return arguments[0].labels[0].textContent", think)
        assert "thinking time" in label and "per move" in label, label
        think.clear()
        think.send_keys("0.5")
        browser.find_element(By.ID, "create").click()
        table = wait_until(lambda: [t for t in api(url, "state")["tables"]], scaled(30), "the table")[0]
        assert any("search@0.5" in line for line in
                   wait_until(lambda: [x for x in _table(url, table["key"])["lines"] if "bot(s) joining" in x],
                              scaled(30), "its bots")), table
    finally:
        home.proc.terminate()
        home.stop()


def test_no_games_yet_is_said_only_once_the_list_came(tmp_path: Path, browser):
    """Bug 13: a home with games first said "No games yet" until its list arrived; the page
    as served (before its script has asked) claims nothing."""
    home, url = start_home(tmp_path)
    try:
        browser.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": True})
        try:
            browser.get(url)
            assert not browser.find_element(By.ID, "no-games").is_displayed()
        finally:
            browser.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": False})
        browser.get(url)                          # an empty home says so once it knows
        WebDriverWait(browser, scaled(30)).until(lambda d: d.find_element(By.ID, "no-games").is_displayed())
    finally:
        home.proc.terminate()
        home.stop()


def test_open_tables_name_the_host(tmp_path: Path, browser):
    """Bug 14: "Sa-Rê: 1/2 seated, at 127.0.0.1:37441 (vm)" named no one: the host is named."""
    from tests.helpers import free_udp_port

    port = free_udp_port()
    ada, ada_url = start_home(tmp_path, "ada", discovery_port=port)
    bea, bea_url = start_home(tmp_path, "bea", discovery_port=port)
    try:
        api(ada_url, "settings", {"name": "Ada"})
        table = api(ada_url, "host", {"game": "fixture", "seats": ["friend"]})["table"]
        wait_until(lambda: _table(ada_url, table["key"])["state"] == "lobby", scaled(60), "Ada's lobby")
        browser.get(bea_url)
        wait = WebDriverWait(browser, scaled(60))
        wait.until(lambda d: d.find_element(By.ID, "look").is_enabled())

        def heard(d):
            items = d.find_elements(By.CSS_SELECTOR, "#lobbies li[data-lobby]")
            if not items and not d.find_element(By.ID, "looking").text:
                d.find_element(By.ID, "look").click()        # listen again: the beacon comes once a second
            return items
        item = wait.until(heard)[0]
        assert "hosted by Ada" in item.text, item.text
    finally:
        for home in (ada, bea):
            home.proc.terminate()
            home.stop()


def test_a_player_with_no_name_has_one_name(tmp_path: Path, browser):
    """Bug 6: a player with no name was "seat 0" on the table, a key fingerprint in Your games
    and "running in process 19316" beside it; now "seat 0" everywhere, no process number."""
    import re

    home, url = start_home(tmp_path)
    try:
        table = api(url, "host", {"game": "fixture", "seats": ["bot:random"], "options": {"rounds": "3"}})["table"]
        wait_until(lambda: _table(url, table["key"])["state"] == "playing", scaled(60), "the game")
        browser.get(url)
        WebDriverWait(browser, scaled(30)).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#game-list tr"))
        row = browser.find_element(By.CSS_SELECTOR, "#game-list tr").text
        assert "players: seat 0 (you), random bot 1" in row, row
        assert not re.search(r"[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}", row) and "process" not in row, row
    finally:
        home.proc.terminate()
        home.stop()


def test_a_friend_leaves_a_lobby_from_the_home(tmp_path: Path, browser):
    """A friend waiting in a lobby (bug 16) has a way out too: Leave frees the seat at the host."""
    ada, ada_url = start_home(tmp_path, "ada")
    bea, bea_url = start_home(tmp_path, "bea")
    try:
        api(bea_url, "settings", {"name": "Bea"})
        table = api(ada_url, "host", {"game": "fixture", "seats": ["friend", "friend"]})["table"]
        invite = wait_until(lambda: _table(ada_url, table["key"])["invite"], scaled(60), "Ada's invite")
        api(bea_url, "join", {"invite": "127.0.0.1:" + invite.rsplit(":", 1)[1]})
        taken = lambda: sum(s["taken"] for s in (_table(ada_url, table["key"])["lobby"] or {"seats": []})["seats"])
        wait_until(lambda: taken() == 2, scaled(60), "Bea seated at Ada's")
        browser.get(bea_url)
        wait = WebDriverWait(browser, scaled(30))
        wait.until(lambda d: d.find_element(By.ID, "cancel").is_displayed())
        assert browser.find_element(By.ID, "cancel").text == "Leave this table"
        wait.until(lambda d: d.find_element(By.ID, "lobby-game").is_displayed())     # the game and its options
        assert _text(browser, "lobby-title") == "Dice duel (test fixture)"
        assert _text(browser, "lobby-game") == "3 players · rounds 2"
        wait.until(lambda d: "Bea (you) ready" in _text(d, "lobby-seats"))               # as its host says, live
        assert seats_shown(browser) == ["seat 0 the host ready", "seat 1 Bea (you) ready", "seat 2 a player empty: waiting"]
        assert "waiting for every seat" in _text(browser, "lobby-state")
        assert not browser.find_element(By.ID, "lobby-lines").is_displayed()          # folded away
        _shot(browser, "lobby-joined")
        browser.find_element(By.ID, "cancel").click()
        wait.until(lambda d: "you left this table" in _text(d, "lobby-state"))
        wait_until(lambda: taken() == 1, scaled(30), "Bea's seat free again at Ada's")
        assert any(line.startswith("Bea (") and " left " in line for line in _table(ada_url, table["key"])["lines"])
    finally:
        for home in (ada, bea):
            home.proc.terminate()
            home.stop()


def test_a_play_again_lobby_says_which_seat_is_a_bot(tmp_path: Path):
    """Bug 16: in a Play again lobby (whose bots are seated again in the order they join) the
    seats list still says which is a bot, not "heuristic bot 2 (friend)"."""
    import trio

    from tests.node.test_resume_memory import _play_page

    ada, ada_url = start_home(tmp_path, "ada")
    bea, bea_url = start_home(tmp_path, "bea")
    try:
        api(ada_url, "settings", {"name": "Ada"})
        api(bea_url, "settings", {"name": "Bea"})
        first = api(ada_url, "host", {"game": "fixture", "seats": ["friend", "bot:random"],
                                      "options": {"rounds": "1"}})["table"]
        invite = wait_until(lambda: _table(ada_url, first["key"])["invite"], scaled(60), "Ada's invite")
        joined = api(bea_url, "join", {"invite": "127.0.0.1:" + invite.rsplit(":", 1)[1]})["table"]
        tables = ((ada, ada_url, first["key"]), (bea, bea_url, joined["key"]))
        pages = [wait_until(lambda u=u, k=k: _table(u, k)["state"] == "playing" and _table(u, k)["url"],
                            scaled(60), "a table page",
                            why=lambda: [(_table(u, k), h.log.read_text()[-1500:]) for h, u, k in tables])
                 for _, u, k in tables]

        async def both():
            async with trio.open_nursery() as nursery:
                for page in pages:
                    nursery.start_soon(_play_page, page, None)
        trio.run(both)
        game = wait_until(lambda: [g for g in api(ada_url, "state")["games"] if g["state"] == "finished"],
                          scaled(60), "the game over")[0]
        again = api(ada_url, "rematch", {"game_id": game["game_id"]})["table"]
        seats = wait_until(lambda: (lobby := _table(ada_url, again["key"])["lobby"])
                           and sum(s["taken"] for s in lobby["seats"]) == 2 and lobby["seats"],
                           scaled(60), "the bot back in the new lobby")
        assert [(s["kind"], s["taken"]) for s in seats] == [("you", True), ("friend", False), ("random bot", True)] \
            or [(s["kind"], s["taken"]) for s in seats] == [("you", True), ("random bot", True), ("friend", False)], seats
    finally:
        for home in (ada, bea):
            home.proc.terminate()
            home.stop()
