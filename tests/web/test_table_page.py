"""The table page's own behaviour, against the page server alone (no game): decisions are
offered by hand, so each case is exact. Bugs of issue 22, each pinned by a test."""

from __future__ import annotations

import queue
import re
import threading
import time
from typing import Any

import pytest
import trio
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By

from clients import games as presentations
from node.pages.web import WebClient
from protocol import games
from tests.games.pick import installed
from tests.helpers import join, timeout as scaled, wait_until
from tests.web.conftest import console_errors


GAME = next(g for g in installed() if presentations.get(g).how_to_play and presentations.get(g).tie_break)
"""The page's game: one that says how to play and breaks ties (the rest of the page is the same
for every game)."""
TITLE = games.get(GAME).title


class Page:
    """A WebClient served by trio in a thread; `offer` opens a decision, `answers` gets the choice."""

    def __init__(self):
        self.answers: queue.Queue = queue.Queue()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=trio.run, args=(self._main,), daemon=True)
        self._thread.start()
        assert self._ready.wait(scaled(30)), "the page server did not start"

    async def _main(self) -> None:
        self.client = WebClient()
        self._stop = trio.Event()
        async with trio.open_nursery() as nursery:
            self.nursery = nursery
            self.url = await nursery.start(self.client.serve, 0)
            self.token = trio.lowlevel.current_trio_token()
            await self.client.hello({"game": GAME, "title": TITLE, "seat": 0, "seats": 2,
                                     "names": ["Ann", "Bob"], "options": {}, "time_limit": 0, "game_id": "ab"})
            self._ready.set()
            await self._stop.wait()
            nursery.cancel_scope.cancel()

    def offer(self, actions: list[dict[str, Any]], kind: str = "act") -> None:
        async def ask():
            legal = [a["id"] for a in actions]
            self.answers.put(await self.client.ask({"type": "decide", "kind": kind, "view": {}, "actions": actions},
                                                   legal))
        trio.from_thread.run_sync(lambda: self.nursery.start_soon(ask), trio_token=self.token)

    def board(self, svg: str, status: str, waiting: tuple[int, ...] = (0,), since: float | None = None) -> None:
        since = time.time() if since is None else since
        trio.from_thread.run_sync(lambda: self.client.show_board(svg, status, since, {"waiting": list(waiting),
                                                                                      "chosen": [], "since": since}),
                                  trio_token=self.token)

    def stop(self) -> None:
        trio.from_thread.run_sync(self._stop.set, trio_token=self.token)
        join(self._thread, 10, "the page server's thread")


@pytest.fixture
def page():
    p = Page()
    try:
        yield p
    finally:
        p.stop()


def _moves(n: int, group: str = "moves", start: int = 0, text: str = "move") -> list[dict[str, Any]]:
    return [{"id": start + i, "action": start + i, "text": f"{text} {start + i}", "group": group, "target": None}
            for i in range(n)]


def _open(browser, timeout: float = 20):
    deadline = time.monotonic() + scaled(timeout)
    while time.monotonic() < deadline:
        if browser.find_element(By.ID, "decide").is_displayed():
            return
        time.sleep(0.05)                    # a poll's pause inside the bounded wait
    raise AssertionError("the decision did not open")


def test_the_tab_title_says_it_is_your_turn_until_you_answer(page, browser):
    browser.get(page.url)
    deadline = time.monotonic() + scaled(20)
    while browser.title != f"{TITLE} — Caravan" and time.monotonic() < deadline:
        time.sleep(0.05)                    # a poll's pause inside the bounded wait
    assert browser.title == f"{TITLE} — Caravan"
    rules = browser.find_element(By.ID, "rules")                    # How to play, in the rulebook's terms
    assert browser.find_element(By.ID, "rules-title").text == f"How to play {TITLE}"
    browser.find_element(By.ID, "rules-title").click()
    told = presentations.get(GAME).how_to_play
    assert all(head in rules.text and text[:40] in rules.text for head, text in told)
    quiet_icon = browser.find_element(By.ID, "favicon").get_attribute("href")
    page.offer(_moves(3))
    _open(browser)
    assert browser.title == f"● Your turn — {TITLE}"
    assert browser.find_element(By.ID, "favicon").get_attribute("href") != quiet_icon
    assert browser.find_element(By.ID, "sound").is_selected() is False          # sound is off by default
    browser.find_elements(By.CSS_SELECTOR, "#moves button.move")[1].click()
    assert page.answers.get(timeout=scaled(10)) == 1
    wait_until(lambda: browser.title == f"{TITLE} — Caravan", 10, "the tab title back to quiet once answered")
    assert console_errors(browser) == []


