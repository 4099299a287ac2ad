"""`caravan resume ID` exactly as printed (no flag given again: the data dir comes from
XDG_DATA_HOME) continues a paused game of a person and their `--with-bots` bots: the store
remembered how the seat decides, the bots paused with the person and come back with it,
and a pause longer than --time-limit leaves no abandon record."""

from __future__ import annotations

import json
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import trio
from trio_websocket import open_websocket_url

from protocol.verify import verify_bytes
from tests.helpers import communicate, timeout, wait_exit, wait_until
from tests.node.procs import ROOT, env, read_until

LIMIT = 3


def _caravan(args: list[str], home: Path, stdin=subprocess.DEVNULL) -> subprocess.Popen:
    e = env()
    e["XDG_DATA_HOME"] = str(home)
    return subprocess.Popen([sys.executable, "-m", "node", *args], stdin=stdin, stdout=subprocess.PIPE,
                            stderr=(home / "person.log").open("ab"), text=True, env=e, cwd=ROOT)


def _printed_resume(home: Path) -> list[str]:
    """The command the paused node printed, as argv."""
    line = (home / "person.log").read_text().strip().splitlines()[-1]
    match = re.search(r"continue with: (caravan resume [0-9a-f]+)$", line)
    assert match, line
    return match.group(1).split()[1:]


def _after(text: str, mark: str) -> str:
    """What `text` holds after the first `mark` ("" without one)."""
    return text.split(mark, 1)[1] if mark in text else ""


def _bot_log(home: Path) -> str:
    return (home / "caravan" / "bots" / "bot1" / "node.log").read_text()


def _wait_bot_paused(home: Path, within: float = 30.0) -> None:
    deadline = time.monotonic() + timeout(within)
    while "paused" not in _bot_log(home):
        assert time.monotonic() < deadline, _bot_log(home)[-2000:]
        time.sleep(0.1)    # a poll's pause inside a bounded wait


def _check_finished(home: Path, game_id: str) -> None:
    report = verify_bytes((home / "caravan" / "games" / game_id / "transcript.caravan").read_bytes())
    assert report.ok and not report.abandoned_by, report.error


def test_resume_as_printed_continues_a_terminal_game_with_its_bots(tmp_path):
    person = _caravan(["host", "fixture", "--players", "2", "-o", "rounds=6", "--client", "terminal",
                       "--with-bots", "random", "--no-discovery", "--bind", "127.0.0.1",
                       "--time-limit", str(LIMIT), "--json"], tmp_path, stdin=subprocess.PIPE)
    resumed = None
    try:
        game_id = read_until(person, "genesis", timeout=60)["game_id"]
        person.stdin.write("1\n")
        person.stdin.flush()
        wait_until(lambda: "choose 1-" in _after((tmp_path / "person.log").read_text(), "committed"), 30,
                   "the person's first move made and the next prompt shown")    # paused at the next one
        person.send_signal(signal.SIGINT)
        assert wait_exit(person, 30, "the person's node after SIGINT") == 130
        _wait_bot_paused(tmp_path)
        time.sleep(LIMIT * 2)            # stays (CONTRIBUTING): well past the time limit, nobody may abandon
        argv = _printed_resume(tmp_path)
        assert argv == ["resume", game_id[:16]]
        resumed = _caravan(argv, tmp_path, stdin=subprocess.PIPE)
        out, _ = communicate(resumed, 120, "the resumed terminal game", "1\n" * 300)
    finally:
        for p in (person, resumed):
            if p is not None and p.poll() is None:
                p.kill()
    assert resumed.returncode == 0, (tmp_path / "person.log").read_text()[-2000:]
    assert "choose 1-" in out                         # the terminal client again (on stdout without --json)
    _check_finished(tmp_path, game_id)
    assert "abandon" not in _bot_log(tmp_path).lower()


