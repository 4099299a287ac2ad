"""Redraw the record page's README pictures (docs/img/record.png at 1280×900, and
record-phone-light.png, record-phone-dark.png at 390×844) in headless Chromium: Ada's data
directory with a few real games among four friends (one whose name was never kept, one game
she watched, one transcript tampered with), "last played" spread over the past weeks.

    python -m tests.web.record_screenshots docs/img
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

import tests.web.conftest as conftest
from tests.web.home_screenshots import _without_test_engines


def main(out: Path) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    from protocol import games
    from tests.clients.record_games import Game, data_dir, tampered, transcript
    from tests.games.pick import games_with, short_game
    from tests.web.conftest import new_chromium
    from tests.web.home_fixtures import api, start_home

    def real(seats: list[str], seed: int) -> bytes:
        """A short game (its hooks' options) of an installed game for these seats, taking
        each game in turn, so the record shows several."""
        found = games_with(players=len(seats))
        game = found[seed % len(found)]
        return transcript(seats, seed, engine=games.get(game), options=short_game(game)[1])

    played = [Game(["Ada", "Bea"], real(["Ada", "Bea"], 1)),
              Game(["Bea", "Ada", "Cy"], real(["Bea", "Ada", "Cy"], 2)),
              Game(["Cy", "Ada"], real(["Cy", "Ada"], 3)),
              Game(["Ada", "Dee"], real(["Ada", "Dee"], 4), named=False),
              Game(["Ada", "Bea", "Cy"], real(["Ada", "Bea", "Cy"], 5)),
              Game(["Bea", "Cy"], real(["Bea", "Cy"], 6), watched=True),
              Game(["Ada", "Bea"], tampered(real(["Ada", "Bea"], 7)))]
    conftest.env = _without_test_engines
    driver = new_chromium(window="1280,900")
    with tempfile.TemporaryDirectory() as tmp:
        d = data_dir(Path(tmp) / "home", played)
        files = sorted(d.glob("games/*/transcript.caravan")) + sorted(d.glob("watched/*.caravan"))
        for i, f in enumerate(files):                     # played over the past weeks
            t = time.time() - 86400 * (3 * i + 1) - 3600 * i
            os.utime(f, (t, t))
        home, url = start_home(Path(tmp), "home")
        try:
            ready = lambda b: b.find_element(By.TAG_NAME, "body").get_attribute("data-ready")  # noqa: E731
            api(url, "settings", {"theme": "light"})
            driver.get(url + "record")
            WebDriverWait(driver, 120).until(ready)
            driver.save_screenshot(str(out / "record.png"))
            for theme in ("light", "dark"):
                api(url, "settings", {"theme": theme})
                driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                                       {"width": 390, "height": 844, "deviceScaleFactor": 1, "mobile": True})
                driver.get(url + "record")
                WebDriverWait(driver, 120).until(ready)
                driver.save_screenshot(str(out / f"record-phone-{theme}.png"))
        finally:
            driver.quit()
            home.proc.terminate()
            home.stop()


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "docs/img"))
