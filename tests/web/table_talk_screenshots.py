"""Redraw the README pictures of issue 36 (docs/img/watch-chat.png: a spectator's page with
the table talk, read-only; docs/img/confirm-send.png: confirm moves holding a chosen move) in
headless Chromium, at 1400×857: Ann plays the installed game quickest over real nodes for two
(tests.games.pick) in a page driven over its WebSocket against a random bot, says three lines,
and a watcher with its page follows.

    python -m tests.web.table_talk_screenshots docs/img
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path

import trio
from trio_websocket import open_websocket_url

from tests.games.pick import option_args, quick
from tests.node.test_spectate_chat import Page
from tests.web.conftest import Node, new_chromium


def _until(check, within: float = 30.0) -> None:
    """Poll the page for a picture worth taking (a drawing script, not a test: no assertion)."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline and not check():
        time.sleep(0.2)


def main(out: Path, tmp: Path) -> None:
    from selenium.webdriver.common.by import By

    game, options = quick(2)
    ann = Node(["host", game, "--players", "2", *option_args(options), "--client", "web", "--no-browser",
                "--no-discovery", "--bind", "127.0.0.1", "--time-limit", "0", "--name", "Ann"], tmp / "ann", tmp / "ann.log")
    nodes = [ann]
    port = ann.wait_for("lobby")["port"]
    url = ann.wait_for("web", timeout=60)["url"]
    nodes.append(Node(["join", f"127.0.0.1:{port}", "--bot", "random", "--name", "Bob", "--bind", "127.0.0.1",
                       "--seed", "3"], tmp / "bob", tmp / "bob.log"))

    async def ann_plays(moves: int, *lines: str) -> None:
        async with open_websocket_url(url.replace("http://", "ws://") + "ws") as ws:
            page = Page(ws)
            await page.chat_opens()
            for line in lines:
                await page.say(line)
            while moves:
                if page.decide is not None:
                    d, page.decide = page.decide, None
                    await ws.send_message(json.dumps({"type": "act", "decision": d["decision"],
                                                      "action": d["actions"][-1]["id"]}))
                    moves -= 1
                await page.next()

    driver = None
    try:
        trio.run(ann_plays, 0, "good evening, Bob — good luck", "<b>bold</b> claims are shown as text")
        w = Node(["watch", f"127.0.0.1:{port}", "--client", "web", "--no-browser", "--json", "--priority", "normal",
                  "--out", str(tmp / "w.caravan")], tmp / "w", tmp / "w.log")
        nodes.append(w)
        watch_url = w.wait_for("web", timeout=30)["url"]
        w.wait_for("watching", timeout=30)
        trio.run(ann_plays, 4, "your move, Bob")
        driver = new_chromium(window="1400,857")
        driver.get(watch_url)
        _until(lambda: len(driver.find_elements(By.CSS_SELECTOR, "#chat-log li")) >= 3)
        time.sleep(1)                                     # the board's last picture
        driver.save_screenshot(str(out / "watch-chat.png"))
        driver.get(url)
        driver.execute_script("localStorage.setItem('caravan.confirm', '1')")
        driver.refresh()
        _until(lambda: driver.find_element(By.ID, "decide").is_displayed())
        driver.find_elements(By.CSS_SELECTOR, "#moves button.move, #groups button.group")[0].click()
        if not driver.find_element(By.ID, "confirm-bar").is_displayed():     # a kind first: then its move
            driver.find_elements(By.CSS_SELECTOR, "#moves button.move")[0].click()
        time.sleep(0.5)
        driver.save_screenshot(str(out / "confirm-send.png"))
    finally:
        if driver is not None:
            driver.quit()
        for n in nodes:
            if n.proc.poll() is None:
                n.proc.kill()


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as tmp:
        main(Path(sys.argv[1] if len(sys.argv) > 1 else "docs/img"), Path(tmp))
