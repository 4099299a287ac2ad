"""A seat of a game in the browser tab plays with desktop nodes through a real broker (issue
32, item 2): the tab's worker runs the asyncio seat driver (tab_seat_ops `seat_relay`) over
relay links of its own (mqtt.js over the browser's WebSocket to Mosquitto's websockets
listener, tab_relay), the desktop nodes are GameNodes (trio, paho over TCP) in a thread of
this test. A whole short game of every installed game: every seat ends with the same
transcript, which verifies (and `caravan verify` accepts). A desktop node that sends a forged
or illegal move is named by the tab. Mosquitto runs in a network namespace of the test's own
(tests/web/test_tab_net.py says why). `play` also serves tests/web/test_tab_two_tabs.py."""

from __future__ import annotations

import base64
import re
import subprocess
import sys
import time
import tomllib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import msgpack
import pytest

from node.app.game import GameNode
from protocol.verify import verify_bytes
from tests.games.pick import installed
from tests.helpers import timeout as scaled
from tests.node.procs import ROOT, env
from tests.tab_seats import cheat, desktop_seats, genesis, key_seed, relayed_desktops
from tests.web.tab_fixtures import bundle, driver, server, tab  # noqa: F401 - fixtures
from tests.web.tab_page import CALL, call
from tests.web.test_tab_net import broker  # noqa: F401 - the fixture

pytestmark = pytest.mark.xdist_group("tab")

GAME_WITHIN = 300
"""Seconds (scaled) a whole short game may take, deck proofs in Pyodide included."""


def _join(page: Any, ws_url: str, g: Any, seed: int, i: int, secret: bytes) -> dict:
    """Tab `page` takes seat i through the broker (seat_relay): what it answered."""
    call(page, "broker_connect", msgpack.packb({"url": ws_url}))
    joined = call(page, "seat_relay", msgpack.packb({"genesis": g.to_wire(), "key": key_seed(seed, i),
                                                     "secret": secret, "seed": 5 + i, "within": scaled(30)}))["result"]
    assert joined["seat"] == i and joined["running"], joined
    return joined


def _result(page: Any, deadline: float) -> dict:
    """The tab's seat_result once its seat stopped running."""
    while (state := call(page, "seat_state")["result"])["running"]:
        assert time.monotonic() < deadline, state
        time.sleep(0.5)
    return call(page, "seat_result")["result"]


def play(pages: dict[int, Any], broker: tuple[Any, str], g: Any, seed: int, keys: list, secrets: list[bytes],
         tmp_path: Path) -> tuple[dict[int, dict], set[bytes]]:
    """The tabs in `pages` (seat -> driver) and desktop nodes in the other seats play `g` to the
    end: (each tab's seat_result, the desktop transcripts). The tabs join in seat order, each a
    second after the one before: a tab dials a later tab before that one listens, and dials
    again until it answers (as a desktop node does)."""
    tcp_url, ws_url = broker
    desks = [i for i in range(len(g.seats)) if i not in pages]
    dirs = {i: tmp_path / f"seat{i}" for i in desks}
    with desktop_seats(relayed_desktops(tcp_url, g, keys, secrets, dirs), desks, scaled(GAME_WITHIN), scaled(60)), \
            ThreadPoolExecutor(len(pages)) as pool:
        joins = []
        for i in sorted(pages):
            if joins:
                time.sleep(1.0)
            joins.append(pool.submit(_join, pages[i], ws_url, g, seed, i, secrets[i]))
        for join in joins:
            join.result(scaled(60))
        deadline = time.monotonic() + scaled(GAME_WITHIN)
        results = {i: _result(page, deadline) for i, page in pages.items()}
    desk = {(dirs[i] / "games" / g.game_id.hex() / "transcript.caravan").read_bytes() for i in desks}
    return results, desk


def cli_verifies(path: Path) -> None:
    """The real `caravan verify FILE` accepts the transcript at `path` (exit 0)."""
    done = subprocess.run([sys.executable, "-m", "node", "verify", str(path)], capture_output=True, text=True,
                          env=env(), cwd=ROOT, timeout=scaled(60))
    assert done.returncode == 0, done.stdout + done.stderr


def bundled(game: str) -> bool:
    """Whether the tab's bundle carries `game`: the project's own `caravan.games` entry points
    (node/tab/build.py), not a game installed from outside (issue 37)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return game in project.get("entry-points", {}).get("caravan.games", {})


@pytest.mark.parametrize("game", installed())
def test_a_tab_seat_and_desktop_nodes_finish_a_whole_game_through_the_broker(tab, broker, tmp_path, game):  # noqa: F811
    """A game the bundle does not carry is refused by the tab at once (before it dials anyone),
    in one line naming it and the games it knows."""
    page, _ = tab
    keys, secrets, g = genesis(19, game=game)
    if not bundled(game):
        answer = page.execute_async_script(CALL, "seat_relay", base64.b64encode(msgpack.packb(
            {"genesis": g.to_wire(), "key": key_seed(19, 0), "secret": secrets[0], "seed": 5})).decode())
        known = ", ".join(sorted(filter(bundled, installed())))
        assert answer == {"ok": False, "error": f"seat_relay: this tab cannot play this table: unknown game "
                          f"{game!r}; known games: {known}"}, answer
        return
    results, desk = play({0: page}, broker, g, 19, keys, secrets, tmp_path)
    result = results[0]
    assert result["outcome"]["kind"] == "complete" and result["refused"] == [], result
    transcript = bytes.fromhex(result["transcript"])
    assert desk == {transcript}
    report = verify_bytes(transcript)
    assert report.ok and report.messages == result["messages"] > 0, report.to_json()
    (tmp_path / "tab.caravan").write_bytes(transcript)
    cli_verifies(tmp_path / "tab.caravan")


@pytest.mark.parametrize("cheat_kind", ["forged", "illegal"])
def test_a_tab_seat_names_a_desktop_node_that_cheats_through_the_broker(tab, broker, tmp_path, monkeypatch,  # noqa: F811
                                                                        cheat_kind):
    """Seat 1's desktop node sends its first move forged or illegal: the tab refuses it naming
    seat 1 as its signer, and the game still ends with one transcript. (The line's "from seat
    N" is the link it came in on: a message held until the one before it came is refused
    when that one comes, from whichever seat sent that.)"""
    honest_send_all, tampers = GameNode.send_all, {}

    async def send_all(node: GameNode, frame, exclude=None):
        if node.seat != 1 or type(frame) is not dict:
            return await honest_send_all(node, frame, exclude)
        for one in tampers.setdefault(node.seat, cheat(cheat_kind, node.key))(0, frame):
            await honest_send_all(node, one, exclude)

    monkeypatch.setattr(GameNode, "send_all", send_all)
    page, _ = tab
    keys, secrets, g = genesis(19)
    results, desk = play({0: page}, broker, g, 19, keys, secrets, tmp_path)
    result = results[0]
    assert result["outcome"]["kind"] == "complete", result
    assert result["refused"] and all(re.match(r"from seat [12]: refused: .* \[seat 1 \(", line)
                                      for line in result["refused"]), result["refused"]
    transcript = bytes.fromhex(result["transcript"])
    assert desk == {transcript} and verify_bytes(transcript).ok
