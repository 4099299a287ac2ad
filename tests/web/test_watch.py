"""`caravan watch --client web` in real Chromium: the table page in spectator mode, with
nothing on the page or in its WebSocket frames that a spectator may not see (issue 26)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import trio

from clients import narrate, render
from protocol import games, genesis as G, transcript
from protocol.identity import fingerprint
from protocol.session import Session
from protocol.verify import verify_bytes
from tests import helpers
from tests.node.procs import ROOT, log_tail
from tests.games.pick import cli_options, games_with, option_args, short_game
from tests.node.test_spectate import forging_node, game_transcript, host
from tests.web.conftest import Node, console_errors, new_chromium

CASES = [(game, 3, cli_options(short_game(game)[1])) for game in games_with(players=3)]
"""Each installed game for 3 players with its hooks' short options (a whole game's pictures are
checked, so a short one costs a third of the time and checks the same)."""


@pytest.fixture
def chrome(chrome_paths):
    """Chromium that logs the WebSocket frames it receives (the performance log)."""
    driver = new_chromium(chrome_paths, performance=True)
    try:
        yield driver
    finally:
        driver.quit()


def ws_frames(driver) -> list[dict]:
    out = []
    for entry in driver.get_log("performance"):
        msg = json.loads(entry["message"])["message"]
        if msg["method"] == "Network.webSocketFrameReceived":
            out.append(json.loads(msg["params"]["response"]["payloadData"]))
    return out


def wait_until(check, timeout: float, what: str):
    return helpers.wait_until(check, timeout, what, interval=0.2)


def _badge(driver) -> str:
    """The badge's text ("" until the first picture made the page add it)."""
    found = driver.find_elements("id", "badge")
    return found[0].text if found else ""


def spectator_story(data: bytes, names: list[str]) -> tuple[set[str], set[str], dict[int, int]]:
    """From the finished transcript: every spectator picture and sentence of the game (the
    replay's pipeline: strict session, spectator view, renderer), and the deck cards that
    stayed hidden to the end (handle -> card, decoded with the published keys)."""
    genesis_raw, messages = transcript.load(data)
    genesis = G.parse(genesis_raw)
    engine = games.get(genesis.game)
    session = Session(genesis, engine, strict=True)
    table = narrate.Table(engine, genesis.options, len(genesis.seats), None, names)
    pictures, sentences = {render.svg(engine.name, table.view, names)}, set()
    for raw in messages:
        for event in session.receive(raw).events:
            _, lines = table.apply(event)
            pictures.add(render.svg(engine.name, table.view, names))
            sentences.update(lines)
    return pictures, sentences, session.audit(retired=True)


def resolved_handles(value, out: set[int]) -> set[int]:
    """Every deck handle a JSON value resolves to a card ({"handle": h, "card": ...})."""
    if isinstance(value, dict):
        if "handle" in value and "card" in value:
            out.add(value["handle"])
        for v in value.values():
            resolved_handles(v, out)
    elif isinstance(value, list):
        for v in value:
            resolved_handles(v, out)
    return out


