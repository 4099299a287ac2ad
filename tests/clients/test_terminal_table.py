"""The terminal client at the table, without a network: what it prints around a prompt."""

from __future__ import annotations

import io
import threading

import trio

from clients.terminal import TerminalClient
from tests.games.pick import some_game
from tests.helpers import timeout, wait_until_async


def _moves(view, legal, kind):
    return [{"text": f"move {a}", "group": "moves", "target": None} for a in legal]


class Keyboard:
    """Lines a person types, each only once the test lets it through."""

    def __init__(self):
        self.lines: list[str] = []
        self.ready = threading.Semaphore(0)

    def type(self, line: str) -> None:
        self.lines.append(line)
        self.ready.release()

    def readline(self) -> str:
        self.ready.acquire(timeout=timeout(20))
        return self.lines.pop(0) if self.lines else ""


def _client(keyboard: Keyboard, time_limit: int = 0) -> tuple[TerminalClient, io.StringIO]:
    out = io.StringIO()
    client = TerminalClient(some_game(players=2), 0, ["Ann", "Bob"], _moves, out=out, readline=keyboard.readline)
    client.time_limit = time_limit
    return client, out


async def _decide(client, keyboard, during):
    async with trio.open_nursery() as nursery:
        result = []

        async def ask():
            result.append(await client(_view(), [10, 20, 30], "act"))
        nursery.start_soon(ask)
        await during()
    return result[0]


def _view():
    return {}


def test_an_event_during_the_prompt_shows_the_prompt_again_and_the_turn_rings(monkeypatch):
    monkeypatch.setattr("clients.render.text", lambda game, view, names: "(the board)")
    keyboard = Keyboard()
    client, out = _client(keyboard)

    async def during():
        await wait_until_async(lambda: "choose 1-3: " in out.getvalue(), 10, "the prompt")
        await client.event({"text": "Bob moved", "seat": 1})
        await wait_until_async(lambda: "choose 1-3: " in out.getvalue().split("Bob moved", 1)[1], 10,
                               "the prompt again below the event")
        keyboard.type("2\n")
    assert trio.run(_decide, client, keyboard, during) == 20
    text = out.getvalue()
    assert "\a" in text                                             # the bell: your turn
    after = text.split("Bob moved", 1)[1]
    assert after.startswith("\n") and "choose 1-3: " in after         # asked again below the event
    assert text.split("  • Bob moved")[0].endswith("choose 1-3: \n")   # not glued to the prompt


def test_the_clock_warns_before_the_others_may_record_you_silent(monkeypatch):
    monkeypatch.setattr("clients.render.text", lambda game, view, names: "(the board)")
    keyboard = Keyboard()
    client, out = _client(keyboard, time_limit=11)

    async def during():
        await wait_until_async(lambda: "10 s left" in out.getvalue(), 10, "the 10-seconds-left warning")
        keyboard.type("1\n")
    assert trio.run(_decide, client, keyboard, during) == 10
    text = out.getvalue()
    assert "11 s before the others may record you as silent" in text
    assert "10 s left" in text and "60 s left" not in text


def test_a_colon_line_is_said_to_the_table_and_the_game_over_line_is_said_once(monkeypatch):
    monkeypatch.setattr("clients.render.text", lambda game, view, names: "(the board)")
    keyboard = Keyboard()
    client, out = _client(keyboard)
    said = []

    class FakeChat:
        listeners: list = []

        async def say(self, text):
            said.append(text)
            for listener in self.listeners:
                listener({"seat": 0, "name": "Ann", "text": text})
    client.attach_chat(FakeChat())

    async def during():
        keyboard.type(":good luck\n")
        await wait_until_async(lambda: "[chat] you: good luck" in out.getvalue(), 10, "the chat line said")
        FakeChat.listeners[0]({"seat": 1, "name": "Bob", "text": "you too"})
        keyboard.type("3\n")
    assert trio.run(_decide, client, keyboard, during) == 30
    assert said == ["good luck"]
    text = out.getvalue()
    assert "[chat] you: good luck" in text and "[chat] Bob: you too" in text
    trio.run(client.result, {"winners": [1], "scores": [3, 7]})
    over = out.getvalue().split("Game over", 1)[1]
    assert ": won by Bob. Scores: Ann 3, Bob 7." in over and "[" not in over


def test_scores_the_narration_gave_are_not_said_again():
    """Sabbat and Nomads narrate "Game over. Final scores: …" themselves: the result line then
    names the winner only (the scores were printed twice)."""
    client, out = _client(Keyboard())
    trio.run(client.event, {"text": "Game over. Final scores: Ann 3 VP, Bob 7 VP."})
    trio.run(client.result, {"winners": [1], "scores": [3, 7]})
    text = out.getvalue()
    assert text.count("3") == 1 and "Game over: won by Bob." in text and "Scores:" not in text


def test_the_hello_says_whether_spectators_read_the_talk():
    for allowed, said in ((True, True), (False, False)):
        client, out = _client(Keyboard())
        trio.run(client.hello, {"title": "Sabbat Magica", "seats": 2, "time_limit": 0, "spectators_read_chat": allowed})
        assert ("spectators read it too" in out.getvalue()) is said, out.getvalue()
