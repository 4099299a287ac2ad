"""Redraw the home's README pictures (docs/img/home.png, home-lobby.png, play-again.png,
home-phone-light.png and home-phone-dark.png at 390×844, home-options.png and
home-options-phone.png) in
headless Chromium: a game against two bots played to the end by clicking (its game-over box
offers Play again), then a lobby waiting for a friend, then the home, then New table's option
controls with a preset chosen (`--options`: only those two, in seconds).

    python -m tests.web.home_screenshots docs/img [--options]
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

import tests.web.conftest as conftest
from clients import games as presentations
from protocol import games
from tests.games.pick import installed, quick_game
from tests.node import procs


def _without_test_engines() -> dict[str, str]:
    e = procs.env()
    e.pop("CARAVAN_ENGINES", None)             # only the real games in the pictures
    return e


def fullest_preset(game: str) -> str:
    """The game's preset that fills the most controls (the last of equals): the one that shows most."""
    presets = list(games.options_module(game).PRESETS.items())
    return max(enumerate(presets), key=lambda found: (len(found[1][1]), found[0]))[1][0]


def options_games() -> tuple[str, str]:
    """(the desktop picture's game, the phone's): the installed game with a preset and the most
    options, and the game the house picks first (its New table is what a phone opens on)."""
    with_presets = [g for g in installed() if getattr(games.options_module(g), "PRESETS", None)]
    return (max(with_presets, key=lambda g: (len(games.options_module(g).OPTIONS), g)),
            presentations.first(with_presets))


def options_shots(driver, url: str, out: Path) -> None:
    """New table's option controls: the game with the most options, with its fullest preset, at
    1280 wide (the New table section alone); the house's first game with its fullest preset at
    390×844 scrolled to the options (the README names them: Nomads' "Short game", Sa-Rê's
    "Architect variant")."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    from tests.web.test_home_options import _show

    desktop, phone = options_games()
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",      # tall enough for the whole section
                           {"width": 1280, "height": 1700, "deviceScaleFactor": 1, "mobile": False})
    driver.get(url)
    _show(driver, desktop, games.get(desktop).min_players)
    Select(driver.find_element(By.ID, "preset")).select_by_visible_text(fullest_preset(desktop))
    driver.find_element(By.ID, "new").screenshot(str(out / "home-options.png"))
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": 390, "height": 844, "deviceScaleFactor": 1, "mobile": True})
    driver.get(url)
    _show(driver, phone, games.get(phone).min_players)
    Select(driver.find_element(By.ID, "preset")).select_by_visible_text(fullest_preset(phone))
    driver.execute_script("document.getElementById('options').closest('fieldset').scrollIntoView({block: 'start'})")
    driver.save_screenshot(str(out / "home-options-phone.png"))
    driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def main(out: Path, only_options: bool = False) -> None:
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
            if only_options:
                options_shots(driver, url, out)
                return
            create_table(driver, url, quick_game(3), 3, ["bot:heuristic", "bot:random"])   # played to its end
            play_by_clicking(driver, _table_url(driver, url), seed=3, timeout=300, reload_after=1000)
            _wait(driver, lambda d: d.find_element(By.ID, "play-again").is_displayed())
            driver.execute_script("document.getElementById('result').scrollIntoView({block: 'center'})")
            time.sleep(0.5)
            driver.save_screenshot(str(out / "play-again.png"))
            create_table(driver, url, presentations.first(installed()), 3, ["friend", "bot:heuristic"])
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
            api(url, "settings", {"theme": "light"})
            options_shots(driver, url, out)
        finally:
            driver.quit()
            home.proc.terminate()
            home.stop()


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if a != "--options"]
    main(Path(args[0] if args else "docs/img"), only_options="--options" in sys.argv[1:])
