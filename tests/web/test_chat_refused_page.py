"""The table page in real Chromium, served by an in-process page server with a stand-in chat
(issue 34, item 5d): a line the node refuses stays in the box and the page says why; a line
the node said leaves the box. (The page used to clear the box before the node answered, so a
refused line was lost with only a passing banner.)"""

from __future__ import annotations

import threading
import time

import trio
from selenium.webdriver.common.by import By

from node.app.chat import ChatError
from node.pages.web import WebClient
from protocol import games
from tests.games.pick import some_game
from tests.helpers import join, timeout
from tests.web.conftest import console_errors

SLOW = "slow down: at most 5 chat lines per 10 s"

GAME = some_game(players=2)


class StandInChat:
    """What the page server needs of node/app/chat.py's Chat: lines, listeners and `say`, which
    refuses any line holding "flood"."""

    def __init__(self):
        self.lines, self.listeners = [], []

    async def say(self, text):
        if "flood" in text:
            raise ChatError(SLOW)
        line = {"type": "chat", "seat": 0, "name": "Ann", "text": text.strip(), "at": 0}
        self.lines.append(line)
        for listener in list(self.listeners):
            listener(line)
        return line


def _serve(started: threading.Event, stop: threading.Event, found: dict) -> None:
    async def main() -> None:
        client = WebClient()
        async with trio.open_nursery() as nursery:
            found["url"] = await nursery.start(client.serve, 0)
            await client.hello({"seat": 0, "seats": 2, "game": GAME, "title": games.get(GAME).title,
                                "names": ["Ann", "Bob"], "game_id": "ab" * 32})
            client.attach_chat(StandInChat())
            started.set()
            while not stop.is_set():
                await trio.sleep(0.05)
            nursery.cancel_scope.cancel()
    trio.run(main)


def _until(predicate, within: float, what: str):
    deadline = time.monotonic() + timeout(within)
    while time.monotonic() < deadline:
        if value := predicate():
            return value
        time.sleep(0.05)
    raise AssertionError(f"not within {within} s: {what}")


def _say(browser, text: str) -> None:
    browser.execute_script("document.getElementById('chat-text').value = arguments[0];"
                           "document.getElementById('chat-form').requestSubmit();", text)


def test_a_refused_line_stays_in_the_box_and_the_page_says_why(browser):
    started, stop, found = threading.Event(), threading.Event(), {}
    server = threading.Thread(target=_serve, args=(started, stop, found), daemon=True)
    server.start()
    try:
        assert started.wait(timeout(30)), "the page server did not start"
        browser.get(found["url"])
        _until(lambda: browser.find_element(By.ID, "chat").is_displayed(), 20, "the chat opens")
        box = browser.find_element(By.ID, "chat-text")
        log = lambda: [li.get_attribute("textContent") for li in browser.find_elements(By.CSS_SELECTOR, "#chat-log li")]

        _say(browser, "flood of words")
        note = browser.find_element(By.ID, "chat-note")
        _until(lambda: note.is_displayed(), 10, "the refusal is shown")
        assert note.text == f"not sent: {SLOW}"
        assert box.get_attribute("value") == "flood of words"         # kept, to send again later
        assert log() == []

        _say(browser, "hello Bob")
        _until(lambda: "you: hello Bob" in log(), 10, "the line is said")
        _until(lambda: box.get_attribute("value") == "", 10, "the box is emptied once the line is said")
        assert not note.is_displayed()
        assert console_errors(browser) == []
    finally:
        stop.set()
        join(server, 10, "the page server's thread")
