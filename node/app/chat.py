"""Chat at the table: short signed lines between the seats of one game.

A line is signed with the sender's game key and sent over the game's existing links (LAN or
broker) as a `chat` frame beside the game frames. It is kept in the game folder
(`chat.jsonl`, beside the transcript) and never enters the verified transcript: talk is not
a move, a game's record must not change with what players said, and a player may delete
the talk without touching the proof (specs/node.md "Chat"). Limits keep memory and disk
bounded whatever a peer sends: MAX_TEXT characters a line, RATE_LINES lines per RATE_WINDOW
seconds per seat (of the lines' own signed times: one rule, which the sender and every
receiver apply to the same numbers), the last KEEP lines in memory and about MAX_FILE bytes
on disk (the newest lines). A table whose host allowed it (`--spectators-chat`) also shows
its talk to spectators: each player's node passes on the signed lines it holds, and the
spectator checks them with the same `Lines` code (specs/node.md "Spectators").

The rules themselves (signing, checking, the rate rule, the kept records) are
protocol/seat/chat.py's, shared with the browser tab; this module is the desktop's shell:
the wall clock, the window of $CARAVAN_CHAT_WINDOW, the log, the async `say`, chat.jsonl.
"""

from __future__ import annotations

import logging
import os
import time
from pathlib import Path
from typing import Any, Awaitable, Callable

from protocol import wire  # noqa: F401 - the chat tests build lines with C.wire
from protocol.identity import SigningKey
from protocol.seat.chat import (AHEAD, DOMAIN, KEEP, MAX_BODY, MAX_TEXT, RATE_LINES, RATE_WINDOW,  # noqa: F401
                                ChatError, RateLimit, Repeated, clean, newest_lines)
from protocol.seat import chat as core

from ..storage.files import NOFOLLOW, open_append, read_all, write_all, write_atomic

log = logging.getLogger("caravan.chat")

MAX_FILE = core.MAX_FILE
"""Bytes of chat.jsonl (protocol/seat/chat.py); a test may lower it here."""
WINDOW_ENV = "CARAVAN_CHAT_WINDOW"
"""Seconds of the rate window instead of RATE_WINDOW: for the tests only, so that a test of
real nodes in a browser need not wait out 10 s windows (node/app/chat.py's own tests check the
default)."""
FILE = "chat.jsonl"


def rate_window() -> float:
    """RATE_WINDOW, or a positive number of seconds in $CARAVAN_CHAT_WINDOW (anything else there
    is ignored)."""
    try:
        window = float(os.environ.get(WINDOW_ENV, ""))
    except ValueError:
        return RATE_WINDOW
    return window if 0 < window < float("inf") else RATE_WINDOW


class Lines(core.Lines):
    """One game's signed lines as a reader checks and keeps them (protocol/seat/chat.py, on this
    node's clock and rate window): a seat's Chat, and as such a spectator's reader
    (node/app/watch.py), which checks each line exactly as the players do."""

    def __init__(self, game_id: bytes, seats: list[bytes], names: list[str], clock: Callable[[], float] = time.time,
                 key: SigningKey | None = None):
        super().__init__(game_id, seats, names, clock, rate_window(), key)
        self.send: Callable[[dict[str, Any]], Awaitable[None]] | None = None
        """Sends a frame to every linked peer (set by the game node)."""

    async def say(self, text: Any) -> dict[str, Any]:
        """Sign, keep and send one line typed at this seat; ChatError when it is refused (a
        reader holds no seat, so it signs nothing: spectators read the table talk only)."""
        line, frame = self.sign(text)
        if self.send is not None:
            await self.send(frame)
        return line


class Chat(Lines):
    """One game's chat on this node: signs this seat's lines, checks and keeps the others'."""

    def __init__(self, game_dir: Path, key: SigningKey, game_id: bytes, seats: list[bytes], names: list[str],
                 clock: Callable[[], float] = time.time):
        super().__init__(game_id, seats, names, clock, key)
        self.path = game_dir / FILE
        self._load()

    def _refused(self, link_seat: int, error: ChatError) -> None:
        log.warning("seat %d: chat line from the link of seat %d refused: %s (%d refused so far)",
                    self.seat, link_seat, error, self.refused)

    # ------------------------------------------------------------------ keeping
    def _keep(self, record: dict[str, Any]) -> None:
        """Append one line to chat.jsonl (never through a link planted there: node/storage/files.py);
        past MAX_FILE, rewrite it with its newest lines."""
        data = core.record_line(record)
        try:
            fd = open_append(self.path, 0o644)
            try:
                if os.fstat(fd).st_size + len(data) <= MAX_FILE:
                    write_all(fd, data)
                    return
                old = read_all(fd)
            finally:
                os.close(fd)
            write_atomic(self.path, newest_lines(old + data, MAX_FILE // 2), 0o644)
        except OSError as exc:
            log.warning("seat %d: could not keep a chat line in %s: %s", self.seat, self.path,
                        exc.strerror or exc)

    def _load(self) -> None:
        """The last KEEP lines of an earlier session (a resumed node, a reloaded page)."""
        try:
            fd = os.open(self.path, os.O_RDONLY | NOFOLLOW)
            try:
                data = read_all(fd)
            finally:
                os.close(fd)
        except OSError:
            return
        self.load(data)
