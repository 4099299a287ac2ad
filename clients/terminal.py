"""`--client terminal`: a person plays at this terminal.

Before each decision it shows the board as text (clients.render), what the seat holds,
and the legal moves in words grouped by kind (clients.narrate): first a kind, then an
option, chosen by number. Every event is narrated as it happens (above the prompt, which is
shown again). A decision with one legal move is taken and said, unless `confirm_forced`.
Input that is not a valid number is asked again, with the reason. Your turn rings the
terminal bell; with a time limit, warnings say when the others may soon record you silent.
A line starting with `:` is said to the table (chat).
"""

from __future__ import annotations

import sys
from typing import Any, Callable, TextIO

import trio

from clients import render
from protocol.genesis import duration_text

MENU_LIMIT = 12
"""Up to this many moves are listed at once; more are offered kind by kind."""

TITLES = {"act": "Your move", "commit": "Your secret choice (committed now, revealed later)",
          "return": "The card to put back face down (the others will not see which)"}

Presenter = Callable[[Any, list[Any], str], list[dict[str, Any]]]

WARN_AT = (60, 10)
"""Seconds left before the others may record this seat silent, when a warning is printed."""


def menu(moves: list[dict[str, Any]]) -> tuple[list[str], list[list[int]]]:
    """The lines of a numbered menu and, per number (from 1), the move indexes it stands for:
    one move each when they fit on a screen (with group headings), else one group each."""
    groups: dict[str, list[int]] = {}
    for i, m in enumerate(moves):
        groups.setdefault(m["group"], []).append(i)
    lines: list[str] = []
    choices: list[list[int]] = []
    if len(moves) <= MENU_LIMIT or len(groups) == 1:
        for group, members in groups.items():
            if len(groups) > 1:
                lines.append(f"  {group}:")
            for i in members:
                choices.append([i])
                lines.append(f"  {len(choices):3d}  {moves[i]['text']}")
    else:
        for group, members in groups.items():
            choices.append(members)
            only = f": {moves[members[0]]['text']}" if len(members) == 1 else f"  ({len(members)} options)"
            lines.append(f"  {len(choices):3d}  {group}{only}")
    return lines, choices


def parse_choice(line: str, count: int, allow_back: bool) -> tuple[int | None, str]:
    """(the number chosen, "") or (None, why it is not a choice)."""
    text = line.strip()
    low = 0 if allow_back else 1
    try:
        n = int(text)
    except ValueError:
        return None, f"{text!r} is not a number; type {low}-{count}" + (" (0 goes back)" if allow_back else "")
    if not low <= n <= count:
        return None, f"{n} is not on the list; type {low}-{count}" + (" (0 goes back)" if allow_back else "")
    return n, ""


