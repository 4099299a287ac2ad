"""Issue 34 item 1: a home table whose bot node dies while another lives. The home (a real
`caravan app` process) supervises its bots: a killed bot is started again (the table's log
says so) and the game finishes; a bot that keeps failing ends the table with one line naming
it and its own error line, and Continue (once the cause is gone) finishes the game."""

from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path

import trio
from trio_websocket import open_websocket_url

from protocol import message_log
from protocol.verify import verify_bytes
from tests.web.home_fixtures import api, start_home

ROUNDS = 3


def timeout(seconds: float) -> float:
    return seconds * float(os.environ.get("CARAVAN_TEST_TIMEOUT_SCALE") or 1)


def wait_until(predicate, within: float, what: str):
    """Poll `predicate` until it returns something true (that), for `within` seconds."""
    deadline = time.monotonic() + within
    while True:
        value = predicate()
        if value:
            return value
        assert time.monotonic() < deadline, f"timed out after {within:g} s waiting for {what}"
        time.sleep(0.05)


async def _play(url: str, answers: int | None, within: float) -> bool:
    """Answer the table page's decisions (the first move offered): `answers` of them, or until
    the result comes (True)."""
    done = 0
    with trio.fail_after(within):
        async with open_websocket_url(url.replace("http://", "ws://") + "ws") as ws:
            while answers is None or done < answers:
                msg = json.loads(await ws.get_message())
                if msg["type"] == "decide":
                    await ws.send_message(json.dumps({"type": "act", "decision": msg["decision"],
                                                      "action": msg["actions"][0]["id"]}))
                    done += 1
                elif msg["type"] == "result":
                    return True
    return False


def _table(url: str, key: str) -> dict:
    return next(t for t in api(url, "state")["tables"] if t["key"] == key)


def _open_table(url: str) -> dict:
    key = api(url, "host", {"game": "fixture", "seats": ["bot:random", "bot:random"],
                            "options": {"rounds": ROUNDS}})["table"]["key"]
    return wait_until(lambda: (lambda t: t if t["url"] and t["game_id"] and t["state"] == "playing" else None)(
        _table(url, key)), timeout(60), "the table playing")


def _bot_pid(data: Path, bot: int, game_id: str) -> int:
    """The running bot node's process id, from the lock of its game (written when it stored it)."""
    lock = data / "bots" / f"bot{bot}" / "games" / game_id / "lock"

    def alive() -> int | None:
        try:
            pid = int(lock.read_text().strip() or 0)
            os.kill(pid, 0)
            return pid
        except (OSError, ValueError):
            return None
    return wait_until(alive, timeout(60), f"bot {bot} running its game")


def _finished(data: Path, game_id: str) -> None:
    report = verify_bytes((data / "games" / game_id / "transcript.caravan").read_bytes())
    assert report.ok and not report.abandoned_by, report.error


def test_a_killed_bot_is_started_again_and_the_table_finishes(tmp_path: Path):
    home, url = start_home(tmp_path)
    data = tmp_path / "home"
    try:
        table = _open_table(url)
        assert trio.run(_play, table["url"], 1, timeout(60)) is False        # one move of the person's
        os.kill(_bot_pid(data, 2, table["game_id"]), signal.SIGKILL)
        assert trio.run(_play, table["url"], None, timeout(90)), "the game never finished"
        lines = wait_until(lambda: (lambda t: t["lines"] if t["state"] == "over" else None)(
            _table(url, table["key"])), timeout(30), "the table over")
        assert any("bot 2 stopped (killed by SIGKILL); starting it again (1/3)" in line for line in lines), lines
        _finished(data, table["game_id"])
    finally:
        home.proc.kill()
        home.proc.wait(timeout=30)


def test_a_bot_that_keeps_failing_ends_the_table_naming_it_and_continue_finishes(tmp_path: Path):
    home, url = start_home(tmp_path)
    data = tmp_path / "home"
    try:
        table = _open_table(url)
        game_id = table["game_id"]
        assert trio.run(_play, table["url"], 1, timeout(60)) is False
        pid = _bot_pid(data, 2, game_id)
        log = data / "bots" / "bot2" / "games" / game_id / "messages.log"
        with log.open("r+b") as fh:                  # a damaged record with more after it: resume refuses
            fh.seek(len(message_log.MAGIC))          # the first record's length
            fh.write(b"\xff\xff\xff\xff")
        os.kill(pid, signal.SIGKILL)
        ended = wait_until(lambda: (lambda t: t if t["state"] == "failed" else None)(_table(url, table["key"])),
                           timeout(90), "the table ended")
        assert ended["error"].startswith("bot 2 stopped (exit 1: caravan resume: "), ended["error"]
        assert f"messages.log is damaged at offset {len(message_log.MAGIC)}" in ended["error"]  # the bot's own error line
        assert "4 times; the game stops here" in ended["error"]
        assert sum("bot 2 stopped" in line for line in ended["lines"]) == 3, ended["lines"]
        os.rename(log, log.with_name("messages.log.damaged"))      # as its line advises
        again = api(url, "continue", {"game_id": game_id})["table"]
        page = wait_until(lambda: _table(url, again["key"])["url"], timeout(60), "the table page again")
        assert trio.run(_play, page, None, timeout(90)), "the game never finished"
        _finished(data, game_id)
    finally:
        home.proc.kill()
        home.proc.wait(timeout=30)
