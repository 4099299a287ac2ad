"""The page server itself: the token guards every URL, and a hand-made WebSocket message that
is not a legal answer gets the client API's error and changes nothing."""

from __future__ import annotations

import json
import urllib.error
import urllib.request

import pytest
import trio
from trio_websocket import ConnectionRejected, open_websocket_url

from clients import games as presentations
from node.pages.web import QUEUE, WebClient
from protocol import games
from tests.games.pick import some_game
from tests.helpers import timeout as scaled, wait_until_async


def _status(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=scaled(10)) as response:
            return response.status
    except urllib.error.HTTPError as exc:
        return exc.code


async def _get(url: str) -> int:
    return await trio.to_thread.run_sync(_status, url)


async def test_every_url_needs_the_token():
    client = WebClient()
    with trio.fail_after(scaled(30)):
        async with trio.open_nursery() as nursery:
            url = await nursery.start(client.serve, 0)
            base = url.rsplit("/", 2)[0]
            assert await _get(url) == 200
            assert await _get(url + "static/app.js") == 200
            assert await _get(base + "/") == 403
            assert await _get(base + "/wrong-token/") == 403
            assert await _get(base + "/wrong-token/static/app.js") == 403
            assert await _get(base + "/wrong-token/static/games.js") == 403
            assert await _get(url + "static/../../node/web.py") in (403, 404)
            assert await _get(url + "static/secret.txt") == 403
            ws_base = base.replace("http://", "ws://")
            with pytest.raises(ConnectionRejected):
                async with open_websocket_url(ws_base + "/wrong-token/ws") as ws:
                    await ws.get_message()
            nursery.cancel_scope.cancel()


def _text(url: str) -> str:
    with urllib.request.urlopen(url, timeout=scaled(10)) as response:
        return response.read().decode()


async def test_the_page_learns_each_registered_game_from_its_presentation():
    """games.js, not a list in the page: every registered game's How to play, result captions and
    tie-break, as its presentation gives them."""
    client = WebClient()
    with trio.fail_after(scaled(30)):
        async with trio.open_nursery() as nursery:
            url = await nursery.start(client.serve, 0)
            text = await trio.to_thread.run_sync(_text, url + "static/games.js")
            nursery.cancel_scope.cancel()
    head = "export const GAMES = "
    assert text.startswith(head)
    bits = json.loads(text[len(head):].rstrip().rstrip(";"))
    assert set(bits) == set(games.names())
    for game, page in bits.items():
        shown = presentations.get(game)
        assert page["rules"] == [list(pair) for pair in shown.how_to_play]
        assert page["labels"] == shown.result_labels
        assert page["tie_break"] == (list(shown.tie_break) if shown.tie_break else None)
    assert any(page["rules"] for page in bits.values()), "no registered game says how to play"


async def _next(ws, kind: str) -> dict:
    while True:
        msg = json.loads(await ws.get_message())
        if msg["type"] == kind:
            return msg


async def test_illegal_answers_get_an_error_and_change_nothing():
    client = WebClient()
    legal = ["keep", ["bonus", 2], ["bonus", 3]]
    chosen = []
    with trio.fail_after(scaled(30)):
        async with trio.open_nursery() as nursery:
            url = await nursery.start(client.serve, 0)

            async def ask():
                chosen.append(await client.ask({"type": "decide", "kind": "act", "view": {},
                                                "actions": [{"id": i, "text": str(a), "group": "g", "target": None}
                                                            for i, a in enumerate(legal)]}, legal))
            nursery.start_soon(ask)
            async with open_websocket_url(url.replace("http://", "ws://") + "ws") as ws:
                decide = await _next(ws, "decide")
                n = decide["decision"]
                for bad in ("not json", json.dumps([1]), json.dumps({"type": "act", "decision": n, "action": 3}),
                            json.dumps({"type": "act", "decision": n, "action": "1"}),
                            json.dumps({"type": "act", "decision": n + 1, "action": 0})):
                    await ws.send_message(bad)
                    err = await _next(ws, "error")
                    assert err["message"]
                    assert chosen == [] and client.pending is not None and client.pending["decision"] == n
                await ws.send_message(json.dumps({"type": "act", "decision": n, "action": 2}))
                await _next(ws, "decided")
            nursery.cancel_scope.cancel()
    assert chosen == [["bonus", 3]]


async def test_a_page_that_connects_late_gets_the_whole_state():
    client = WebClient()
    game = some_game(players=2)
    await client.hello({"game": game, "title": games.get(game).title, "seat": 0, "seats": 2})
    client.event({"type": "event", "seat": 1, "text": "seat 1 moved", "event": {"kind": "act"}})
    client.show_board("<svg></svg>", "waiting for seat 1")
    with trio.fail_after(scaled(30)):
        async with trio.open_nursery() as nursery:
            url = await nursery.start(client.serve, 0)
            async with open_websocket_url(url.replace("http://", "ws://") + "ws") as ws:
                kinds = [json.loads(await ws.get_message()) for _ in range(3)]
            nursery.cancel_scope.cancel()
    assert [m["type"] for m in kinds] == ["hello", "history", "board"]
    assert kinds[1]["events"][0]["text"] == "seat 1 moved"


async def test_a_page_dropped_for_falling_behind_is_sent_the_result_when_it_comes_back():
    """A page QUEUE messages behind (a busy machine) is dropped and reconnects for the whole
    state; the end may come meanwhile. The watcher waits for it (wait_result_seen) instead of
    stopping while nobody has the result."""
    client = WebClient()
    seen: list[bool] = []
    with trio.fail_after(scaled(30)):
        async with trio.open_nursery() as nursery:
            url = await nursery.start(client.serve, 0)
            ws_url = url.replace("http://", "ws://") + "ws"
            async with open_websocket_url(ws_url) as ws:
                await _next(ws, "history")
                for n in range(QUEUE + 2):                    # the page reads nothing meanwhile
                    client.broadcast({"type": "board", "n": n})
                assert client.pages == 0, "a page that far behind is dropped"
            await client.result({"winners": [0]})

            async def wait() -> None:
                seen.append(await client.wait_result_seen(patience=scaled(20), alone=scaled(10)))
            nursery.start_soon(wait)
            async with open_websocket_url(ws_url) as ws:
                assert (await _next(ws, "result"))["result"] == {"winners": [0]}
                await wait_until_async(lambda: seen, scaled(10), "the wait to end")
            nursery.cancel_scope.cancel()
    assert seen == [True]


async def test_with_no_page_the_wait_for_the_result_ends_after_the_alone_time(autojump_clock):
    client = WebClient()
    clock_start = trio.current_time()
    with trio.fail_after(20):
        assert await client.wait_result_seen(patience=300, alone=10) is False
    assert 10 <= trio.current_time() - clock_start < 11


async def test_the_wait_for_the_result_ends_at_once_once_a_page_was_sent_it(autojump_clock):
    client = WebClient()
    client.seen_result.set()
    start = trio.current_time()
    assert await client.wait_result_seen(patience=300, alone=10) is True
    assert trio.current_time() == start
