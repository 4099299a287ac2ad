"""A player's node serving spectators (specs/node.md "Spectators").

A spectator dials a player's game port and runs the usual handshake with a throwaway key
that holds no seat. It gets the signed genesis, then every logged message in log order,
then each new one as it is logged; it sends nothing. It signs nothing the players need, is
never awaited, never counted for abandon records, and cannot make the node do anything:
the node only reads from its own log, a page at a time, and cuts off a spectator that
sends a frame, falls behind or exceeds the cap. Memory per spectator is two counters (the
messages are the node's own log, never copied into a queue; the table talk, when the host
allowed spectators to read it, is the chat's own bounded lines: node/app/chat.py `Lines.since`).
"""

from __future__ import annotations

import logging
from typing import Any, Callable

import trio

from ..net.frames import Connection, FrameError

log = logging.getLogger("caravan.spectators")

MAX_SPECTATORS = 4
"""Spectators one player's node serves at once; more are refused (they may try another player)."""
SEND_TIMEOUT = 10.0
"""A spectator that does not take a frame within this many seconds is cut off."""
PAGE = 64
"""Messages sent per turn of a spectator's feed before it looks at the game again."""
SPECTATOR_FRAME = 256
"""The largest frame a spectator may send: it must send nothing, so any frame cuts it off."""
LOBBY_WATCHERS_DUE = 20.0
"""How long the node stays after its game for spectators its lobby told the game id that have
not come yet (they dial the game within node/app/watch.py GAME_STARTS_WITHIN of hearing it): a
short game, or a slow machine, must not end the game before they come. It stays no longer
once each came."""

REFUSED_NO = "this table does not allow spectators (its host chose --spectators no)"


