"""The home and the table pages answer only this machine's browser: the token, the Host header
(127.0.0.1:PORT or localhost:PORT: DNS rebinding) and a WebSocket's Origin (this same origin:
cross-site WebSocket hijacking) are checked on every route; anything else gets 403."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from pathlib import Path

import pytest
import trio
from trio_websocket import ConnectionRejected, open_websocket_url

from node.pages.home import Home
from node.pages.home_tables import Network
from node.pages.web import WebClient
from tests.helpers import timeout as scaled


def _status(url: str, headers: dict[str, str] | None = None, body: dict | None = None) -> int:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json", **(headers or {})})
    try:
        with urllib.request.urlopen(request, timeout=scaled(10)) as response:
            return response.status
    except urllib.error.HTTPError as exc:
        return exc.code


async def _get(url: str, headers: dict[str, str] | None = None, body: dict | None = None) -> int:
    return await trio.to_thread.run_sync(_status, url, headers, body)


async def _check_host(url: str, paths: list[str]) -> None:
    port = url.split(":")[2].split("/")[0]
    for path in paths:
        assert await _get(url + path) == 200, path
        assert await _get(url + path, {"Host": f"localhost:{port}"}) == 200, path
        assert await _get(url + path, {"Host": f"evil.example:{port}"}) == 403, path
        assert await _get(url + path, {"Host": "127.0.0.1"}) == 403, path
        assert await _get(url + path, {"Origin": "http://evil.example"}) == 403, path


async def _check_origin(ws_url: str) -> None:
    port = ws_url.split(":")[2].split("/")[0]
    async with open_websocket_url(ws_url, extra_headers=[("Origin", f"http://127.0.0.1:{port}")]):
        pass
    for origin in ("http://evil.example", f"http://evil.example:{port}", "null"):
        with pytest.raises(ConnectionRejected):
            async with open_websocket_url(ws_url, extra_headers=[("Origin", origin)]) as ws:
                await ws.get_message()


async def test_the_table_page_checks_host_and_origin():
    client = WebClient()
    with trio.fail_after(scaled(30)):
        async with trio.open_nursery() as nursery:
            url = await nursery.start(client.serve, 0)
            await _check_host(url, ["", "static/app.js"])
            await _check_origin(url.replace("http://", "ws://") + "ws")
            nursery.cancel_scope.cancel()


async def test_the_home_checks_token_host_and_origin(tmp_path: Path):
    home = Home(tmp_path, Network("127.0.0.1"))
    with trio.fail_after(scaled(30)):
        async with trio.open_nursery() as nursery:
            url = await nursery.start(home.serve, 0)
            await _check_host(url, ["", "static/home.js", "api/state", "record", "static/record.js", "api/record"])
            base = url.rsplit("/", 2)[0]
            assert await _get(base + "/wrong-token/api/state") == 403
            assert await _get(base + "/wrong-token/record") == 403 and await _get(base + "/wrong-token/api/record") == 403
            assert await _get(base + "/wrong-token/api/settings", body={"name": "x"}) == 403
            assert await _get(url + "api/settings", {"Origin": "http://evil.example"}, {"name": "x"}) == 403
            assert await _get(url + "api/settings", body={"name": "Ada"}) == 200
            assert json.loads((tmp_path / "home.json").read_text())["name"] == "Ada"
            nursery.cancel_scope.cancel()
