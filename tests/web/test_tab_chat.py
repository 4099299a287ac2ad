"""Table talk in the browser tab (issue 32): the tab's table page (table.html, decided on the
page, its game kept in the tab's store) and two desktop GameNodes (trio, paho, each with the
desktop's Chat as runner.py attaches it) talk through a real Mosquitto (the broker of
tests/web/test_tab_net.py). A line typed in the page's chat box reaches the desktops (their
Chat and chat.jsonl); a desktop's line shows on the page; a line a desktop forges (another
seat's line under its own key) never shows, while its honest line after it does; and the page
reloaded resumes the stored game and shows the talk again. The rules are the desktop's
(protocol/seat/chat.py); tests/core/test_tab_chat.py checks the tab's side in CPython."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

import msgpack
import pytest
import trio
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from node.app.chat import FILE, Chat
from node.app.game import GameNode
from node.net import relay as desk_relay
from node.storage.store import GameStore
from protocol import wire
from protocol.seat import chat as talk
from tests.helpers import timeout as scaled, wait_until
from tests.node.conftest import bot_decider
from protocol.identity import SigningKey
from tests.tab_seats import desktop_seats, genesis, key_seed, tab_module
from tests.web.tab_fixtures import bundle, driver, server  # noqa: F401 - fixtures
from tests.web.tab_page import READY, call
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
    """Desktop seats 1 and 2 in a trio thread (tests/tab_seats.py desktop_seats), each a GameNode
    with its Chat; `say` and `send` run in that thread; `stop` ends them."""

    def __init__(self, tcp_url: Any, g: Any, keys: list, secrets: list[bytes], tmp: Path):
        self.tcp_url, self.g, self.keys, self.secrets, self.tmp = tcp_url, g, keys, secrets, tmp
        self.nodes: dict[int, GameNode] = {}
        self.token: Any = None
        self.stopping = threading.Event()

    async def one(self, nursery: trio.Nursery, i: int) -> None:
        await nursery.start(self._run, i)

    async def _run(self, i: int, task_status=trio.TASK_STATUS_IGNORED) -> None:
        g, folder = self.g, self.tmp / f"seat{i}"
        GameStore.create(folder, g.to_wire(), g.game_id, {"secret": self.secrets[i], "committed": wire.encode([])}, {})
        store = GameStore(folder, g.game_id)
        async with desk_relay.connect(self.tcp_url, self.keys[i].public, scopes=[g.game_id]) as relay:
            node = GameNode(store, self.keys[i], bot_decider(i), ("127.0.0.1", 0), {}, relay=relay.endpoint(g.game_id))
            node.chat = Chat(store.dir, self.keys[i], g.game_id, list(g.seats), list(NAMES))     # as runner.py does
            node.chat.send = node.send_all
            self.nodes[i], self.token = node, trio.lowlevel.current_trio_token()
            async with trio.open_nursery() as inner:
                inner.start_soon(self._stop_when_asked, inner.cancel_scope)
                await inner.start(node.run)
                task_status.started()

    async def _stop_when_asked(self, scope: trio.CancelScope) -> None:
        while not self.stopping.is_set():
            await trio.sleep(0.05)
        scope.cancel()

    def say(self, i: int, text: str) -> dict:
        return trio.from_thread.run(self.nodes[i].chat.say, text, trio_token=self.token)

    def send(self, i: int, frame: dict) -> None:
        trio.from_thread.run(self.nodes[i].send_all, frame, trio_token=self.token)

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
    with desktop_seats(desks.one, [1, 2], scaled(300), scaled(60)):
        try:
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

            # a desktop's line shows on the tab's page with its name
            desks.say(1, "hi from desk one")
            wait_until(lambda: "Desk1: hi from desk one" in _log(page), 60, "the desktop's line on the page",
                       why=lambda: _log(page))

            # seat 2's node sends a line of seat 1 under its own key (forged), then an honest line:
            # the honest one shows, the forged one never does (the links keep their order)
            n = int(time.time() * 1000) + 1
            body = wire.encode([talk.DOMAIN, g.game_id, keys[1].public, n, "forged by desk two"])
            desks.send(2, {"t": "chat", "b": body, "s": keys[2].sign(body)})
            desks.say(2, "honest desk two")
            wait_until(lambda: "Desk2: honest desk two" in _log(page), 60, "the honest line after the forged one")
            assert not any("forged" in line for line in _log(page)), _log(page)

            # the page reloaded: the stored game resumes, and its talk shows again
            said = ["you: hello from the tab", "Desk1: hi from desk one", "Desk2: honest desk two"]
            page.get(f"{table_url}#game={g.game_id.hex()}")
            page.refresh()
            ready = page.execute_async_script(READY)
            assert ready["ok"], ready
            wait_until(lambda: _log(page) == said, 60, "the talk again after the reload", why=lambda: _log(page))
            # and the resumed seat talks on: its line reaches the desktops
            page.find_element(By.ID, "chat-text").send_keys("back again", Keys.ENTER)
            wait_until(lambda: "back again" in desks.texts(1), 60, "the resumed tab's line at a desktop")
        finally:
            desks.stopping.set()
