"""Table talk in the browser tab (issue 32): the tab's table page (table.html, decided on the
page, its game kept in the tab's store) and two desktop GameNodes (tests/tab_seats.py
relayed_desktops, each given the desktop's Chat as runner.py gives it) talk through a real
Mosquitto (the broker of tests/web/test_tab_net.py). A line typed in the page's chat box
reaches the desktops (their Chat and chat.jsonl); a desktop's line shows on the page; a line a
desktop forges (another seat's line under its own key) never shows, while its honest line
after it does; the page reloaded resumes the stored game, shows the talk again and talks on;
then the game is played to its end on the page. The rules are the desktop's
(protocol/seat/chat.py); tests/core/test_tab_chat.py checks the tab's side in CPython."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import msgpack
import pytest
import trio
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from node.app.chat import FILE, Chat
from protocol import wire
from protocol.seat import chat as talk
from tests.helpers import timeout as scaled, wait_until
from protocol.identity import SigningKey
from tests.tab_seats import desktop_seats, genesis, key_seed, relayed_desktops, tab_module
from tests.web.tab_fixtures import bundle, driver, server  # noqa: F401 - fixtures
from tests.web.tab_page import READY, call, click_a_move
from tests.web.test_tab_net import broker  # noqa: F401 - the fixture

pytestmark = pytest.mark.xdist_group("tab")

SEED = 29
NAMES = ["Tab", "Desk1", "Desk2"]


@pytest.fixture(scope="module")
def table_url(driver, server, bundle):  # noqa: F811
    """The bundle's table.html loaded at 390x844 (a phone), Python ready in its worker: its URL."""
    manifest = json.loads((bundle.out / "manifest.json").read_bytes())
    url = server + manifest["files"]["table.html"]["path"]
    driver.set_window_size(390, 844)
    driver.get(url)
    ready = driver.execute_async_script(READY)
    assert ready["ok"], ready
    return url


class Desks:
    """Desktop seats 1 and 2 (tests/tab_seats.py relayed_desktops, in desktop_seats' trio thread),
    each given the desktop's Chat as runner.py gives it; `say` and `send` run in that thread."""

    def __init__(self, tcp_url: Any, g: Any, keys: list, secrets: list[bytes], tmp: Path):
        self.g, self.keys = g, keys
        self.nodes: dict[Any, Any] = {}
        self.start = relayed_desktops(tcp_url, g, keys, secrets, {i: tmp / f"seat{i}" for i in (1, 2)}, self.nodes)

    def attach_chats(self) -> None:
        def attach() -> None:
            for i in (1, 2):
                node = self.nodes[i]
                node.chat = Chat(node.store.dir, self.keys[i], self.g.game_id, list(self.g.seats), list(NAMES))
                node.chat.send = node.send_all
        trio.from_thread.run_sync(attach, trio_token=self.nodes["token"])

    def say(self, i: int, text: str) -> dict:
        return trio.from_thread.run(self.nodes[i].chat.say, text, trio_token=self.nodes["token"])

    def send(self, i: int, frame: dict) -> None:
        trio.from_thread.run(self.nodes[i].send_all, frame, trio_token=self.nodes["token"])

    def texts(self, i: int) -> list[str]:
        return [line["text"] for line in list(self.nodes[i].chat.lines)]


def _log(page: Any) -> list[str]:
    """The page's chat box, a line each ("you: …", "Desk1: …")."""
    return [li.text for li in page.find_elements(By.CSS_SELECTOR, "#chat-log li")]


