"""`caravan replay`: the transcript is verified first, then one self-contained page steps
through the game; a broken transcript is shown broken, never as valid."""

from __future__ import annotations

import subprocess
import time
import sys
from pathlib import Path

import pytest
from selenium.webdriver.common.by import By

from protocol.transcript import dump, load
from tests.games.pick import cli_options, short_game, some_game
from tests.helpers import timeout as scaled
from tests.node.procs import ROOT, env
from tests.web.conftest import console_errors


@pytest.fixture(scope="module")
def transcript(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("replay") / "game.caravan"
    game = some_game(players=2)
    short = [x for option in cli_options(short_game(game)[1]) for x in ("-o", option)]
    subprocess.run([sys.executable, "-m", "node", "demo", game, "--players", "2", "--bot", "random", *short,
                    "--out", str(out)], cwd=ROOT, env=env(), check=True, timeout=scaled(300),
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return out


def replay(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "node", "replay", *args, "--no-browser"], cwd=ROOT, env=env(),
                          capture_output=True, text=True, timeout=scaled(300))


def test_a_replay_steps_forward_and_back_to_the_final_scores(transcript: Path, tmp_path: Path, browser):
    page = tmp_path / "game.html"
    done = replay(str(transcript), "--html", str(page))
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("Verified") and "Traceback" not in done.stderr
    text = page.read_text()
    assert "http://" not in text.replace('xmlns="http://www.w3.org/2000/svg"', "")   # self-contained
    browser.get(page.as_uri())
    step = browser.find_element(By.ID, "stepno")
    browser.find_element(By.ID, "first").click()
    assert step.text.startswith("step 0 of")
    first_board = browser.find_element(By.ID, "board").get_attribute("innerHTML")
    browser.find_element(By.ID, "next").click()
    browser.find_element(By.ID, "next").click()
    assert step.text.startswith("step 2 of")
    browser.find_element(By.ID, "prev").click()
    assert step.text.startswith("step 1 of")
    browser.find_element(By.ID, "last").click()
    last = int(step.text.split(" of ")[1].split()[0])
    assert step.text.startswith(f"step {last} of") and last > 2     # past the steps walked above
    assert browser.find_element(By.ID, "board").get_attribute("innerHTML") != first_board
    assert "Verified" in browser.find_element(By.ID, "badge").text
    result = browser.find_element(By.ID, "result").text
    assert "Won by seat" in result and "scores" in result
    now = browser.find_elements(By.CSS_SELECTOR, "#log li.now")
    assert now and all(li.text for li in now)                # the log is in step with the board
    assert console_errors(browser) == []


def test_a_tampered_transcript_is_shown_as_invalid(transcript: Path, tmp_path: Path, browser):
    genesis, messages = load(transcript.read_bytes())
    bad = bytearray(messages[10])
    bad[-5] ^= 1                                              # break the 11th message's signature
    broken = tmp_path / "broken.caravan"
    broken.write_bytes(dump(genesis, [*messages[:10], bytes(bad), *messages[11:]]))
    page = tmp_path / "broken.html"
    done = replay(str(broken), "--html", str(page))
    assert done.returncode == 1
    assert done.stdout.startswith("NOT VALID: message #11, signed by seat")
    browser.get(page.as_uri())
    badge = browser.find_element(By.ID, "badge")
    assert "NOT VALID" in badge.text and "bad" in badge.get_attribute("class")
    assert "message #11 is invalid" in browser.find_element(By.CSS_SELECTOR, "#log li.failed").text
    browser.find_element(By.ID, "last").click()
    shown = int(browser.find_element(By.ID, "stepno").text.split("message #")[1].rstrip(")"))
    assert shown <= 10                                        # nothing past the bad message
    assert console_errors(browser) == []


def test_files_that_are_not_transcripts(tmp_path: Path):
    missing = replay(str(tmp_path / "nothing.caravan"))
    assert missing.returncode == 2 and "cannot open" in missing.stderr
    junk = tmp_path / "junk.caravan"
    junk.write_bytes(b"hello")
    done = replay(str(junk))
    assert done.returncode == 2 and "not a readable transcript" in done.stderr and "Traceback" not in done.stderr


def test_the_result_waits_for_the_last_step_and_a_narrow_replay_opens_at_the_top(transcript: Path, tmp_path: Path,
                                                                                 browser):
    page = tmp_path / "game.html"
    assert replay(str(transcript), "--html", str(page)).returncode == 0
    browser.set_window_size(390, 844)
    browser.get(page.as_uri())
    step = browser.find_element(By.ID, "stepno")
    assert step.text.startswith("step 0 of")                # it opens at the start: no spoiler
    assert not browser.find_element(By.ID, "result").is_displayed()
    time.sleep(scaled(0.5))            # stays (CONTRIBUTING): room for a scroll the page must not make
    assert browser.execute_script("return window.scrollY") == 0
    browser.find_element(By.ID, "next").click()
    assert browser.execute_script("return window.scrollY") == 0
    assert not browser.find_element(By.ID, "result").is_displayed()
    browser.find_element(By.ID, "last").click()
    assert "Won by seat" in browser.find_element(By.ID, "result").text


def test_a_tampered_transcript_has_no_result_in_a_green_frame(transcript: Path, tmp_path: Path, browser):
    genesis, messages = load(transcript.read_bytes())
    bad = bytearray(messages[10])
    bad[-5] ^= 1
    broken = tmp_path / "broken.caravan"
    broken.write_bytes(dump(genesis, [*messages[:10], bytes(bad), *messages[11:]]))
    page = tmp_path / "broken.html"
    replay(str(broken), "--html", str(page))
    browser.get(page.as_uri())
    browser.find_element(By.ID, "last").click()
    box = browser.find_element(By.ID, "result")
    assert "No result" in box.text and "not valid" in box.text
    colours = browser.execute_script(
        "const s = getComputedStyle(document.documentElement);"
        "return [getComputedStyle(arguments[0]).borderTopColor, s.getPropertyValue('--ok').trim()]", box)
    probe = browser.execute_script("const d = document.createElement('div'); d.style.color = arguments[0];"
                                   "document.body.appendChild(d); const c = getComputedStyle(d).color; d.remove();"
                                   "return c", colours[1])
    assert colours[0] != probe                                # not the colour that means "verified"
