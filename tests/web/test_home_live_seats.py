"""A friend waiting in someone else's lobby sees who sits where as it changes (issue 36: the
joiner's home said only "2 of 4 seated when you joined"): the host tells every waiting
joiner the seats whenever someone takes or leaves one (node/app/lobby.py `seats` frame)."""

from __future__ import annotations

from pathlib import Path

from selenium.webdriver.support.ui import WebDriverWait

from tests.helpers import timeout as scaled, wait_until
from tests.node.procs import node
from tests.web.home_fixtures import api, start_home


def seats_shown(browser) -> list[str]:
    """The seats list as shown, read at once (it is redrawn as the home polls)."""
    return browser.execute_script("return [...document.querySelectorAll('#lobby-seats li')]"
                                  ".map((li) => li.innerText.replace(/\\s+/g, ' ').trim())")


def test_a_joiner_sees_the_seats_change_live(tmp_path: Path, browser):
    ada, ada_url = start_home(tmp_path, "ada")
    bea, bea_url = start_home(tmp_path, "bea")
    cy = None
    try:
        api(ada_url, "settings", {"name": "Ada"})
        api(bea_url, "settings", {"name": "Bea"})
        table = api(ada_url, "host", {"game": "fixture", "seats": ["friend", "friend", "friend"]})["table"]
        invite = wait_until(lambda: next(t for t in api(ada_url, "state")["tables"]
                                         if t["key"] == table["key"])["invite"], scaled(60), "Ada's invite")
        port = invite.rsplit(":", 1)[1]
        api(bea_url, "join", {"invite": "127.0.0.1:" + port})
        browser.get(bea_url)
        wait = WebDriverWait(browser, scaled(60))
        wait.until(lambda d: seats_shown(d) == ["seat 0 Ada (the host) ready", "seat 1 Bea (you) ready",
                                           "seat 2 a player empty: waiting", "seat 3 a player empty: waiting"])
        cy = node(["join", f"127.0.0.1:{port}", "--bot", "random", "--name", "Cy", "--bind", "127.0.0.1"],
                  tmp_path / "cy", tmp_path / "cy.log")
        wait.until(lambda d: "seat 2 Cy (player) ready" in seats_shown(d))      # no reload: the host told Bea
        cy.kill()
        cy.wait()
        wait.until(lambda d: "seat 2 a player empty: waiting" in seats_shown(d))
    finally:
        if cy is not None and cy.poll() is None:
            cy.kill()
        for home in (ada, bea):
            home.proc.terminate()
            home.stop()
