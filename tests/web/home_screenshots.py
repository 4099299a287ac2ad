"""Redraw the home's README pictures (docs/img/home.png, home-lobby.png, play-again.png,
home-phone-light.png and home-phone-dark.png at 390×844) in
headless Chromium: a game against two bots played to the end by clicking (its game-over box
offers Play again), then a lobby waiting for a friend, then the home.

    python -m tests.web.home_screenshots docs/img
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

import tests.web.conftest as conftest
from tests.node import procs


def _without_test_engines() -> dict[str, str]:
    e = procs.env()
    e.pop("CARAVAN_ENGINES", None)             # only the real games in the pictures
    return e


def main(out: Path) -> None:
    from selenium.webdriver.common.by import By

    from tests.web.conftest import new_chromium
    from tests.web.home_fixtures import api, start_home
    from tests.web.test_home import _table_url, _wait, create_table
    from tests.web.test_play import play_by_clicking

    conftest.env = _without_test_engines
    driver = new_chromium(window="1280,900")
    with tempfile.TemporaryDirectory() as tmp:
        home, url = start_home(Path(tmp))
        try:
            api(url, "settings", {"name": "Ada"})
            create_table(driver, url, "sabbat", 3, ["bot:heuristic", "bot:random"])
            play_by_clicking(driver, _table_url(driver, url), seed=3, timeout=300, reload_after=1000)
            _wait(driver, lambda d: d.find_element(By.ID, "play-again").is_displayed())
            driver.execute_script("document.getElementById('result').scrollIntoView({block: 'center'})")
            time.sleep(0.5)
            driver.save_screenshot(str(out / "play-again.png"))
            create_table(driver, url, "sare", 3, ["friend", "bot:heuristic"])
            _wait(driver, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#lobby-seats li.taken")) >= 2, timeout=60)
            driver.execute_script("window.scrollTo(0, 0)")
            time.sleep(1)
            driver.save_screenshot(str(out / "home-lobby.png"))
            driver.get(url)
            time.sleep(3)
            driver.save_screenshot(str(out / "home.png"))
            for theme in ("light", "dark"):                   # the phone layout (issue 36)
                api(url, "settings", {"theme": theme})
                driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                                       {"width": 390, "height": 844, "deviceScaleFactor": 1, "mobile": True})
                driver.get(url)
                time.sleep(3)
                driver.save_screenshot(str(out / f"home-phone-{theme}.png"))
        finally:
            driver.quit()
            home.proc.terminate()
            home.stop()


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "docs/img"))
