"""`make screenshots`: the README's board pictures, drawn by the renderers and photographed by
headless Chromium (python -m clients.screenshots [OUT_DIR])."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from clients import games as presentations
from clients import render
from clients.bot import chooser_for, make_bot
from protocol import games
from protocol.referee import Referee


def shots() -> list[tuple[str, int, int]]:
    """(game, players, engine steps played before the picture: a game well under way), for
    every registered game whose presentation asks for a screenshot."""
    return [(game, *presentations.get(game).screenshot) for game in games.names()
            if presentations.get(game).screenshot is not None]


def board_svg(game: str, players: int, steps: int, seed: int = 11) -> tuple[str, int, int]:
    """Seat 0's picture after `steps` steps of a game among heuristic bots; with its size."""
    engine = games.get(game)
    ref = Referee(engine, players, seed=seed)
    choose = chooser_for([make_bot("heuristic", game, seed + s) for s in range(players)])
    for _ in range(steps):
        if ref.step(choose) is None:
            break
    svg = render.svg(game, ref.view(0), [f"seat {s}" for s in range(players)])
    head = svg[:400]
    width = int(head.split('width="', 1)[1].split('"', 1)[0])
    height = int(head.split('height="', 1)[1].split('"', 1)[0])
    return svg, width, height


def main(argv: list[str]) -> int:
    out = Path(argv[0] if argv else "docs/img")
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        print("make screenshots needs Chromium: apt-get install chromium", file=sys.stderr)
        return 2
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        for game, players, steps in shots():
            svg, width, height = board_svg(game, players, steps)
            page = Path(tmp) / f"{game}.html"
            page.write_text(f'<!doctype html><meta charset="utf-8"><body style="margin:0">{svg}</body>')
            target = out / f"{game}.png"
            subprocess.run([browser, "--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                            f"--screenshot={target.resolve()}", f"--window-size={width},{height}",
                            page.resolve().as_uri()], check=True, capture_output=True, timeout=120)
            print(f"{target} ({width}×{height})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
