"""The table page in the browser tab (issue 32): the desktop table page (clients/web/app.js)
fed by the tab's worker (clients/tab/py/tab_table.py) instead of a node's WebSocket.

In Chromium: the served bundle's table.html starts Python in its worker; a seat of a game
there is decided on the page (`"decider": "page"`), by clicking a move button whenever the
page shows a decision, and plays the whole game with two seats this test runs in CPython,
the page carrying the frames (tests/tab_seats.py `shuttle`, `seat_feed`); the result shows on
the page, the transcript verifies, and every line the page was sent is one the seat's own
story holds (its pictures, sentences and views: no other seat's hidden value). The same
page table runs here in CPython too, where a wrong answer gets an "error" line. A tampered
app.js is refused, as every file of the bundle."""

from __future__ import annotations

import asyncio
import base64
import json
import random
from typing import Any

import msgpack
import pytest
from selenium.webdriver.common.by import By

from clients import narrate, render
from clients.api_json import to_json
from protocol import games, genesis as G, transcript, wire
from protocol.identity import SigningKey
from protocol.player import Player
from protocol.session import Session
from protocol.verify import verify_bytes
from tests.helpers import timeout as scaled, wait_until
from tests.tab_seats import Net, genesis, key_seed, seat, shuttle, tab_module
from tests.web.tab_fixtures import bundle, driver, server  # noqa: F401 - fixtures
from tests.web.tab_page import READY, call, click_a_move
from tests.web.test_tab import tampered  # noqa: F401 - fixture: a served copy of the bundle, one file changed

pytestmark = pytest.mark.xdist_group("tab")

SEED = 21
PHONE = "/tmp/tabtable-phone.png"


def seat_story(data: bytes, me: int, key: SigningKey, secret: bytes, names: list[str]) -> dict[str, set]:
    """What seat `me` may be shown of the finished game `data`: each picture of its own view
    (after every event, and after every message, its knowledge grown), each sentence, each
    view (JSON), replayed by a strict session and the seat's own player (its commitments'
    values: the ones the game revealed)."""
    genesis_raw, messages = transcript.load(data)
    g = G.parse(genesis_raw)
    engine = games.get(g.game)
    final = Session(g, engine, strict=True)
    for raw in messages:
        final.receive(raw)
    committed = {wire.encode(context): final.public[handle]
                 for handle, (owner, context, _) in final.commitments.items() if owner == me}
    session = Session(g, engine, strict=True)
    player = Player(session, me, key, secret, committed)
    table = narrate.Table(engine, g.options, len(g.seats), me, names)
    story: dict[str, set] = {"svg": set(), "text": set(), "view": set()}

    def keep() -> None:
        story["svg"].add(render.svg(g.game, table.view, names))
        story["view"].add(json.dumps(to_json(table.view), sort_keys=True))

    keep()
    for raw in messages:
        for event in session.receive(raw).events:
            _, lines = table.apply(event, player.knowledge)
            story["text"].update(lines)
            keep()
        table.refresh(player.knowledge)
        keep()
    return story


def assert_only_its_own(lines: list[dict], story: dict[str, set]) -> None:
    """Every picture, sentence and decision view the page got is in the seat's own story."""
    boards = [m for m in lines if m["type"] == "board"]
    assert boards and all(b["svg"] in story["svg"] for b in boards), "a picture the seat does not see"
    said = [t for m in lines if m["type"] == "event" for t in m["text"].split("\n") if t]
    said += [t for m in lines if m["type"] == "history" for e in m["events"] for t in e["text"].split("\n") if t]
    assert said and set(said) <= story["text"], set(said) - story["text"]
    views = [json.dumps(m["view"], sort_keys=True) for m in lines if m["type"] == "decide"]
    assert views and set(views) <= story["view"], "a decision view the seat does not see"


