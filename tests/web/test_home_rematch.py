"""Play again among friends, each from their own home: the friend who asks first waits for
the host (named while it is silent), the host's new lobby opens on its old port, and the
new table opens for both; both second games finish and verify. Driven through each home's
API and each table page's WebSocket, as the pages do."""

from __future__ import annotations

from pathlib import Path

import trio

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from protocol import games as engines, genesis as G
from protocol.verify import verify_bytes
from tests.node.test_resume_memory import _play_page
from tests.fixture_game import ENGINE
from tests.helpers import timeout as scaled, wait_until
from tests.web.home_fixtures import api, start_home

engines.register(ENGINE)                     # the homes play the fixture game; verify it here too


def _until(what, timeout: float = 60.0):
    return wait_until(what, timeout, getattr(what, "__name__", "the condition"), interval=0.2)


def _table(url: str, key: str, state: str = "playing") -> dict:
    seen: list[dict] = []

    def look():
        table = next(t for t in api(url, "state")["tables"] if t["key"] == key)
        seen[:] = [table]
        assert table["state"] != "failed", table
        return table if table["state"] == state and table["url"] else None
    try:
        return _until(look)
    except AssertionError:
        raise AssertionError(f"table {key} never {state}: {seen}") from None


async def _both(urls: list[str]) -> list[bool]:
    results: list[bool] = []
    async with trio.open_nursery() as nursery:
        for u in urls:
            async def one(u=u):
                results.append(await _play_page(u, None))
            nursery.start_soon(one)
    return results


def _lines(url: str, key: str) -> list[str]:
    return next(t for t in api(url, "state")["tables"] if t["key"] == key)["lines"]


def _played_together(ada_url: str, bea_url: str) -> list[str]:
    """Ada hosts, Bea joins from her home, both play the game out from their pages: its id
    in each home."""
    api(ada_url, "settings", {"name": "Ada"})
    api(bea_url, "settings", {"name": "Bea"})
    first = api(ada_url, "host", {"game": "fixture", "seats": ["friend"], "options": {"rounds": "1"}})["table"]
    invite = _table(ada_url, first["key"], "lobby")["invite"]
    joined = api(bea_url, "join", {"invite": "127.0.0.1:" + invite.rsplit(":", 1)[1]})["table"]
    pages = [_table(ada_url, first["key"])["url"], _table(bea_url, joined["key"])["url"]]
    assert trio.run(_both, pages) == [True, True]
    ids = [_until(lambda u=u: [g for g in api(u, "state")["games"] if g["state"] == "finished"])[0]["game_id"]
           for u in (ada_url, bea_url)]
    assert ids[0] == ids[1]
    return ids


def test_a_friend_declines_and_the_host_sees_who(tmp_path: Path, browser):
    """Bea's "Not this time" (a button on her home's game row) reaches Ada's new lobby, which
    names her; the seat stays open."""
    ada, ada_url = start_home(tmp_path, "ada")
    bea, bea_url = start_home(tmp_path, "bea")
    try:
        ids = _played_together(ada_url, bea_url)
        again = api(ada_url, "rematch", {"game_id": ids[0]})["table"]
        _table(ada_url, again["key"], "lobby")
        browser.get(bea_url)
        WebDriverWait(browser, scaled(60)).until(lambda d: d.find_elements(By.CSS_SELECTOR, f"tr[data-game='{ids[1]}'] button.decline"))
        browser.find_element(By.CSS_SELECTOR, f"tr[data-game='{ids[1]}'] button.decline").click()
        WebDriverWait(browser, scaled(60)).until(lambda d: "Ada was told you decline" in d.find_element(By.ID, "lobby-lines").text)
        lines = _until(lambda: [line for line in _lines(ada_url, again["key"]) if "declined" in line])
        assert lines[0].startswith("Bea (key ") and "declined to play again" in lines[0], lines
        mine = api(ada_url, "rematch", {"game_id": ids[0], "decline": True})["table"]    # the host: nothing to decline
        failed = _until(lambda: [t for t in api(ada_url, "state")["tables"]
                                 if t["key"] == mine["key"] and t["state"] == "failed"])[0]
        assert "only a friend who joined" in failed["error"], failed
    finally:
        for home in (ada, bea):
            home.proc.terminate()
            home.stop()


def test_friends_play_again_each_from_their_home(tmp_path: Path):
    ada, ada_url = start_home(tmp_path, "ada")
    bea, bea_url = start_home(tmp_path, "bea")
    try:
        ids = _played_together(ada_url, bea_url)

        waiting = api(bea_url, "rematch", {"game_id": ids[1]})["table"]          # Bea asks first
        _until(lambda: any("waiting up to" in line and "for Ada" in line for line in
                           next(t for t in api(bea_url, "state")["tables"] if t["key"] == waiting["key"])["lines"]))
        again = api(ada_url, "rematch", {"game_id": ids[0]})["table"]
        assert api(ada_url, "rematch", {"game_id": ids[0]})["table"]["key"] == again["key"]     # one new table
        new_pages = [_table(bea_url, waiting["key"])["url"], _table(ada_url, again["key"])["url"]][::-1]
        lines = next(t for t in api(ada_url, "state")["tables"] if t["key"] == again["key"])["lines"]
        assert any(line.startswith("Bea (") and "joined" in line for line in lines), lines
        assert trio.run(_both, new_pages) == [True, True]
        games = _until(lambda: [g for g in api(ada_url, "state")["games"] if g["state"] == "finished"][1:] and
                       [g for g in api(ada_url, "state")["games"] if g["state"] == "finished"])
        assert len(games) == 2
        genesis = []
        for g in games:
            folder = tmp_path / "ada" / "games" / g["game_id"]
            assert verify_bytes((folder / "transcript.caravan").read_bytes()).ok
            parsed = G.parse((folder / "genesis.bin").read_bytes())
            genesis.append((parsed.game, parsed.options, len(parsed.seats)))
        assert genesis[0] == genesis[1]
    finally:
        for home in (ada, bea):
            home.proc.terminate()
            home.stop()
