"""The tab keeps its data (issue 32, item 3): its identity key, made in the tab from
libsodium's randomness, is kept in IndexedDB (IDBFS under the worker's Python) and comes back
after a reload; the page shows its fingerprint and offers an encrypted backup (Argon2id and a
secretbox, through the `nacl` shim over libsodium.js), which restores the same key in a fresh
browser profile, opens on a desktop with PyNaCl too, and refuses a wrong passphrase in one
clear line. The key's secret shows nowhere: not in the page, its console, nor the backup's
clear text."""

from __future__ import annotations

import base64
import json

import pytest

from tests.helpers import missing_system_package, timeout as scaled, wait_until
from tests.web.conftest import find_chromium, new_chromium
from tests.web.tab_page import open_tab, tab_module
from tests.web.tab_fixtures import bundle, driver, server  # noqa: F401 - fixtures

pytestmark = pytest.mark.xdist_group("tab")

PASSPHRASE = "correct horse battery"


def shown_key(driver) -> str:
    return wait_until(lambda: (t := driver.find_element("id", "key-fingerprint").text) != "…" and t, 60,
                      "the page to show its key's fingerprint")


def status_after(driver, button: str) -> str:
    """Click `button`; the key status line once it says how it went."""
    driver.execute_script("document.getElementById('key-status').textContent = ''")
    driver.find_element("id", button).click()
    return wait_until(lambda: (t := driver.find_element("id", "key-status").text) and not t.endswith("…") and t, 120,
                      f"the outcome of {button}")


def restore(driver, path, passphrase: str, replace: bool) -> str:
    driver.find_element("id", "backup-file").send_keys(str(path))
    driver.find_element("id", "restore-passphrase").clear()
    driver.find_element("id", "restore-passphrase").send_keys(passphrase)
    box = driver.find_element("id", "restore-replace")
    if box.is_selected() != replace:
        box.click()
    return status_after(driver, "restore")


def everything_shown(driver) -> str:
    """The page's HTML and its console so far."""
    logs = "\n".join(e["message"] for e in driver.get_log("browser"))
    return driver.page_source + "\n" + logs


def test_the_key_survives_a_reload_and_a_backup_restores_it_elsewhere(driver, server, tmp_path):  # noqa: F811
    assert open_tab(driver, server)["ok"]
    first = shown_key(driver)
    assert open_tab(driver, server)["ok"]                               # a reload: the same key, from IndexedDB
    assert shown_key(driver) == first

    driver.find_element("id", "backup-passphrase").send_keys(PASSPHRASE)
    assert f"Backup of {first} ready" in status_after(driver, "backup-make")
    link = driver.find_element("id", "backup-link")
    assert link.get_attribute("download") == f"caravan-key-{first}.json" and link.get_attribute("href").startswith("blob:")
    text = driver.execute_async_script("""const done = arguments[arguments.length - 1];
        fetch(arguments[0]).then((r) => r.text()).then(done, (e) => done('failed: ' + e));""", link.get_attribute("href"))
    backup = tmp_path / "backup.json"
    backup.write_text(text)

    key = tab_module("tab_backup").restore(text.encode(), PASSPHRASE)   # the desktop (PyNaCl) opens it too
    from protocol.identity import fingerprint
    assert fingerprint(key.public) == first
    secret = key.seed()
    forms = (secret.hex(), base64.b64encode(secret).decode(), base64.urlsafe_b64encode(secret).decode().rstrip("="))
    assert not [f for f in forms if f in text or f in everything_shown(driver)]
    assert json.loads(text)["fingerprint"] == first

    if find_chromium() is None:
        missing_system_package("Chromium or its driver", "apt-get install chromium chromium-driver")
    fresh = new_chromium()                                              # a fresh profile: no key of this tab's
    fresh.set_script_timeout(scaled(180))
    try:
        assert open_tab(fresh, server)["ok"]
        other = shown_key(fresh)
        assert other != first
        wrong = restore(fresh, backup, "not the passphrase", replace=True)
        assert wrong == "wrong passphrase: it does not open this backup (or the file was changed)"
        kept = restore(fresh, backup, PASSPHRASE, replace=False)
        assert kept.startswith(f"this tab already has key {other}; restoring {first} would replace it"), kept
        assert shown_key(fresh) == other
        assert restore(fresh, backup, PASSPHRASE, replace=True) == f"Restored: this tab's key is {first}."
        assert shown_key(fresh) == first
        assert open_tab(fresh, server)["ok"]                            # and it is kept there
        assert shown_key(fresh) == first
        assert not [f for f in forms if f in everything_shown(fresh)]
    finally:
        fresh.quit()


def test_a_second_tab_of_the_browser_leaves_the_data_to_the_first(driver, server):  # noqa: F811
    """Two tabs would each write the folder back over the other's (two fresh ones: two keys,
    one kept): the first holds it, the second says so, and has it once the first is gone."""
    assert open_tab(driver, server)["ok"]
    first = shown_key(driver)
    home = driver.current_window_handle
    driver.switch_to.new_window("tab")
    try:
        assert open_tab(driver, server)["ok"]                          # Python runs: only the data waits
        said = wait_until(lambda: driver.find_element("id", "key-status").text, 60, "the second tab's key status")
        assert said == ("this tab's data (its key) is open in another tab of this browser: close that tab, "
                        "then reload this one"), said
        assert driver.find_element("id", "key-fingerprint").text == "…"
        second = driver.current_window_handle
        driver.switch_to.window(home)
        driver.close()
        driver.switch_to.window(second)
        home = second
        assert open_tab(driver, server)["ok"]
        assert shown_key(driver) == first
    finally:
        driver.switch_to.window(home)


def test_a_backup_refuses_what_is_not_one_in_one_line(tmp_path):
    """Run by CPython on the module the tab runs (PyNaCl behind nacl.bindings here)."""
    tab_backup = tab_module("tab_backup")
    from protocol.identity import SigningKey
    key = SigningKey.generate()
    good = json.loads(tab_backup.make(key, PASSPHRASE))
    assert tab_backup.restore(json.dumps(good).encode(), PASSPHRASE).public == key.public
    with pytest.raises(tab_backup.BackupError, match="at least 8 characters"):
        tab_backup.make(key, "short")
    cases = [(b"\xff not json", "not JSON"),
             (json.dumps({**good, "format": "other"}).encode(), "not a Caravan key backup"),
             (json.dumps({**good, "memlimit": 1 << 40}).encode(), "limits are out of range"),
             (json.dumps({**good, "salt": "zz"}).encode(), "its salt is missing or not hex"),
             (json.dumps({**good, "box": good["box"][:-2] + "00"}).encode(), "wrong passphrase"),
             (json.dumps({**good, "public": SigningKey.generate().public.hex()}).encode(), "the file was changed")]
    for data, why in cases:
        with pytest.raises(tab_backup.BackupError, match=why):
            tab_backup.restore(data, PASSPHRASE)