def test_the_page_table_decides_through_its_lines_and_refuses_an_id_not_offered():
    """CPython: tab_table's PageTable decides seat 0 from its lines, with two seats on the driver."""
    tab_table = tab_module("tab_table", "tab_table")
    keys, secrets, g = genesis(SEED)
    net = Net(random.Random(SEED))
    lines: list[dict] = []
    table = tab_table.PageTable(post=lines.append)
    seats = [seat(g, keys, secrets, i, net.links(i), SEED) for i in range(3)]
    seats[0].decider = table
    refused: list[dict] = []

    async def page() -> None:
        while True:
            await asyncio.sleep(0.005)
            if table.pending is None:
                continue
            n, offered = table.pending["decision"], len(table.pending["actions"])
            if not refused:
                refused.extend(table.take({"type": "act", "decision": n, "action": offered}))
                refused.extend(table.take({"type": "act", "decision": n + 1, "action": 0}))
                refused.extend(table.take("act"))
            assert table.take({"type": "act", "decision": n, "action": 0}) == []
            assert table.take({"type": "act", "decision": n, "action": 0}) != []   # answered already

    async def game() -> None:
        run = asyncio.ensure_future(asyncio.gather(*(s.run() for s in seats)))
        table.attach(seats[0], run)
        clicker = asyncio.ensure_future(page())
        try:
            await asyncio.wait_for(run, scaled(90))
        finally:
            clicker.cancel()

    asyncio.run(game())
    assert [s.outcome.kind for s in seats] == ["complete"] * 3
    assert [m["type"] for m in refused] == ["error"] * 3
    assert refused[0]["message"].startswith("action must be one of the offered ids 0..")
    assert refused[1]["message"] == "that decision is not open (the game has moved on)"
    assert lines[0]["type"] == "hello" and lines[0]["seat"] == 0
    ends = [m["type"] for m in lines if m["type"] in ("result", "result_files")]
    assert ends == ["result", "result_files", "result_files"], ends
    result = next(m for m in lines if m["type"] == "result")
    assert result == {"type": "result", "result": to_json(seats[0].session.result())}
    assert table.snapshot()[1]["type"] == "history"
    last = table.snapshot()[-1]                  # a page that opens now gets the result with its files
    assert last["type"] == "result" and last["verify"]["kind"] == "ok" and "<html" in last["replay"].lower()
    assert base64.b64decode(last["transcript"]) == seats[0].transcript()
    data = seats[0].transcript()
    assert verify_bytes(data).ok
    names = lines[0]["names"]
    assert_only_its_own(lines, seat_story(data, 0, keys[0], secrets[0], names))
    with pytest.raises(AssertionError):          # the check tells one seat's lines from another's
        assert_only_its_own(lines, seat_story(data, 1, keys[1], secrets[1], names))


def test_bad_page_input_is_one_clear_line():
    """A decider not known, names that are not strings, a page line that is no JSON or comes
    before any game, table talk: each answered in words, nothing raised at the page."""
    ops = tab_module("tab_seat_ops")
    tab_table = tab_module("tab_table", "tab_table")
    keys, secrets, g = genesis(SEED)
    args = {"genesis": g.to_wire(), "key": key_seed(SEED, 0), "secret": secrets[0], "seed": 0}

    async def start(**more: Any) -> str:
        with pytest.raises(ValueError) as refused:
            await ops.seat_start(msgpack.packb({**args, **more}))
        return str(refused.value)

    async def main() -> None:
        assert await start(decider="robot") == 'decider must be "page" or left out (a random bot), not \'robot\''
        assert await start(decider="page", names=[1, 2]) == "names must be a list of strings, one per seat"
        assert await tab_table.table_open(None) == {"lines": []}
        assert await tab_table.table_act(b"{") == {"lines": [{"type": "error", "message": "not JSON"}]}
        assert await tab_table.table_act(b'{"type": "act"}') == {
            "lines": [{"type": "error", "message": "no game at this table yet"}]}
        table = tab_table.PageTable(post=lambda msg: None)
        assert (await table.say({"type": "chat", "text": "hi"}))["type"] == "chat_refused"   # no seat yet
        assert table.take({"type": "act", "decision": 1, "action": 0}) == [
            {"type": "error", "message": "that decision is not open (the game has moved on)"}]

    asyncio.run(main())