class TerminalClient:
    """Narration on `out`, decisions read from stdin."""

    def __init__(self, game: str, seat: int, names: list[str], present: Presenter,
                 confirm_forced: bool = False, out: TextIO | None = None,
                 readline: Callable[[], str] | None = None):
        self.game, self.seat, self.names = game, seat, names
        self._scores_told = False
        self.present, self.confirm_forced = present, confirm_forced
        self.out = out or sys.stdout
        self._readline = readline or sys.stdin.readline
        self.time_limit = 0
        self.chat: Any = None
        self._prompt: str | None = None          # shown and waiting for a line

    def say(self, text: str = "") -> None:
        """A line above the prompt: if one is waiting, the line goes on a fresh line and the
        prompt is shown again below it (a person sees what to type)."""
        if self._prompt is not None:
            print(f"\n{text}", file=self.out, flush=True)
            print(self._prompt, end="", file=self.out, flush=True)
        else:
            print(text, file=self.out, flush=True)

    def attach_chat(self, chat: Any) -> None:
        """node/app/chat.py: lines of the table are printed as they come; `:text` says one."""
        self.chat = chat
        chat.listeners.append(self._chat_line)

    def _chat_line(self, line: dict[str, Any]) -> None:
        who = "you" if line["seat"] == self.seat else line["name"]
        self.say(f"  [chat] {who}: {line['text']}")

    async def hello(self, info: dict[str, Any]) -> None:
        name = self.names[self.seat]
        who = f"seat {self.seat}" if name == f"seat {self.seat}" else f"{name}, seat {self.seat}"
        self.time_limit = int(info.get("time_limit") or 0)
        readers = " (spectators read it too)" if info.get("spectators_read_chat") else ""
        self.say(f"{info['title']}: you are {who} of {info['seats']}. Type :text to talk to the table{readers}.")

    async def event(self, msg: dict[str, Any]) -> None:
        for line in msg["text"].splitlines():
            self.say(f"  • {line}")
            self._scores_told = self._scores_told or line.startswith("Game over. Final scores")

    async def result(self, result: Any) -> None:
        if not result:
            return
        who = " and ".join(self.names[w] for w in result.get("winners", []))
        scores = ", ".join(f"{self.names[s]} {v}" for s, v in enumerate(result.get("scores", [])))
        told = scores and not self._scores_told          # a game's narration may have said them already
        self.say(f"\nGame over: won by {who}." + (f" Scores: {scores}." if told else ""))

    async def _ask(self, prompt: str) -> str:
        """One line that is not chat (a `:` line is said to the table and the prompt shown again)."""
        while True:
            print(prompt, end="", file=self.out, flush=True)
            self._prompt = prompt
            try:
                line = await trio.to_thread.run_sync(self._readline, abandon_on_cancel=True)
            finally:
                self._prompt = None
            if not line:
                raise KeyboardInterrupt("end of input: nobody is left to decide for this seat")
            if not line.startswith(":"):
                return line
            await self._talk(line[1:].strip())

    async def _talk(self, text: str) -> None:
        if self.chat is None:
            self.say("  (chat opens when the game starts)")
            return
        try:
            await self.chat.say(text)
        except ValueError as exc:                 # node.chat.ChatError: refused, with the reason
            self.say(f"  chat: {exc}")

    def _limit_text(self) -> str:
        """"300 s" on a live table (as always said); "24 h" on a turn-based one."""
        return duration_text(self.time_limit) if self.time_limit >= 3600 else f"{self.time_limit} s"

    async def _clock(self, started: float) -> None:
        """Warn at WARN_AT seconds left before the others may record this seat silent."""
        for left in WARN_AT:
            if self.time_limit <= left:
                continue
            await trio.sleep_until(started + self.time_limit - left)
            self.say(f"  ⚠ {left} s left: after that the others may record you as silent (time limit "
                     f"{self.time_limit} s)")

    async def __call__(self, view: Any, legal: list[Any], kind: str) -> Any:
        moves = self.present(view, legal, kind)
        title = TITLES.get(kind, kind)
        if len(legal) == 1 and not self.confirm_forced:
            self.say(f"  ({title.lower()}: the only legal move, taken for you: {moves[0]['text']})")
            return legal[0]
        self.say("\a")                            # the terminal bell: your turn
        self.say(render.text(self.game, view, self.names))
        if self.time_limit:
            self.say(f"  (you have {self._limit_text()} before the others may record you as silent)")
        async with trio.open_nursery() as nursery:
            if self.time_limit:
                nursery.start_soon(self._clock, trio.current_time())
            chosen = await self._choose(legal, moves, title)
            nursery.cancel_scope.cancel()
        return chosen

    async def _choose(self, legal: list[Any], moves: list[dict[str, Any]], title: str) -> Any:
        indexes = list(range(len(moves)))
        while True:
            lines, choices = menu([moves[i] for i in indexes])
            back = len(indexes) < len(moves)
            self.say(f"\n{title}:" if not back else f"\n{moves[indexes[0]]['group']}:")
            if back:
                self.say("    0  back")
            for line in lines:
                self.say(line)
            while True:
                n, why = parse_choice(await self._ask(f"choose {0 if back else 1}-{len(choices)}: "),
                                      len(choices), back)
                if n is not None:
                    break
                self.say(f"  {why}")
            if n == 0:
                indexes = list(range(len(moves)))
                continue
            picked = [indexes[i] for i in choices[n - 1]]
            if len(picked) == 1:
                return legal[picked[0]]
            indexes = picked
