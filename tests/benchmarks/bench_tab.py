"""The browser tab against CPython, in the same run (issue 32): the engine's decisions/s,
signature verifies/s, a whole game's CPU per seat (the game the house picks first), and the
tab's cold load.

The same functions (clients/tab/py/tab_bench.py) run in CPython here and in the tab's worker
(build/tab in headless Chromium, served by `caravan tab --serve`, driven as tests/web/test_tab.py
drives it). Skipped with one line without Chromium, npm or the bundle's registries."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from typing import Any

from clients import games as presentations
from protocol import games
from tests.games.pick import installed


def the_game() -> str:
    """The game measured: the one the house picks when none is named (the README's)."""
    return presentations.first(installed())


def runs(game: str) -> list[tuple[str, dict[str, Any]]]:
    """What is measured, on both sides. The tab's clock is the worker's wall time (tab_bench.py):
    on a busy machine its figures suffer more."""
    engine = games.get(game)
    return [("decisions", {"game": game, "players": min(4, engine.max_players), "seconds": 3.0}),
            ("verifies", {"seconds": 2.0}),
            ("whole_game", {"game": game, "players": max(engine.min_players, min(3, engine.max_players)), "seed": 1})]


START = ("from protocol import games; from protocol.verify import verify_bytes; "
         "[games.get(g) for g in games.names()]")


def cpython_start() -> float:
    """Seconds for a fresh CPython to start and import what the tab loads (the best of 3)."""
    best = float("inf")
    for _ in range(3):
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-c", START], check=True, timeout=120)
        best = min(best, time.perf_counter() - t0)
    return best


def lines(game: str, cpython: dict[str, Any], tab: dict[str, Any], cold: dict[str, float]) -> list[str]:
    d, v, g = (cpython["decisions"], tab["decisions"]), (cpython["verifies"], tab["verifies"]), \
        (cpython["whole_game"], tab["whole_game"])
    title, measured = games.get(game).title, dict(runs(game))
    same = "the same game" if g[0]["transcript_sha256"] == g[1]["transcript_sha256"] else "DIFFERENT transcripts!"
    return [
        f"engine, random {measured['decisions']['players']}-player {title}: tab {d[1]['per_s']:,.0f} decisions/s, CPython {d[0]['per_s']:,.0f} "
        f"(CPython {d[0]['per_s'] / d[1]['per_s']:.1f}× faster)",
        f"signature verifies (libsodium.js in the tab, libsodium in CPython): tab {v[1]['per_s']:,.0f}/s, "
        f"CPython {v[0]['per_s']:,.0f}/s (CPython {v[0]['per_s'] / v[1]['per_s']:.1f}× faster)",
        f"a whole {measured['whole_game']['players']}-player {title} game ({g[0]['messages']} messages, {same}): tab {g[1]['per_seat_s']:.1f} s "
        f"of CPU per seat, CPython {g[0]['per_seat_s']:.1f} s (CPython {g[1]['seconds'] / g[0]['seconds']:.1f}× faster)",
        f"cold load (an empty browser cache, from navigation to Python ready in the worker): tab "
        f"{cold['tab']:.1f} s (of which the worker's start {cold['worker']:.1f} s); a fresh CPython starting "
        f"and importing the same: {cold['cpython']:.2f} s ({cold['tab'] / cold['cpython']:.0f}×)",
    ]


def run() -> list[str]:
    from node.tab import build as tab_build
    from tests.web.conftest import INSTALL as CHROMIUM, find_chromium, new_chromium
    from tests.web.tab_page import INSTALL, OFFLINE, call, open_tab, tab_module, tab_server

    if find_chromium() is None:
        return [f"skipped: needs Chromium and its driver ({CHROMIUM})"]
    if shutil.which("npm") is None:
        return [f"skipped: needs npm to build the tab ({INSTALL})"]
    try:
        built = tab_build.ensure_built()
    except tab_build.BuildError as exc:
        return [f"skipped: the tab bundle cannot be built: {exc} ({INSTALL})"]

    bench = tab_module("tab_bench")
    game = the_game()
    cpython = {what: bench.run(what, **kwargs) for what, kwargs in runs(game)}
    cold = {"cpython": cpython_start()}
    driver = new_chromium()
    try:
        driver.set_script_timeout(600)
        with tab_server(built.bundle_hash) as url:
            ready = open_tab(driver, url)
            if not ready["ok"]:
                raise RuntimeError(f"the tab did not start: {ready['error']}")
            cold |= {"tab": ready["sinceNavigationMs"] / 1000, "worker": ready["loadMs"] / 1000}
            driver.execute_async_script(OFFLINE)        # its service worker's copying is over before measuring
            tab = {what: call(driver, "bench", json.dumps({"what": what, **kwargs}).encode())["result"]
                   for what, kwargs in runs(game)}
    finally:
        driver.quit()
    return lines(game, cpython, tab, cold)
