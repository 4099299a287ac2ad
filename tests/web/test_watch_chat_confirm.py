"""Issue 36 in real Chromium: the spectator's page shows the table talk read-only (no box to
type in; lines as text), and "confirm before sending" holds a chosen move until a second
click, Send or Enter, Esc taking it back, with nothing sent to the node meanwhile; off (the
default), one click sends as before. CARAVAN_SHOTS=DIR saves what the pages showed there
(the README's pictures: `python -m tests.web.table_talk_screenshots docs/img`)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import trio
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from trio_websocket import open_websocket_url

from node.app.chat import ChatError, Lines
from tests import helpers
from tests.node.test_spectate_chat import Page, chat_host
from tests.web.conftest import Node, console_errors, new_chromium, web_game
from tests.web.test_watch import ws_frames

SHOTS = os.environ.get("CARAVAN_SHOTS")


def wait_until(check, within: float, what: str):
    return helpers.wait_until(check, within, what, interval=0.1)


def _shot(driver, name: str) -> None:
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        driver.save_screenshot(str(Path(SHOTS) / name))


@pytest.fixture
def chrome(chrome_paths):
    driver = new_chromium(chrome_paths, performance=True)
    try:
        yield driver
    finally:
        driver.quit()


async def _with_page(url: str, *steps) -> None:
    """Ann's page over its WebSocket (a new connection: it gets the node's snapshot): wait for
    the chat to open, then run `steps` (say a line, play out) in order."""
    with trio.fail_after(helpers.timeout(120)):
        async with open_websocket_url(url.replace("http://", "ws://") + "ws") as ws:
            page = Page(ws)
            await page.chat_opens()
            for step in steps:
                await step(page)


def _chat_lines(driver) -> list[str]:
    return driver.execute_script("return [...document.querySelectorAll('#chat-log li')].map((li) => li.textContent)")


def test_a_reader_of_the_talk_signs_nothing():
    with pytest.raises(ChatError, match="only the players write it"):
        trio.run(Lines(b"g" * 32, [b"k" * 32], ["Ann"]).say, "hello")


def test_the_spectator_page_shows_the_talk_read_only(tmp_path: Path, chrome):
    h, port, url = chat_host(tmp_path)
    nodes = [h]
    try:
        trio.run(_with_page, url, lambda p: p.say("<b>welcome</b> to the table"))
        w = Node(["watch", f"127.0.0.1:{port}", "--client", "web", "--no-browser", "--json", "--priority", "normal",
                  "--out", str(tmp_path / "watched.caravan")], tmp_path / "watcher", tmp_path / "watcher.log")
        nodes.append(w)
        chrome.get(w.wait_for("web", timeout=30)["url"])
        wait_until(lambda: "Ann: <b>welcome</b> to the table" in _chat_lines(chrome), 60,
                   "the line said before the spectator came, as text")
        trio.run(_with_page, url, lambda p: p.say("good luck, Bob"))
        wait_until(lambda: "Ann: good luck, Bob" in _chat_lines(chrome), 30, "the line said while it watches")
        assert chrome.find_element(By.ID, "chat").is_displayed()
        assert chrome.find_element(By.ID, "chat-watch").is_displayed()
        for control in ("chat-form", "chat-text"):                    # read-only: nothing to type in
            assert not chrome.find_element(By.ID, control).is_displayed(), control
        assert chrome.find_elements(By.CSS_SELECTOR, "#chat-log b") and not chrome.find_elements(
            By.CSS_SELECTOR, "#chat-log li b b"), "a line is text, never markup"
        assert not chrome.find_element(By.ID, "confirm").is_displayed()   # no moves to confirm
        _shot(chrome, "watch-chat.png")
        trio.run(_with_page, url, lambda p: p.play_out())
        assert w.wait_for("transcript", timeout=120)["verified"] is True
        assert console_errors(chrome) == []
        frames = ws_frames(chrome)
        assert w.stop() == 0 and h.stop(timeout=60) == 0
    finally:
        for n in nodes:
            if n.proc.poll() is None:
                n.proc.kill()
    talk = [line for f in frames if f["type"] == "chat_history" for line in f["lines"]]
    talk += [f for f in frames if f["type"] == "chat"]
    assert {line["text"] for line in talk} == {"<b>welcome</b> to the table", "good luck, Bob"}
    assert all(set(line) <= {"type", "seat", "name", "text", "at"} for line in talk), talk


_SPY = """window.sent = []; const send = WebSocket.prototype.send;
WebSocket.prototype.send = function (data) { window.sent.push(JSON.parse(data)); return send.call(this, data); };"""
"""Every frame the page sends to its node, recorded in the page (synchronously, as sent)."""

_CHOOSE = """let m = document.querySelector('#moves button.move');
if (!m) { document.querySelector('#groups button.group').click(); m = document.querySelector('#moves button.move'); }
if (!m) m = document.querySelector('#groups button.group');   // a kind with one move: it is the move
window.chosen = m; m.click(); return document.getElementById('decide').dataset.decision;"""
"""Choose the first move by clicking it (its kind first when the moves are grouped); the open
decision's id."""