class Spectators:
    """The spectators of one GameNode (`allowed` is the host's choice, kept with the game), or
    of a watcher that relays to other spectators (node/app/watch.py): `node` has `genesis_raw`,
    `session.log`, `changed` (an Event replaced at every change), `outcome`, `outcome_text`;
    `names()` gives the players' names (default: the game's peers.json). `chat` (node/app/chat.py
    Lines), once given with `read_chat`, is the table talk passed on to them: only when the
    host allowed it (`--spectators-chat`)."""

    def __init__(self, node: Any, allowed: bool, limit: int = MAX_SPECTATORS,
                 names: Callable[[], Any] | None = None, expected: int = 0):
        self.node, self.allowed, self.limit = node, allowed, limit
        self.names = names or (lambda: node.store.peers().get("names") or {})
        self.sent: dict[int, int] = {}           # spectator number -> messages of the log sent
        self.talk: dict[int, int] = {}           # spectator number -> chat lines counted as sent (Lines.count)
        self.chat: Any = None
        self._waiting: set[trio.CancelScope] = set()
        self.came = 0                            # spectators that dialled in (numbers them)
        self.expected = expected                 # told the game id in the lobby: they will come

    def read_chat(self, chat: Any) -> None:
        """Pass on `chat`'s lines (node/app/chat.py Lines: those it holds, then each new one) to
        every spectator; a new line wakes the feeds."""
        self.chat = chat
        chat.listeners.append(self._woken)
        self._woken(None)

    def _woken(self, line: Any) -> None:
        for scope in list(self._waiting):
            scope.cancel()

    def awaiting(self) -> bool:
        """Has a spectator the lobby told of the game not come yet?"""
        return self.came < self.expected

    def caught_up(self) -> bool:
        """Every spectator has been sent the whole log and the end, and those the lobby told
        of the game came (the node lingers for this)."""
        return not self.sent and not self.awaiting()

    async def serve(self, conn: Connection, address: str) -> None:
        """An authenticated link whose key holds no seat: a spectator, or refused with a reason."""
        why = None
        self.came += 1                           # it came (refused or not): no longer awaited
        if not self.allowed:
            why = REFUSED_NO
        elif len(self.sent) >= self.limit:
            why = f"busy: this player's node already serves {self.limit} spectators; try another player's node"
        if why is not None:
            log.info("spectator at %s refused: %s", address, why)
            with trio.move_on_after(1):
                await conn.send({"t": "refused", "why": why})
            await conn.aclose()
            return
        number = self.came
        self.sent[number] = 0
        conn.max_frame = SPECTATOR_FRAME
        log.info("spectator %d at %s watching (%d of at most %d)", number, address, len(self.sent), self.limit)
        try:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(self._deaf, conn, address, nursery.cancel_scope)
                try:                                  # caught here: a nursery would wrap it in a group
                    await self._feed(conn, number)
                except (trio.BrokenResourceError, trio.ClosedResourceError, OSError, trio.TooSlowError) as exc:
                    why = "it took no frame for %.0f s" % SEND_TIMEOUT if isinstance(exc, trio.TooSlowError) else exc
                    log.info("spectator %d at %s cut off: %s", number, address, why)
                nursery.cancel_scope.cancel()
        finally:
            del self.sent[number]
            self.talk.pop(number, None)
            await conn.aclose()

    async def _deaf(self, conn: Connection, address: str, scope: trio.CancelScope) -> None:
        """A spectator sends nothing: the first frame (or anything over SPECTATOR_FRAME bytes)
        or its leaving ends the link."""
        try:
            frame = await conn.recv()
            if frame is not None:
                log.warning("spectator at %s sent a frame; spectators only listen: cut off", address)
        except (FrameError, trio.BrokenResourceError, trio.ClosedResourceError, OSError) as exc:
            log.warning("spectator at %s cut off: %s", address, exc)
        scope.cancel()

    async def _send(self, conn: Connection, frame: dict) -> None:
        with trio.fail_after(SEND_TIMEOUT):
            await conn.send(frame)

    async def _feed(self, conn: Connection, number: int) -> None:
        node = self.node
        names = self.names()
        await self._send(conn, {"t": "genesis", "g": node.genesis_raw,
                                "names": {str(k): str(v) for k, v in names.items()} if isinstance(names, dict) else {}})
        self.talk[number] = 0
        while True:
            changed = node.changed
            await self._pass_talk(conn, number)
            logged = node.session.log
            ready = getattr(node, "durable_log_len", len(logged))   # a player's node: only what its disk holds
            done = self.sent[number]
            if done < ready:
                for raw in logged[done:min(ready, done + PAGE)]:
                    await self._send(conn, {"t": "msg", "m": raw})
                    self.sent[number] += 1
                await trio.sleep(0)
                continue
            if node.outcome is not None and ready >= len(logged):
                await self._send(conn, end_frame(node))
                return
            if self._talk_left(number):
                await trio.sleep(0)
                continue
            with trio.CancelScope() as waiting:          # a new chat line cancels it (`_woken`)
                self._waiting.add(waiting)
                try:
                    await changed.wait()
                finally:
                    self._waiting.discard(waiting)

    async def _pass_talk(self, conn: Connection, number: int) -> None:
        """The chat lines this spectator has not been sent yet, as they were signed (it checks
        them as the players do); at most PAGE of them before the log's turn."""
        if self.chat is None:
            return
        frames, count = self.chat.since(self.talk[number], PAGE)
        for frame in frames:
            await self._send(conn, frame)
        self.talk[number] = count

    def _talk_left(self, number: int) -> bool:
        """Lines not sent yet (said while this feed was sending): look again before waiting."""
        return self.chat is not None and self.chat.count > self.talk[number]


def end_frame(node: Any) -> dict:
    """The `end` frame; for an abandoned game also its record (`record`) and the frames it
    covers beyond the log's first `logged` messages (`pending`: contributions of the step it
    stalled in), so that the spectator ends with the players' transcript and checks it."""
    frame = {"t": "end", "outcome": node.outcome, "text": node.outcome_text}
    record = getattr(node, "abandon_record", None)
    if node.outcome == "abandoned" and record is not None:
        covered, logged = node.record_frames, node.session.log
        m = 0
        while m < min(len(covered), len(logged)) and covered[m] == logged[m]:
            m += 1
        frame.update(record=record, logged=m, pending=list(covered[m:]))
    return frame
