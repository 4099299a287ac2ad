"""Issue 36, Your record, in Chromium: the home's header links to it; it shows each friend
(by name, else the key's fingerprint) with the games, results and rating the CLI computes,
everyone's rating, the games counted and the transcripts skipped with their reason; axe-core
finds no serious or critical problem in the light or the dark theme, and at 390×844 nothing
is wider than the screen and every tap target is at least 44 px. CARAVAN_SHOTS=DIR keeps the
screenshots."""

from __future__ import annotations

import json
import os
from pathlib import Path

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from node.cli.records import record_of
from protocol.identity import fingerprint
from tests.clients.record_games import PEOPLE, data_dir, season
from tests.helpers import timeout as scaled
from tests.web.conftest import console_errors
from tests.web.home_fixtures import api, start_home
from tests.web.test_access import axe_problems
from tests.web.test_home_bugs36 import MEASURE

SHOTS = os.environ.get("CARAVAN_SHOTS")


def _ready(browser) -> None:
    WebDriverWait(browser, scaled(60)).until(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready"))
    assert browser.find_element(By.TAG_NAME, "body").get_attribute("data-ready") == "1", \
        browser.find_element(By.ID, "error").text


def _shot(browser, name: str) -> None:
    if SHOTS:
        browser.save_screenshot(str(Path(SHOTS) / f"{name}.png"))


def test_the_record_page(tmp_path: Path, browser):
    d = data_dir(tmp_path / "home", season())
    home, url = start_home(tmp_path, "home")
    try:
        browser.get(url)
        link = WebDriverWait(browser, scaled(30)).until(lambda b: b.find_element(By.ID, "record-link"))
        assert link.text == "Your record"
        link.click()
        _ready(browser)
        assert browser.current_url == url + "record"
        rows = {r.get_attribute("data-key"): [c.text for c in r.find_elements(By.TAG_NAME, "td")]
                for r in browser.find_elements(By.CSS_SELECTOR, "#friend-list tbody tr")}
        bea, dee = PEOPLE["Bea"].public.hex(), PEOPLE["Dee"].public.hex()
        assert rows[bea][0].splitlines() == ["Bea", fingerprint(PEOPLE["Bea"].public)], rows
        assert rows[bea][1:3] == ["3", "2–1–0"], rows
        assert rows[dee][0] == fingerprint(PEOPLE["Dee"].public), rows            # no name known: the fingerprint
        # the same numbers as the CLI's record (node/cli/records.py), from the same files
        expected = json.loads(json.dumps(record_of(d)))
        assert len(rows) == len(expected["friends"]) == 3
        for f in expected["friends"]:
            assert rows[f["key"]][4] == f"{f['rating']['ordinal']:.1f}", (rows, f)
        people = [li.get_attribute("data-key") for li in browser.find_elements(By.CSS_SELECTOR, "#people li")]
        assert people == [p["key"] for p in expected["people"]]
        assert browser.find_element(By.CSS_SELECTOR, f"#people li[data-key='{PEOPLE['Ada'].public.hex()}']") \
            .text.startswith("Ada (you)")
        assert len(browser.find_elements(By.CSS_SELECTOR, "#games li")) == 6
        skipped = browser.find_element(By.ID, "skipped-list").text
        assert "bad-signature" in skipped and "unfinished" in skipped and str(d) not in skipped, skipped
        assert browser.find_element(By.ID, "me").text.startswith(f"Ada ({fingerprint(PEOPLE['Ada'].public)}): 5 games")
        replay = browser.find_elements(By.CSS_SELECTOR, "#games li a")
        assert len(replay) == 5                       # each game of hers; the watched one has no stored game
        _shot(browser, "record-desktop")
        for theme in ("light", "dark"):
            api(url, "settings", {"theme": theme})
            browser.get(url + "record")
            _ready(browser)
            assert browser.execute_script(f"return document.documentElement.classList.contains('{theme}')")
            assert axe_problems(browser) == [], theme
        assert console_errors(browser) == []

        browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                                {"width": 390, "height": 844, "deviceScaleFactor": 1, "mobile": True})
        for theme in ("light", "dark"):
            api(url, "settings", {"theme": theme})
            for page in ("record", ""):                       # the record, and the home with its new link
                browser.get(url + page)
                if page:
                    _ready(browser)
                else:
                    WebDriverWait(browser, scaled(30)).until(lambda b: b.find_elements(By.CSS_SELECTOR, "#game-list tr"))
                found = browser.execute_script(MEASURE)
                assert found["viewport"] == 390, found
                assert found["scroll"] <= 390 and not found["wide"], (theme, page, found)
                assert not found["small"], (theme, page, found)
                if page:
                    _shot(browser, f"record-phone-{theme}")
    finally:
        try:
            browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
        finally:
            home.proc.terminate()
            home.stop()


def test_a_damaged_key_is_one_line_on_the_page(tmp_path: Path, browser):
    d = tmp_path / "home"
    d.mkdir()
    (d / "identity.key").write_bytes(b"short")
    home, url = start_home(tmp_path, "home")
    try:
        browser.get(url + "record")
        WebDriverWait(browser, scaled(30)).until(lambda b: b.find_element(By.TAG_NAME, "body").get_attribute("data-ready"))
        error = browser.find_element(By.ID, "error")
        assert error.is_displayed() and "identity.key is damaged" in error.text
        assert "Traceback" not in browser.page_source
    finally:
        home.proc.terminate()
        home.stop()