async def _play_page(url: str, answers: int | None) -> bool:
    """Answer the page's decisions (the first offered move) over its WebSocket: `answers` of
    them, or to the end; True when the result arrived."""
    ws_url = url.replace("http://", "ws://") + "ws"
    done = 0
    with trio.fail_after(timeout(120)):
        async with open_websocket_url(ws_url) as ws:
            while answers is None or done < answers:
                msg = json.loads(await ws.get_message())
                if msg["type"] == "decide":
                    await ws.send_message(json.dumps({"type": "act", "decision": msg["decision"],
                                                      "action": msg["actions"][0]["id"]}))
                    done += 1
                elif msg["type"] == "result":
                    return True
    return False


def test_resume_as_printed_continues_a_web_game_on_the_same_page(tmp_path):
    person = _caravan(["host", "fixture", "--players", "2", "-o", "rounds=6", "--client", "web", "--no-browser",
                       "--with-bots", "random", "--no-discovery", "--bind", "127.0.0.1",
                       "--time-limit", str(LIMIT), "--json"], tmp_path)
    resumed = None
    try:
        url = read_until(person, "web", timeout=60)["url"]
        game_id = read_until(person, "genesis", timeout=60)["game_id"]
        trio.run(_play_page, url, 1)
        person.send_signal(signal.SIGTERM)
        assert wait_exit(person, 30, "the person's node after SIGTERM") == 130
        _wait_bot_paused(tmp_path)
        time.sleep(LIMIT * 2)            # stays (CONTRIBUTING): well past the time limit, nobody may abandon
        argv = _printed_resume(tmp_path)
        resumed = _caravan([*argv, "--json"], tmp_path)
        assert read_until(resumed, "web", timeout=60)["url"] == url      # the open page reconnects
        assert trio.run(_play_page, url, None)
        assert wait_exit(resumed, 60, "the resumed web game") == 0
    finally:
        for p in (person, resumed):
            if p is not None and p.poll() is None:
                p.kill()
    _check_finished(tmp_path, game_id)
    assert "abandon" not in _bot_log(tmp_path).lower()


def test_resuming_an_ended_game_says_so_in_one_line(tmp_path):
    person = _caravan(["host", "fixture", "--players", "2", "-o", "rounds=3", "--bot", "random",
                       "--with-bots", "random", "--no-discovery", "--bind", "127.0.0.1", "--json"], tmp_path)
    game_id = read_until(person, "genesis", timeout=60)["game_id"]
    assert wait_exit(person, 120, "the bots-only game") == 0
    again = _caravan(["resume", game_id[:16], "--json"], tmp_path)
    line = read_until(again, "ended", timeout=60)
    assert wait_exit(again, 30, "resume of an ended game") == 0
    assert line["state"] == "finished" and "already ended" in line["text"]


def test_a_resumed_game_whose_port_another_program_took_listens_on_another(tmp_path):
    """Another program took the paused game's port meanwhile (a run of the suite beside this
    one did: `[Errno 98] Address already in use` ended the resume): it listens elsewhere,
    says so, dials its peers itself, and the game finishes."""
    person = _caravan(["host", "fixture", "--players", "2", "-o", "rounds=4", "--bot", "random",
                       "--with-bots", "random", "--bot-delay", "0.2", "--no-discovery", "--bind", "127.0.0.1",
                       "--json"], tmp_path)
    resumed = None
    try:
        game_id = read_until(person, "genesis", timeout=60)["game_id"]
        person.send_signal(signal.SIGINT)
        assert wait_exit(person, 30, "the person's node after SIGINT") == 130
        _wait_bot_paused(tmp_path)
        port = json.loads((tmp_path / "caravan" / "games" / game_id / "peers.json").read_text())["port"]
        with socket.socket() as squatter:
            squatter.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)     # as the node's own listener
            squatter.bind(("127.0.0.1", port))
            squatter.listen()
            resumed = _caravan(["resume", game_id[:16], "--json"], tmp_path)
            warning = read_until(resumed, "warning", timeout=60)["text"]
            assert f"port {port} of the last session is taken" in warning, warning
            assert wait_exit(resumed, 120, "the resumed game") == 0, (tmp_path / "person.log").read_text()[-2000:]
    finally:
        for p in (person, resumed):
            if p is not None and p.poll() is None:
                p.kill()
    _check_finished(tmp_path, game_id)