def test_a_group_of_one_move_is_played_in_one_click(page, browser):
    browser.get(page.url)
    page.offer(_moves(9, "Move a ghost") + _moves(1, "Finish", start=9, text="finish the turn"))
    _open(browser)
    finish = [b for b in browser.find_elements(By.CSS_SELECTOR, "#groups button.group") if "finish" in b.text.lower()]
    assert len(finish) == 1
    finish[0].click()
    assert page.answers.get(timeout=scaled(10)) == 9


def test_a_double_click_leaves_no_error_for_the_next_decision(page, browser):
    browser.get(page.url)
    page.offer(_moves(3))
    _open(browser)
    ActionChains(browser).double_click(browser.find_elements(By.CSS_SELECTOR, "#moves button.move")[0]).perform()
    assert page.answers.get(timeout=scaled(10)) == 0
    time.sleep(scaled(0.5))                 # stays (CONTRIBUTING): room for the second click's answer
    page.offer(_moves(3, start=10))
    _open(browser)
    time.sleep(scaled(0.5))                 # stays (CONTRIBUTING): room for an error that must not come
    assert not browser.find_element(By.ID, "error").is_displayed(), browser.find_element(By.ID, "error").text
    assert page.answers.empty()


def test_a_long_decision_keeps_the_log_on_screen(page, browser):
    browser.set_window_size(1400, 857)
    browser.get(page.url)
    page.board('<svg xmlns="http://www.w3.org/2000/svg" width="900" height="500"></svg>', "your decision")
    page.offer(_moves(60, text="a long description of a move that takes a whole line, number"))
    _open(browser)
    top = browser.execute_script("return document.getElementById('log').getBoundingClientRect().top")
    height = browser.execute_script("return window.innerHeight")
    assert top < height - 60, (top, height)


def test_number_keys_choose_and_escape_goes_back(page, browser):
    browser.get(page.url)
    page.offer(_moves(5, "Build") + _moves(5, "Trade", start=5))
    _open(browser)
    body = browser.find_element(By.TAG_NAME, "body")
    body.send_keys("2")                                  # the second kind: Trade
    assert [b.text for b in browser.find_elements(By.CSS_SELECTOR, "#moves button.move")][0] == "move 5"
    body.send_keys("\ue00c")                             # Esc: back to the kinds
    assert browser.find_elements(By.CSS_SELECTOR, "#moves button.move") == []
    body.send_keys("1")
    body.send_keys("3")                                  # Build, then its third move
    assert page.answers.get(timeout=scaled(10)) == 2


