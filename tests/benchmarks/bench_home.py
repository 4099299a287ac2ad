"""The home (`caravan app`) in real Chromium: its first paint (target ≤ 300 ms) and "create a
3-player table with two bots → first decision shown" (of the installed game quickest over real
nodes, tests.games.pick) (target ≤ 3 s on 2 cores). The
baseline, measured in the same run, is the same browser loading one small static file of
the same server. Needs Chromium and its driver (skipped with a line otherwise)."""

from __future__ import annotations

import shutil
import statistics
import tempfile
import time
from pathlib import Path

FIRST_PAINT_MS, FIRST_DECISION_S = 300.0, 3.0
ROUNDS = 5


def run() -> list[str]:
    if not (shutil.which("chromium") and shutil.which("chromedriver")):
        return ["skipped: needs Chromium (apt-get install chromium chromium-driver)"]
    from selenium.webdriver.common.by import By

    from protocol import games
    from tests.games.pick import quick_game
    from tests.web.conftest import new_chromium
    from tests.web.home_fixtures import start_home
    from tests.web.test_home import _table_url, _wait, create_table

    game = quick_game(3)            # the installed game quickest over real nodes for 3 players
    driver = new_chromium(window="1400,1000")
    paint = "return performance.getEntriesByType('paint').map(e => e.startTime)"
    try:
        with tempfile.TemporaryDirectory() as tmp:
            home, url = start_home(Path(tmp))
            try:
                base, first = [], []
                for _ in range(ROUNDS):
                    start = time.perf_counter()
                    driver.get(url + "static/home.css")
                    base.append((time.perf_counter() - start) * 1000)
                    driver.get(url)
                    _wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#options input"))
                    first.append(max(driver.execute_script(paint) or [0.0]))
                create_table(driver, url, game, 3, ["bot:heuristic", "bot:random"], reload=False)
                start = time.perf_counter()
                _table_url(driver, url)
                _wait(driver, lambda d: d.find_element(By.ID, "decide").is_displayed(), timeout=120)
                decision = time.perf_counter() - start
            finally:
                home.proc.terminate()
                home.stop()
    finally:
        driver.quit()
    b, f = statistics.median(base), statistics.median(first)
    return [f"home first paint: median {f:.0f} ms over {ROUNDS} loads; baseline (one static file) {b:.0f} ms; "
            f"ratio {f / b:.1f}x (target ≤ {FIRST_PAINT_MS:.0f} ms: {'met' if f <= FIRST_PAINT_MS else 'MISSED'})",
            f"create a {games.get(game).title} table with two bots -> first decision shown: {decision:.2f} s, "
            f"{decision * 1000 / b:.0f}x the baseline (target ≤ {FIRST_DECISION_S:.0f} s: "
            f"{'met' if decision <= FIRST_DECISION_S else 'MISSED'})"]