@pytest.mark.parametrize("game, players, options", CASES, ids=[f"{g}-{n}" for g, n, _ in CASES])
def test_the_spectator_page_shows_only_the_public_game(tmp_path: Path, chrome, game: str, players: int,
                                                       options: list[str]):
    # one seat stays empty until the watcher waits in the lobby: however slowly its page server
    # starts, the game cannot be over before it watches
    h, port = host(tmp_path, game, players, *option_args(options), delay="0.05",
                   bots=players - 2)
    w = Node(["watch", f"127.0.0.1:{port}", "--client", "web", "--no-browser", "--json", "--priority", "normal",
              "--out", str(tmp_path / "watched.caravan")], tmp_path / "watcher", tmp_path / "watcher.log")
    url = w.wait_for("web", timeout=30)["url"]
    while "lobby" not in w.wait_for("status", timeout=60):     # "waiting in lobby …"
        pass
    last = Node(["join", f"127.0.0.1:{port}", "--bot", "random", "--bot-delay", "0.05", "--seed", "2",
                 "--bind", "127.0.0.1"], tmp_path / "last", tmp_path / "last.log")
    w.wait_for("watching", timeout=60)
    chrome.get(url)
    badge = wait_until(lambda: re.fullmatch(r"verified so far: (\d+) messages", _badge(chrome)), 60, "the badge")
    assert int(badge.group(1)) >= 0
    me = chrome.find_element("id", "me").text
    assert me.startswith("spectator of 3 players")
    assert not chrome.find_element("id", "auto").is_displayed()
    assert not chrome.find_element("id", "chat").is_displayed(), "a spectator holds no seat: no table talk"
    for control in ("auto", "sound", "notify"):                  # nor moves, nor a turn to be told of
        assert not chrome.find_element("id", control).is_displayed(), control
    w.wait_for("transcript", timeout=240)
    # the whole game is played meanwhile: on one busy core that took over 90 s (a one-core run)
    try:
        wait_until(lambda: chrome.find_element("id", "result").is_displayed(), 300, "the result on the page")
    except AssertionError as exc:           # what the page and the watcher said instead
        raise AssertionError(f"{exc}; the page says {chrome.find_element('id', 'conn').text!r}; "
                             f"{log_tail(w.proc, w.log)}") from None
    assert chrome.find_elements("css selector", "button.move") == [], "a spectator is never offered a move"
    for link in ("play-again", "decline", "home"):                # no seat: nothing to play again
        assert not chrome.find_element("id", link).is_displayed(), link
    assert chrome.find_element("id", "decide").get_attribute("hidden") is not None
    assert console_errors(chrome) == []
    frames = ws_frames(chrome)
    assert w.stop() == 0 and h.stop(timeout=60) == 0 and last.stop(timeout=60) == 0
    wait_until(lambda: chrome.find_element("id", "conn").text == "the game is over; the watch has ended", 30,
               "the page saying the watch ended (not 'your node has stopped': a spectator has no node)")
    data = game_transcript(tmp_path)
    assert (tmp_path / "watched.caravan").read_bytes() == data
    hello = next(f for f in frames if f["type"] == "hello")
    assert hello["spectator"] is True and hello["seat"] is None
    pictures, sentences, hidden = spectator_story(data, hello["names"])
    boards = [f for f in frames if f["type"] == "board"]
    assert boards and all(b["svg"] in pictures for b in boards), "the page showed a picture no spectator sees"
    lines = [line for f in frames if f["type"] == "event" for line in f["text"].split("\n") if line]
    for f in frames:
        if f["type"] == "history":
            lines += [line for e in f["events"] for line in e["text"].split("\n") if line]
    assert lines and set(lines) <= sentences, "the page narrated something a spectator is not told"
    assert not resolved_handles(frames, set()) & set(hidden), "a card hidden to the end was resolved"
    assert not any(f["type"] == "decide" for f in frames)
    assert verify_bytes(data).ok


def test_a_tampered_message_shows_on_the_page_with_its_signer(tmp_path: Path, chrome):
    data = (ROOT / "specs" / "vectors" / "fixture-2p.caravan").read_bytes()
    genesis_raw, messages = transcript.load(data)
    genesis = G.parse(genesis_raw)
    bad = 4
    fake_node, signer = forging_node(genesis_raw, messages, bad, linger=60)

    async def run() -> None:
        async with trio.open_nursery() as nursery:
            listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
            nursery.start_soon(trio.serve_listeners, fake_node, listeners)
            port = listeners[0].socket.getsockname()[1]
            w = Node(["watch", f"127.0.0.1:{port}", "--client", "web", "--no-browser", "--json", "--priority", "normal"],
                     tmp_path / "watcher", tmp_path / "watcher.log")
            url = await trio.to_thread.run_sync(lambda: w.wait_for("web", timeout=30)["url"])
            await trio.to_thread.run_sync(chrome.get, url)
            text = f"NOT VALID: message #{bad}, signed by seat {genesis.seats.index(signer)} ({fingerprint(signer)})"
            await trio.to_thread.run_sync(lambda: wait_until(lambda: text in _badge(chrome), 30,
                                                               "the bad message on the page"))
            assert "bad" in chrome.find_element("id", "badge").get_attribute("class").split()
            assert text in chrome.find_element("id", "log").text
            await trio.to_thread.run_sync(w.stop)
            nursery.cancel_scope.cancel()

    trio.run(run)