def test_sare_setup_is_two_clicks_warehouse_then_master_builder(page, browser):
    """Sa-Rê's setup move puts two pieces: a click on a space chooses the Warehouse's, then the
    places left for the Master Builder light up (and its list is in view)."""
    from clients.render.common import Svg

    svg = Svg(400, 100, "board")
    for s in range(4):
        svg.rect(10 + s * 90, 10, 80, 80, class_="space", data_target=f"p0-s{s}")
    actions, n = [], 0
    for w in range(4):
        for m in range(4):
            if m != w:
                actions.append({"id": n, "action": n, "text": f"Master Builder on space {m}",
                                "group": f"Warehouse on space {w}", "target": f"p0-s{m}", "group_target": f"p0-s{w}"})
                n += 1
    browser.set_window_size(1400, 857)
    browser.get(page.url)
    page.board(str(svg), "your decision")
    page.offer(actions)
    _open(browser)
    legal = lambda: sorted(e.get_attribute("data-target")                              # noqa: E731
                           for e in browser.find_elements(By.CSS_SELECTOR, "#board [data-target].legal"))
    assert legal() == ["p0-s0", "p0-s1", "p0-s2", "p0-s3"]
    ActionChains(browser).move_to_element(browser.find_element(By.CSS_SELECTOR, '[data-target="p0-s1"]')).click().perform()
    wait_until(lambda: legal() == ["p0-s0", "p0-s2", "p0-s3"], 10,   # the Master Builder's places now
               "the Master Builder's places to light up")
    listed = browser.find_elements(By.CSS_SELECTOR, "#moves button.move")
    assert [b.text for b in listed] == ["Master Builder on space 0", "Master Builder on space 2",
                                        "Master Builder on space 3"]
    assert browser.execute_script("const r = arguments[0].getBoundingClientRect(); return r.bottom <= innerHeight",
                                  listed[-1])
    assert page.answers.empty()
    ActionChains(browser).move_to_element(browser.find_element(By.CSS_SELECTOR, '[data-target="p0-s2"]')).click().perform()
    assert page.answers.get(timeout=scaled(10)) == actions.index(next(a for a in actions if a["group"].endswith("1")
                                                                 and a["text"].endswith("2")))


def test_the_result_table_has_the_games_captions_and_tie_break(page, browser):
    shown = presentations.get(GAME)
    key, words = shown.tie_break
    result = {"winners": [1], "scores": [5, 5], **({key: [1, 2]} if key else {})}
    browser.get(page.url)
    trio.from_thread.run(page.client.result, result, trio_token=page.token)
    wait_until(lambda: browser.find_element(By.ID, "result").is_displayed(), 10, "the game-over panel")
    rows = [th.text for th in browser.find_elements(By.CSS_SELECTOR, "#result-table tbody th")]
    assert rows[-1] == shown.result_labels.get("scores", "Final score")      # the total last
    assert browser.find_element(By.ID, "result-tie").text == f"Tied on score: the tie was broken by {words}."


def test_the_clock_says_how_long_an_awaited_seat_has_been_silent(page, browser):
    browser.get(page.url)
    since = time.time() - 75
    page.board('<svg xmlns="http://www.w3.org/2000/svg" width="90" height="50"></svg>', "waiting for Bob",
               waiting=(1,), since=since)
    deadline = time.monotonic() + scaled(10)
    clock = browser.find_element(By.ID, "clock")
    while not clock.is_displayed() and time.monotonic() < deadline:
        time.sleep(0.1)                     # a poll's pause inside the bounded wait
    shown, silent = clock.text, time.time() - since                 # 1:15, or as long as the page took
    m = re.match(r"Clock: Bob silent for (\d+):(\d\d)", shown)
    assert m and 75 <= int(m[1]) * 60 + int(m[2]) <= silent + 1, (shown, silent)


def test_the_homes_sound_and_theme_settings_reach_the_table(page, browser):
    """Each table page is its own origin: the home passes its Settings in the URL's fragment,
    and the page keeps them (and drops the fragment from the address)."""
    browser.get(page.url + "#sound=1&theme=dark")
    deadline = time.monotonic() + scaled(20)
    while not browser.find_element(By.ID, "sound").is_selected() and time.monotonic() < deadline:
        time.sleep(0.05)                    # a poll's pause inside the bounded wait
    assert browser.find_element(By.ID, "sound").is_selected()
    assert "dark" in browser.find_element(By.TAG_NAME, "html").get_attribute("class")
    assert "#" not in browser.current_url
    browser.get(page.url)                                                     # kept for this table
    assert browser.find_element(By.ID, "sound").is_selected()
    assert console_errors(browser) == []
