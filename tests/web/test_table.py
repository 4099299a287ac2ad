"""At the table, in real Chromium: two people on two nodes on loopback, each in a browser tab.

Turn signal (the tab title), who has chosen in secret, chat between the pages (hostile lines
shown as text or refused, a flood cut off), and the clock counting down to its warnings."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from selenium.webdriver.common.by import By

from clients import games as presentations
from protocol import games
from tests.games.pick import cli_options, games_with, option_args, quick, quick_game, short_game
from tests.helpers import timeout as scaled
from tests.web.conftest import Node, console_errors, web_game

SHOWN = presentations.first(games_with(players=2))
SHOWN_OPTIONS = cli_options(short_game(SHOWN)[1])
"""The game the house shows first, its hooks' short options: the clock's page."""

HOSTILE = [
    "<script>window.pwned=1</script>", "</svg><img src=x onerror=window.pwned=1>", "<b>bold</b>",
    "\"'><svg onload=window.pwned=1>", "javascript:alert(1)", "&lt;not an entity&gt; &amp;", "\u202eevil-rtl",
    "bell\x07ring", "esc \x1b[31mred\x1b[0m", "nul\x00byte", "line\nbreak", "tab\tstop", "\u0000", "x" * 10_000,
    "{{7*7}} ${7*7}", "<!-- comment -->", "<style>body{display:none}</style>", "%3Cscript%3E", "😀 émoji ok",
    "]]><![CDATA[",
]


def _until(predicate, timeout: float, what: str, step: float = 0.1, seen=lambda: ""):
    """wait_until (tests/helpers.py: `timeout` scaled), saying what the page showed."""
    deadline = time.monotonic() + scaled(timeout)
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(step)                     # a poll's pause inside the bounded wait
    raise AssertionError(f"not within {scaled(timeout):g} s: {what} {seen()}")


def _two_pages(tmp_path: Path, browser, relay: str | None = None):
    """Ann hosts and Bob joins, both with --client web (through the broker at `relay`, else
    on the LAN), the installed game quickest for two; one tab each in one browser."""
    game, options = quick(2)
    ann = Node(["host", game, "--players", "2", *option_args(options), "--client", "web", "--no-browser", "--no-discovery", "--bind",
                "127.0.0.1", "--time-limit", "0", "--name", "Ann", *(["--relay", relay] if relay else [])],
               tmp_path / "ann", tmp_path / "ann.log")
    where = ann.wait_for("invite")["invite"] if relay else f"127.0.0.1:{ann.wait_for('lobby')['port']}"
    ann_url = ann.wait_for("web", timeout=60)["url"]
    bob = Node(["join", where, "--client", "web", "--no-browser", "--bind", "127.0.0.1",
                "--name", "Bob"], tmp_path / "bob", tmp_path / "bob.log")
    bob_url = bob.wait_for("web", timeout=60)["url"]
    browser.get(ann_url)
    tabs = {"ann": browser.current_window_handle}
    browser.switch_to.new_window("tab")
    browser.get(bob_url)
    tabs["bob"] = browser.current_window_handle
    return ann, bob, tabs


def _on(browser, tabs, who: str):
    browser.switch_to.window(tabs[who])
    return browser


def _say(browser, text: str) -> None:
    browser.execute_script("document.getElementById('chat-text').value = arguments[0];"
                           "document.getElementById('chat-form').requestSubmit();", text)


def _chat_lines(browser) -> list[str]:
    return [li.get_attribute("textContent") for li in browser.find_elements(By.CSS_SELECTOR, "#chat-log li")]


def test_two_pages_talk_see_whose_turn_and_who_has_chosen(tmp_path: Path, browser):
    ann, bob, tabs = _two_pages(tmp_path, browser)
    try:
        for who in ("ann", "bob"):
            _on(browser, tabs, who)
            _until(lambda: browser.find_element(By.ID, "chat").is_displayed(), 60, f"{who}'s chat opens")

        # chat both ways, with the sender's name
        _say(_on(browser, tabs, "ann"), "hello Bob")
        _on(browser, tabs, "bob")
        _until(lambda: "Ann: hello Bob" in _chat_lines(browser), 20, "Bob reads Ann's line")
        _say(browser, "hi Ann")
        _on(browser, tabs, "ann")
        _until(lambda: "Bob: hi Ann" in _chat_lines(browser), 20, "Ann reads Bob's line")
        assert "you: hello Bob" in _chat_lines(browser)

        # the secret invocation: both must choose; whoever chooses first is "has chosen" to the other
        def open_commit():
            for who in ("ann", "bob"):
                _on(browser, tabs, who)
                if browser.find_element(By.ID, "decide").is_displayed():
                    return who
            return None
        # play (first move each time) until a secret choice is open; whoever answers it first is
        # "has chosen" to the other page
        deadline = time.monotonic() + scaled(120)
        while True:
            chooser = _until(open_commit, 60, "a decision opens")
            assert browser.title.startswith("● Your turn — Sabbat Magica")
            if "secret" in browser.find_element(By.ID, "decide-title").text.lower():
                break
            assert time.monotonic() < deadline, "no secret choice within 120 s"
            decide = browser.find_element(By.ID, "decide")
            decision = decide.get_attribute("data-decision")
            first = browser.find_elements(By.CSS_SELECTOR, "#moves button.move, #groups button.group")[0]
            grouped = "group" in first.get_attribute("class").split()
            first.click()
            _until(lambda: not decide.is_displayed() or decide.get_attribute("data-decision") != decision
                   or (grouped and browser.find_elements(By.CSS_SELECTOR, "#moves button.move")), 20,
                   "the page takes the move (or lists the chosen group's moves)")
        move = browser.find_elements(By.CSS_SELECTOR, "#moves button.move")[0]
        picked = move.get_attribute("title").split(": ", 1)[1]
        move.click()
        status = _until(lambda: "hidden until everyone reveals" in browser.find_element(By.ID, "status").text
                        and browser.find_element(By.ID, "status").text, 20, "the chooser's status",
                        seen=lambda: repr(browser.find_element(By.ID, "status").text))
        other = "bob" if chooser == "ann" else "ann"
        assert status.startswith(f"You chose {picked} — hidden until everyone reveals")
        assert "waiting for Bob" in status or "waiting for Ann" in status
        assert not browser.title.startswith("●")               # answered: not my turn any more
        _on(browser, tabs, other)
        name = "Ann" if chooser == "ann" else "Bob"
        _until(lambda: f"{name} has chosen" in browser.find_element(By.ID, "status").text, 20,
               "the other page says who has chosen")
        assert browser.title.startswith("● Your turn")
        assert picked not in browser.find_element(By.ID, "status").text     # the choice stays hidden
        for who in ("ann", "bob"):
            assert console_errors(_on(browser, tabs, who)) == []
        chat_file = next((tmp_path / "ann").rglob("chat.jsonl"))
        assert "hello Bob" in chat_file.read_text() and "hi Ann" in chat_file.read_text()
        transcript_dir = chat_file.parent
        assert not any(b"hello Bob" in p.read_bytes() for p in transcript_dir.iterdir()
                       if p.is_file() and p.name != "chat.jsonl")     # never inside the game's record
    finally:
        for node in (ann, bob):
            node.proc.kill()
            node.stop()


def test_chat_through_a_real_mosquitto(tmp_path: Path, browser):
    from tests.relay.broker import Broker

    broker = Broker(tmp_path).start()
    ann, bob, tabs = _two_pages(tmp_path, browser, relay=broker.url)
    try:
        _on(browser, tabs, "ann")
        _until(lambda: browser.find_element(By.ID, "chat").is_displayed(), 90, "Ann's chat opens")
        _say(browser, "over the broker")
        _on(browser, tabs, "bob")
        _until(lambda: "Ann: over the broker" in _chat_lines(browser), 30, "Bob reads Ann's line")
        _say(browser, "<i>back</i>")
        _on(browser, tabs, "ann")
        _until(lambda: "Bob: <i>back</i>" in _chat_lines(browser), 30, "Ann reads Bob's line as text")
        assert console_errors(browser) == []
    finally:
        for node in (ann, bob):
            node.proc.kill()
            node.stop()
        broker.stop()


def test_hostile_chat_lines_are_text_or_refused_and_a_flood_is_cut_off(tmp_path: Path, browser, monkeypatch):
    # the nodes' rate window is 2 s instead of 10 s, so the test need not wait out real windows
    # (tests/web/test_chat_lines.py checks the 5 lines per 10 s of a node left alone)
    window = 2.0
    monkeypatch.setenv("CARAVAN_CHAT_WINDOW", str(window))
    ann, bob, tabs = _two_pages(tmp_path, browser)
    try:
        for who in ("ann", "bob"):
            _on(browser, tabs, who)
            _until(lambda: browser.find_element(By.ID, "chat").is_displayed(), 60, f"{who}'s chat opens")
        _on(browser, tabs, "bob")
        sent = 0
        for i, line in enumerate(HOSTILE):
            _say(browser, line)
            sent += 1
            if sent % 4 == 0:
                time.sleep(window + 0.5)             # stays (CONTRIBUTING): the pace within the rate limit
        _on(browser, tabs, "ann")
        _until(lambda: "Bob: " + HOSTILE[-1] in _chat_lines(browser), 20, "Ann reads Bob's last line",
               seen=lambda: _chat_lines(browser))    # one link, in order: every line before it is in too
        lines = _chat_lines(browser)
        assert browser.execute_script("return window.pwned") is None
        assert not browser.find_elements(By.CSS_SELECTOR, "#chat-log script, #chat-log img, #chat-log svg, "
                                                          "#chat-log style")
        for li in browser.find_elements(By.CSS_SELECTOR, "#chat-log li"):
            assert [c.tag_name for c in li.find_elements(By.XPATH, "./*")] == ["b"]   # the name, then text
        shown = [line.split(": ", 1)[1] for line in lines if line.startswith("Bob: ")]
        assert "<script>window.pwned=1</script>" in shown and "<b>bold</b>" in shown
        assert "😀 émoji ok" in shown, shown
        assert "linebreak" in shown or "line break" in shown          # a text field drops the line break
        assert all(len(t) <= 400 and all(c.isprintable() for c in t) for t in shown)
        assert "x" * 10_000 not in shown                             # too long: refused
        assert browser.find_element(By.ID, "board").get_attribute("innerHTML").count("pwned") == 0

        # a flood: 30 lines at once (one script, so they all fall in one window); the sender is
        # told to slow down, the others get at most 5
        before = len(_chat_lines(browser))
        _on(browser, tabs, "bob")
        time.sleep(window + 0.5)             # stays (CONTRIBUTING): a fresh rate window for the flood
        browser.execute_script("for (let i = 0; i < 30; i++) {"
                               " document.getElementById('chat-text').value = 'flood ' + i;"
                               " document.getElementById('chat-form').requestSubmit(); }")
        _until(lambda: "slow down" in browser.find_element(By.ID, "error").text, 10, "the sender is told")
        _on(browser, tabs, "ann")
        _until(lambda: any("flood" in line for line in _chat_lines(browser)[before:]), 20, "the first lines")
        time.sleep(scaled(2))                # stays (CONTRIBUTING): a window in which no 6th line may come
        flood = [line for line in _chat_lines(browser)[before:] if "flood" in line]
        assert 0 < len(flood) <= 5
        assert console_errors(browser) == []
    finally:
        for node in (ann, bob):
            node.proc.kill()
            node.stop()


def test_the_clock_counts_down_and_warns(tmp_path: Path, browser):
    """With --time-limit 14 the player has 14 s before the bots may record them silent: the
    page counts down and warns at 10 s left."""
    host, bots, url = web_game(tmp_path, SHOWN, 2, SHOWN_OPTIONS, extra=[])
    try:
        browser.get(url)
        _until(lambda: browser.find_element(By.ID, "decide").is_displayed(), 60, "a decision opens")
        assert browser.title.startswith(f"● Your turn — {games.get(SHOWN).title}")
        assert browser.find_element(By.ID, "clock").is_displayed() is False    # no time limit: no countdown
    finally:
        for node in (host, *bots):
            node.proc.kill()
            node.stop()
    (tmp_path / "limited").mkdir()
    host, bots, url = web_game(tmp_path / "limited", SHOWN, 2, SHOWN_OPTIONS, extra=["--time-limit", "14"])
    try:
        browser.get(url)
        _until(lambda: browser.find_element(By.ID, "decide").is_displayed(), 60, "a decision opens")
        first = _until(lambda: browser.find_element(By.ID, "clock").text, 5, "the clock shows")
        assert "left before the others may record you as silent" in first
        _until(lambda: _seconds(browser.find_element(By.ID, "clock").text) < _seconds(first), 10,
               "the clock counts down", seen=lambda: browser.find_element(By.ID, "clock").text)
        warning = _until(lambda: browser.find_element(By.ID, "warning").is_displayed()
                         and browser.find_element(By.ID, "warning").text, 14, "the 10 s warning")
        assert "10 s left" in warning
        assert "urgent" in browser.find_element(By.ID, "clock").get_attribute("class")
    finally:
        for node in (host, *bots):
            node.proc.kill()
            node.stop()


def _seconds(text: str) -> int:
    word = text.split()[1]
    if ":" in word:
        m, s = word.split(":")
        return int(m) * 60 + int(s)
    return int(word)


def test_the_lobby_page_names_the_joiners_the_address_and_the_empty_seats(tmp_path: Path, browser):
    host = Node(["host", quick_game(3), "--players", "3", "--client", "web", "--no-browser", "--no-discovery",
                 "--bind", "127.0.0.1", "--name", "Ann"], tmp_path / "ann", tmp_path / "ann.log")
    joiner = None
    try:
        url = host.wait_for("web")["url"]
        port = host.wait_for("lobby")["port"]
        browser.get(url)
        board = lambda: browser.find_element(By.ID, "board").text                         # noqa: E731
        _until(lambda: "empty: seat 1, seat 2" in board(), 30, "the empty seats", seen=board)
        assert f"caravan join 127.0.0.1:{port}" in board() and "HOST:" not in board()
        joiner = Node(["join", f"127.0.0.1:{port}", "--bot", "random", "--bind", "127.0.0.1", "--name", "Bob"],
                      tmp_path / "bob", tmp_path / "bob.log")
        _until(lambda: "Bob (key" in board() and "seat 1 Bob; empty: seat 2" in board(), 30,
               "Bob by name, and the seat left", seen=board)
        assert console_errors(browser) == []
    finally:
        for node in (host, joiner):
            if node is not None:
                node.proc.kill()
                node.stop()