def _acts(driver) -> list[dict]:
    return [m for m in driver.execute_script("return window.sent") if m.get("type") == "act"]


def _bar(driver) -> bool:
    return driver.find_element(By.ID, "confirm-bar").is_displayed()


def _next_decision(driver, after: str | None) -> str:
    """Wait for an open decision other than `after`: its id."""
    state = "const d = document.getElementById('decide'); return d.checkVisibility() ? d.dataset.decision : null;"
    return wait_until(lambda: (d := driver.execute_script(state)) not in (None, after) and d, 60,
                      "a decision of mine opens")


def _key(driver, key: str) -> None:
    ActionChains(driver, duration=0).send_keys(key).perform()


def test_confirm_before_sending_holds_the_move_until_confirmed(tmp_path: Path, browser):
    host, bots, url = web_game(tmp_path, "fixture", 2, ["rounds=6"])
    try:
        browser.get(url)
        d1 = _next_decision(browser, None)
        assert "spectators read it too" in browser.find_element(By.ID, "chat-text").get_attribute("placeholder")
        confirm = browser.find_element(By.ID, "confirm")
        assert not confirm.is_selected(), "off by default"
        confirm.click()
        assert browser.execute_script("return localStorage.getItem('caravan.confirm')") == "1"
        browser.execute_script(_SPY)

        # the first click sends nothing; Esc takes it back
        assert browser.execute_script(_CHOOSE) == d1
        assert _bar(browser) and _acts(browser) == []
        assert "Send" in browser.find_element(By.ID, "confirm-text").text
        _shot(browser, "confirm-send.png")
        _key(browser, Keys.ESCAPE)
        assert not _bar(browser) and _acts(browser) == []
        assert browser.find_element(By.ID, "decide").is_displayed(), "still my decision: nothing was signed"

        # chosen again, Enter sends it (once)
        browser.execute_script(_CHOOSE)
        assert _bar(browser) and _acts(browser) == []
        _key(browser, Keys.ENTER)
        wait_until(lambda: len(_acts(browser)) == 1, 10, "Enter sends the held move")
        assert _acts(browser)[0]["decision"] == int(d1) and not _bar(browser)

        # the Send button
        d2 = _next_decision(browser, d1)
        browser.execute_script(_CHOOSE)
        assert _bar(browser) and len(_acts(browser)) == 1
        browser.find_element(By.ID, "confirm-send").click()
        wait_until(lambda: len(_acts(browser)) == 2, 10, "Send sends the held move")
        assert _acts(browser)[1]["decision"] == int(d2)

        # a second click on the same move
        d3 = _next_decision(browser, d2)
        browser.execute_script(_CHOOSE)
        assert len(_acts(browser)) == 2
        browser.execute_script("window.chosen.click()")
        wait_until(lambda: len(_acts(browser)) == 3, 10, "the second click sends it")
        assert _acts(browser)[2]["decision"] == int(d3)

        # remembered across a reload; turned off, one click sends as before
        d4 = _next_decision(browser, d3)
        browser.refresh()
        d4 = _next_decision(browser, None)
        confirm = browser.find_element(By.ID, "confirm")
        assert confirm.is_selected(), "the setting is remembered (localStorage)"
        confirm.click()
        browser.execute_script(_SPY)
        browser.execute_script(_CHOOSE)
        assert [a["decision"] for a in _acts(browser)] == [int(d4)] and not _bar(browser)
        assert console_errors(browser) == []
    finally:
        for n in [host, *bots]:
            if n.proc.poll() is None:
                n.proc.kill()