@pytest.fixture(scope="module")
def table_page(driver, server, bundle):  # noqa: F811
    """The bundle's table.html loaded, Python ready in its worker: the driver."""
    manifest = json.loads((bundle.out / "manifest.json").read_bytes())
    driver.set_window_size(390, 844)                     # a phone
    driver.get(server + manifest["files"]["table.html"]["path"])
    ready = driver.execute_async_script(READY)
    assert ready["ok"], ready
    return driver


def test_a_seat_decided_on_the_tabs_table_page_plays_a_whole_game(table_page):
    page = table_page
    keys, secrets, g = genesis(SEED)
    net = Net(random.Random(SEED))
    seats = {i: seat(g, keys, secrets, i, net.links(i), SEED) for i in (1, 2)}
    for s in seats.values():
        s.linger = scaled(10)                 # the tab's answers come through the page: give them time
        s.sync_interval = 0.1
    clicks: list[bool] = []
    shot: list[str] = []

    async def feed(data: bytes) -> dict:
        answer = (await asyncio.to_thread(call, page, "seat_feed", data))["result"]
        if await asyncio.to_thread(click_a_move, page):
            clicks.append(True)
            if len(clicks) == 3 and not shot:         # the table mid-game, on a phone
                shot.append(PHONE)
                await asyncio.to_thread(page.execute_script, "window.scrollTo(0, 0)")
                await asyncio.to_thread(page.save_screenshot, PHONE)
        return answer

    async def game() -> dict:
        started = (await asyncio.to_thread(call, page, "seat_start", msgpack.packb(
            {"genesis": g.to_wire(), "key": key_seed(SEED, 0), "secret": secrets[0], "seed": 0, "sync": 0.1,
             "decider": "page", "names": ["Tab", "", "Desk"]})))["result"]
        assert started["seat"] == 0 and started["running"], started
        _, last = await asyncio.gather(asyncio.gather(*(s.run() for s in seats.values())),
                                       shuttle(net, 0, feed, wait=0.05))
        return last

    last = asyncio.run(asyncio.wait_for(game(), scaled(300)))
    assert last["outcome"]["kind"] == "complete" and last["refused"] == [], last
    assert clicks and shot, "the page never showed a decision"
    result = call(page, "seat_result", b"")["result"]
    data = bytes.fromhex(result["transcript"])
    assert {s.transcript() for s in seats.values()} == {data} and verify_bytes(data).ok
    wait_until(lambda: page.find_element(By.ID, "result").is_displayed(), 30, "the result on the page")
    assert page.find_element(By.ID, "result-text").text
    badge = wait_until(lambda: page.find_elements(By.CSS_SELECTOR, "#result-files .badge.ok"), 60,
                       "the transcript's verdict on the page")
    assert badge[0].text.startswith("Verified:")
    assert page.find_elements(By.CSS_SELECTOR, "#result-files a.transcript")
    assert "Tab, seat 0 of 3" in page.find_element(By.ID, "me").text
    lines: list[dict[str, Any]] = page.execute_script("return window.caravanTableLines")
    result = next(m for m in lines if m["type"] == "result")
    assert result["result"] == to_json(seats[1].session.result())
    assert_only_its_own(lines, seat_story(data, 0, keys[0], secrets[0], ["Tab", "seat 1", "Desk"]))


@pytest.mark.parametrize("name", ["app.js", "games.js"])
def test_the_table_page_refuses_a_tampered_script(driver, tampered, name):  # noqa: F811
    path = tampered.tamper(name)
    files = json.loads((tampered.folder / "manifest.json").read_bytes())["files"]
    driver.get(tampered.url + files["table.html"]["path"])
    conn = wait_until(lambda: "Refused" in (text := driver.find_element(By.ID, "conn").text) and text, 60,
                      "the page refusing the tampered file")
    assert f"{path} was tampered with" in conn, conn
    assert driver.find_element(By.ID, "title").text == "Caravan"          # app.js never ran
