"""Board pictures and replay: render time per view against the time of `view` itself (target
≤ 20 ms per picture on one core), and the size of the replay page of a 4-player Sa-Rê game
played over the network by heuristic bots (target ≤ 5 MB). The browser latency from an
event on the node to the updated picture is measured by bench_web (it needs Chromium)."""

from __future__ import annotations

import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from clients import games as presentations
from clients import render
from clients.replay import frames, html
from protocol import games
from protocol.referee import Referee
from protocol.verify import verify_bytes
from tests.games.pick import installed

TARGET_MS = 20.0
TARGET_REPLAY_MB = 5.0


def sample_views(game: str, players: int, count: int = 40, seed: int = 3) -> list[dict]:
    """Views of every seat and the spectator at random moments of random games."""
    engine = games.get(game)
    rng = random.Random(seed)
    views: list[dict] = []
    while len(views) < count:
        ref = Referee(engine, players, seed=rng.randrange(1 << 30))
        stop = rng.randrange(5, 400)
        for _ in range(stop):
            if ref.step(lambda seat, legal, r: legal[rng.randrange(len(legal))]) is None:
                break
        views += [ref.view(s) for s in (None, *range(players))]
    return views[:count]


def per_call_ms(fn, items: list) -> float:
    t0 = time.process_time()
    for item in items:
        fn(item)
    return 1000 * (time.process_time() - t0) / len(items)


def render_lines() -> list[str]:
    lines = []
    for game in installed():                 # each installed game at its most players
        engine = games.get(game)
        players = engine.max_players
        views = sample_views(game, players)
        names = [f"seat {s}" for s in range(players)]
        # the baseline: computing the same views again (what every client already pays per event)
        ref = Referee(engine, players, seed=1)
        for _ in range(50):
            ref.step(lambda seat, legal, r: legal[0])
        view_ms = per_call_ms(lambda s: ref.view(s), [None, *range(players)] * 10)
        svg_ms = per_call_ms(lambda v: render.svg(game, v, names), views)
        text_ms = per_call_ms(lambda v: render.text(game, v, names), views)
        lines.append(f"{engine.title} ({players} players): svg {svg_ms:.2f} ms/view = {svg_ms / view_ms:.1f}× view() "
                     f"({view_ms:.2f} ms), text {text_ms:.2f} ms; target svg ≤ {TARGET_MS:.0f} ms: "
                     f"{'met' if svg_ms <= TARGET_MS else 'MISSED'}")
    return lines


def replay_line() -> str:
    """The replay page of a 4-player demo of the game the house picks first (the README's)."""
    game = presentations.first(installed())
    engine = games.get(game)
    players = min(4, engine.max_players)
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "demo.caravan"
        subprocess.run([sys.executable, "-m", "node", "demo", game, "--players", str(players), "--out", str(out)],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=900)
        data = out.read_bytes()
        report = verify_bytes(data)
        t0 = time.process_time()
        steps = frames(data, report)
        page = html(report, steps, engine.title)
        dt = time.process_time() - t0
    mb = len(page.encode()) / 1e6
    return (f"replay of a {players}-player {engine.title} game: {len(steps)} steps, {mb:.2f} MB "
            f"(transcript {len(data) / 1e6:.2f} MB; {dt:.1f} s to draw); target ≤ {TARGET_REPLAY_MB:.0f} MB: "
            f"{'met' if mb <= TARGET_REPLAY_MB else 'MISSED'}")


def run() -> list[str]:
    return [*render_lines(), replay_line()]
