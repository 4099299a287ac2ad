"""Issue 33: a turn-based table's clock on the table page reads in hours and days (its time
per move is a day, not 1440:00 minutes)."""

from __future__ import annotations

import time

import pytest
import trio
from selenium.webdriver.common.by import By

from node.pages.web import WebClient
from tests.helpers import timeout as scaled, wait_until
from tests.web.test_table_page import GAME, TITLE, Page


class TurnBasedPage(Page):
    """The page server of a turn-based table with a day per move."""

    async def _main(self) -> None:
        self.client = WebClient()
        self._stop = trio.Event()
        async with trio.open_nursery() as nursery:
            self.nursery = nursery
            self.url = await nursery.start(self.client.serve, 0)
            self.token = trio.lowlevel.current_trio_token()
            await self.client.hello({"game": GAME, "title": TITLE, "seat": 0, "seats": 2,
                                     "names": ["Ann", "Bob"], "options": {}, "time_limit": 86400,
                                     "pace": "turn-based", "game_id": "ab"})
            self._ready.set()
            await self._stop.wait()
            nursery.cancel_scope.cancel()


@pytest.fixture
def day_page():
    p = TurnBasedPage()
    try:
        yield p
    finally:
        p.stop()


def test_a_turn_based_clock_reads_in_hours_and_days(day_page, browser):
    browser.get(day_page.url)
    day_page.board('<svg xmlns="http://www.w3.org/2000/svg" width="90" height="50"></svg>', "waiting for Bob",
                   waiting=(1,), since=time.time() - 2 * 3600 - 5 * 60)
    clock = browser.find_element(By.ID, "clock")
    wait_until(clock.is_displayed, 10, "the clock")
    assert clock.text == "Clock: Bob silent for 2 h 5 min (may be recorded silent after 1 d 0 h)", clock.text
