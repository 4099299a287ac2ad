"""The tab's table talk in CPython (clients/tab/py/tab_seat.py: TabSeat.say, TabChat over the
desktop's rules in protocol/seat/chat.py): a line said at one seat is shown at the others with
its sender's name, a forged one is refused and counted, too many too fast are refused to the
sender, and with a store the talk comes back after a reload, bounded on disk as the desktop's
chat.jsonl. tests/web/test_tab_chat.py does the same in Chromium against desktop nodes."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

from protocol import wire
from protocol.seat import chat as talk
from tests.core.test_tab_games import idb, tab_games  # noqa: F401 - the fixture, and the module it stands behind
from tests.helpers import wait_until_asyncio
from tests.tab_seats import Net, genesis, tab_seat

SEED = 23


class Waiting:
    """A decider that never answers: the game waits while the seats talk."""
    wants_view = False

    async def __call__(self, view: Any, legal: list[Any], kind: str) -> Any:
        await asyncio.Event().wait()


def _seats(net: Net, keys: list, secrets: list[bytes], g: Any, stores: dict[int, Any] | None = None) -> dict:
    stores = stores or {}
    return {i: (tab_seat.TabSeat.resume(stores[i], keys[i], Waiting(), net.links(i), time.monotonic,
                                        sync_interval=0.05) if i in stores
                else tab_seat.TabSeat(g.to_wire(), keys[i], secrets[i], Waiting(), net.links(i), time.monotonic,
                                      sync_interval=0.05))
            for i in range(3)}


def _texts(seat: Any) -> list[str]:
    return [line["text"] for line in seat.chat.lines]


def test_a_line_reaches_every_seat_a_forged_one_is_refused_and_a_flood_slowed(idb):  # noqa: F811
    import random
    keys, secrets, g = genesis(SEED)
    net = Net(random.Random(SEED))
    stores = {1: tab_games.create(g.to_wire(), 1, secrets[1], ["Ann", "Bob", "Cy"], None)}
    seats = _seats(net, keys, secrets, g, stores)
    shown: dict[int, list] = {i: [] for i in seats}
    for i, s in seats.items():
        s.chat.listeners.append(shown[i].append)

    async def main() -> None:
        tasks = [asyncio.ensure_future(s.run()) for s in seats.values()]
        try:
            line = await seats[0].say("  hello\nall ")
            assert line["text"] == "hello all" and line["seat"] == 0
            await wait_until_asyncio(lambda: shown[1] and shown[2], 10, "the line at seats 1 and 2")
            assert shown[1][0]["name"] == "Ann" and shown[1][0]["text"] == "hello all"
            # seat 0's link to seat 1 carries a line of seat 0 signed by seat 2's key, then an honest one
            n = int(time.time() * 1000) + 1
            body = wire.encode([talk.DOMAIN, g.game_id, keys[0].public, n, "forged"])
            seats[1].links[0].inbox.put_nowait({"t": "chat", "b": body, "s": keys[2].sign(body)})
            await seats[0].say("honest")
            await wait_until_asyncio(lambda: "honest" in _texts(seats[1]), 10, "the honest line after the forged one")
            assert "forged" not in _texts(seats[1]) and seats[1].chat.refused == 1
            for i in range(talk.RATE_LINES - 1):
                await seats[2].say(f"line {i}")
            await seats[2].say("the fifth")
            with pytest.raises(talk.ChatError, match="slow down"):
                await seats[2].say("one too many")
            await wait_until_asyncio(lambda: "the fifth" in _texts(seats[0]), 10, "seat 2's lines at seat 0")
            assert "one too many" not in _texts(seats[0]) and seats[0].chat.refused == 0
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

    asyncio.run(main())
    assert "hello all" in (stores[1].dir / tab_games.CHAT).read_text()


def test_a_stored_seat_shows_its_talk_again_after_a_reload_and_keeps_the_file_bounded(idb, monkeypatch):  # noqa: F811
    import random
    keys, secrets, g = genesis(SEED)
    game = tab_games.create(g.to_wire(), 0, secrets[0], ["Ann", "Bob", "Cy"], None)
    net = Net(random.Random(SEED))
    now = [2000.0]
    seat = tab_seat.TabSeat.resume(game, keys[0], Waiting(), net.links(0), time.monotonic)
    seat.chat.clock = lambda: now[0]
    monkeypatch.setattr(talk, "MAX_FILE", 4096)

    async def talk_a_while() -> None:
        for i in range(60):
            now[0] += talk.RATE_WINDOW / talk.RATE_LINES
            await seat.say(f"line {i:02d} " + "x" * 40)
        assert not net.inbox[(0, 1)].empty()                      # sent, as well as kept

    asyncio.run(talk_a_while())
    path = game.dir / tab_games.CHAT
    assert path.stat().st_size <= talk.MAX_FILE
    idb.reload()                                                  # the page reloaded: what was flushed
    back = tab_seat.TabSeat.resume(tab_games.load(g.game_id.hex()), keys[0], Waiting(), net.links(0),
                                   time.monotonic)
    texts = _texts(back)
    assert texts and texts[-1].startswith("line 59 ") and not texts[0].startswith("line 00 ")
    assert [int(t.split()[1]) for t in texts] == list(range(60 - len(texts), 60))    # whole, in order
    assert back.chat.lines[-1]["name"] == "Ann"
    back.chat.clock = lambda: now[0]
    line, _ = back.chat.sign("after the reload")                 # its n goes on after the kept ones
    assert line["text"] == "after the reload"
