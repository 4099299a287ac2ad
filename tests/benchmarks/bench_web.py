"""The browser client in real Chromium: the delay from an event applied on the node to the
page's updated picture (median target ≤ 100 ms), while a whole 2-player game is played by
clicking against a bot (the installed game quickest over real nodes, tests.games.pick). Needs Chromium and its driver (skipped with a line otherwise)."""

from __future__ import annotations

import shutil
import statistics
import tempfile
from pathlib import Path

TARGET_MS = 100.0


def run() -> list[str]:
    if not (shutil.which("chromium") and shutil.which("chromedriver")):
        return ["skipped: needs Chromium (apt-get install chromium chromium-driver)"]

    from protocol import games
    from tests.games.pick import quick_game
    from tests.web.conftest import new_chromium, web_game
    from tests.web.test_play import play_by_clicking

    driver = new_chromium(window="1400,1000")
    lines = []
    try:
        with tempfile.TemporaryDirectory() as tmp:
            game = quick_game(2)
            host, bots, url = web_game(Path(tmp), game, 2)
            try:
                stats = play_by_clicking(driver, url, seed=3, timeout=600, reload_after=-1)
                delays = driver.execute_script("return window.caravanLatencies")
            finally:
                for node in (host, *bots):
                    node.stop()
        median = statistics.median(delays)
        p90 = statistics.quantiles(delays, n=10)[-1]
        lines.append(f"{games.get(game).title}, 2 players, {stats['decisions']} clicked decisions: event on the node -> picture in "
                     f"Chromium: median {median:.0f} ms, p90 {p90:.0f} ms over {len(delays)} pictures "
                     f"(target median ≤ {TARGET_MS:.0f} ms: {'met' if median <= TARGET_MS else 'MISSED'})")
    finally:
        driver.quit()
    return lines