def test_the_tab_and_desktop_nodes_talk_at_the_table_and_a_reload_shows_the_talk(driver, table_url, broker,  # noqa: F811
                                                                                 tmp_path):
    page = driver
    tcp_url, ws_url = broker
    keys, secrets, g = genesis(SEED)
    desks = Desks(tcp_url, g, keys, secrets, tmp_path)
    with desktop_seats(desks.start, [1, 2], scaled(300), scaled(60)):
        desks.attach_chats()                           # before the tab links: no line can come earlier
        # seat 0's key becomes the tab's own (restored from a backup): a reload resumes the
        # stored game with the tab's key, as a game joined in the tab does
        backup = tab_module("tab_backup").make(SigningKey.from_seed(key_seed(SEED, 0)), "table talk")
        restored = call(page, "backup_restore", json.dumps(
            {"file": backup.decode(), "passphrase": "table talk", "replace": True}).encode())
        assert restored["ok"], restored
        assert call(page, "broker_connect", msgpack.packb({"url": ws_url}))["ok"]
        joined = call(page, "seat_relay", msgpack.packb(
            {"genesis": g.to_wire(), "key": key_seed(SEED, 0), "secret": secrets[0], "seed": 0,
             "within": scaled(30), "decider": "page", "names": NAMES, "store": True}))
        assert joined["ok"] and joined["result"]["running"], joined
        wait_until(lambda: "Tab, seat 0 of 3" in page.find_element(By.ID, "me").text, 60, "the table")

        # the tab says a line: every desktop shows and keeps it
        box = page.find_element(By.ID, "chat-text")
        box.send_keys("hello from the tab", Keys.ENTER)
        for i in (1, 2):
            wait_until(lambda i=i: "hello from the tab" in desks.texts(i), 60, f"the tab's line at seat {i}")
            kept = [json.loads(x) for x in (desks.nodes[i].store.dir / FILE).read_text().splitlines()]
            assert [(r["seat"], r["text"]) for r in kept] == [(0, "hello from the tab")]
        wait_until(lambda: "you: hello from the tab" in _log(page), 30, "the tab's own line on its page")
        wait_until(lambda: box.get_attribute("value") == "", 30, "the box cleared once the line was said")

        # a desktop's line shows on the tab's page with its name, and at the other desktop
        # once their link is up (a line said while a link is down is lost to that seat)
        wait_until(lambda: 2 in desks.nodes[1].conns and 1 in desks.nodes[2].conns, 60, "the desktops' link")
        desks.say(1, "hi from desk one")
        wait_until(lambda: "Desk1: hi from desk one" in _log(page), 60, "the desktop's line on the page",
                   why=lambda: _log(page))
        wait_until(lambda: "hi from desk one" in desks.texts(2), 60, "desk one's line at desk two")

        # seat 2's node sends a line of seat 1 under its own key (forged), then an honest line:
        # the honest one shows, the forged one never does (the links keep their order)
        n = int(time.time() * 1000) + 1
        body = wire.encode([talk.DOMAIN, g.game_id, keys[1].public, n, "forged by desk two"])
        desks.send(2, {"t": "chat", "b": body, "s": keys[2].sign(body)})
        desks.say(2, "honest desk two")
        wait_until(lambda: "Desk2: honest desk two" in _log(page), 60, "the honest line after the forged one")
        assert not any("forged" in line for line in _log(page)), _log(page)
        wait_until(lambda: "honest desk two" in desks.texts(1), 60, "desk two's line at desk one")
        assert not any("forged" in text for text in desks.texts(1)), desks.texts(1)

        # the page reloaded: the stored game resumes, and its talk shows again
        said = ["you: hello from the tab", "Desk1: hi from desk one", "Desk2: honest desk two"]
        old_links = {i: desks.nodes[i].conns.get(0) for i in (1, 2)}
        page.get(f"{table_url}#game={g.game_id.hex()}")
        page.refresh()
        ready = page.execute_async_script(READY)
        assert ready["ok"], ready
        wait_until(lambda: _log(page) == said, 60, "the talk again after the reload", why=lambda: _log(page))
        # and the resumed seat talks on, once it is linked again (talk is not resent: a line
        # said while a link is down is lost to that seat, as between desktops)
        for i in (1, 2):
            wait_until(lambda i=i: desks.nodes[i].conns.get(0) not in (None, old_links[i]), 60,
                       f"the resumed tab linked to seat {i} again")
        page.find_element(By.ID, "chat-text").send_keys("back again", Keys.ENTER)
        wait_until(lambda: "back again" in desks.texts(1), 60, "the resumed tab's line at a desktop")

        # talk never stops the game: it ends as the tab's player taps its moves
        deadline = time.monotonic() + scaled(300)
        while not page.find_element(By.ID, "result").is_displayed():
            assert time.monotonic() < deadline, page.find_element(By.ID, "status").text
            click_a_move(page)
            time.sleep(0.1)
    assert call(page, "seat_result")["result"]["outcome"]["kind"] == "complete"
