"""A name typed into the home's Settings before the page's first answer came (a slow machine)
is kept: the first answer filled the form over it, and "saved" then saved an empty name (a
friend's table showed no name: test_home_lan failed so on one-core runs)."""

from __future__ import annotations

from pathlib import Path

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from tests.helpers import timeout as scaled
from tests.web.conftest import new_chromium
from tests.web.home_fixtures import api, start_home


def test_a_name_typed_before_the_first_answer_is_kept_and_saved(tmp_path: Path, chrome_paths):
    home, url = start_home(tmp_path)
    driver = new_chromium(chrome_paths)
    try:
        driver.set_network_conditions(offline=False, latency=1500, download_throughput=-1, upload_throughput=-1)
        driver.get(url)                                     # the page's first answer is 1.5 s away
        driver.find_element(By.ID, "name").send_keys("Bea")
        assert not driver.find_elements(By.CSS_SELECTOR, "#game option"), "typed before the first answer"
        WebDriverWait(driver, scaled(30), 0.1).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#game option"))
        assert driver.find_element(By.ID, "name").get_attribute("value") == "Bea"
        driver.find_element(By.CSS_SELECTOR, "#settings-form button").click()
        WebDriverWait(driver, scaled(30), 0.1).until(lambda d: d.find_element(By.ID, "saved").text == "saved")
        assert api(url, "state")["settings"]["name"] == "Bea"
    finally:
        driver.quit()
        home.proc.terminate()
        home.stop()
