"""The table page in the tab (issue 32): the desktop table page (clients/web/app.js), fed by
this worker instead of a node's WebSocket. `PageTable` is the seat's decider and its page's
voice: the lines are clients/table_lines.py's, the desktop page server's very ones (hello,
history, board, decide, decided, event, result, result_files: the transcript, its verdict and
its replay page); they are pushed to the page as the seat
advances (worker.js's `{page: text}` messages), and the page answers through the ops below.

Every line is built from this seat's own view (its narration Table with its own knowledge,
the decision's view): nothing in them holds another seat's hidden value.

The table talk is the seat's (TabSeat.chat, TabSeat.say): its lines go to the page as they
come ("chat"), a (re)opened page gets them all ("chat_history"), and the page's
{"type": "chat", "text"} is signed and sent to every seat, answered "chat_said" or
"chat_refused" with the reason, as the desktop page server answers (node/pages/web.py).

Ops (JSON-able dicts out): "table_open" (the page's socket opened: the lines a fresh page
needs, `lines`), "table_act" (a line the page sent, JSON bytes: {"type": "act", "decision",
"action"} or {"type": "chat", "text"}; an answer that is not an offered id gets an "error"
line, as the client API's)."""

from __future__ import annotations

import asyncio
import base64
import json
import logging
import time
from typing import Any, Callable

from clients import narrate, table_lines
from protocol import engine as E, games
from protocol.seat.chat import ChatError

log = logging.getLogger("caravan.tab.table")

Post = Callable[[dict[str, Any]], None]


def post_to_page(msg: dict[str, Any]) -> None:
    """A line to the page, over the worker's message port (worker.js registers `_caravan_page`)."""
    import _caravan_page
    _caravan_page.post(json.dumps(msg, separators=(",", ":")))


class PageTable:
    """The seat's decider through the page, and what a (re)opened page is shown."""

    wants_view = True

    def __init__(self, post: Post = post_to_page, names: list[str] | None = None):
        self.post, self.names = post, names
        self.seat: Any = None                       # the TabSeat, once attached
        self.mine: narrate.Table | None = None
        self.hello: dict[str, Any] | None = None
        self.history: list[dict[str, Any]] = []
        self.board: dict[str, Any] | None = None
        self.pending: dict[str, Any] | None = None
        self.result: dict[str, Any] | None = None
        self.counter = 0
        self._legal: list[Any] = []
        self._answer: asyncio.Future | None = None
        self._drawing = False
        self._since: float | None = None

    # ------------------------------------------------------------------ the seat
    def attach(self, seat: Any, run: asyncio.Future) -> None:
        """Follow `seat` (a TabSeat not yet running; `run` its task): hello, then its events."""
        g = seat.genesis
        engine, n = games.get(g.game), len(g.seats)
        self.names = [(self.names[s] if self.names and s < len(self.names) else "") or f"seat {s}" for s in range(n)]
        self.seat = seat
        self.mine = narrate.Table(engine, g.options, n, seat.seat, self.names)
        self.hello = table_lines.hello({"game": g.game, "title": engine.title, "seat": seat.seat, "seats": n,
                                        "names": self.names, "options": g.options, "game_id": g.game_id.hex(),
                                        "time_limit": g.time_limit, "pace": g.pace, "spectators_read_chat": False})
        self._send(self.hello)
        seat.chat.names[:] = self.names
        seat.chat.listeners.append(self._send)
        seat.on_events = self.on_events
        run.add_done_callback(lambda _: self.finish())
        self._draw()

    def on_events(self, events: list[Any]) -> None:
        """A message applied: each event in words for this seat, then (soon) a new picture."""
        if self.mine is None:
            return
        knowledge = self.seat.player.knowledge
        for event in events:
            try:
                info, lines = self.mine.apply(event, knowledge)
            except E.IllegalAction:                 # the mirror missed an event: take the replica's state
                log.warning("narration resynchronised with the game state at %r", event)
                self.mine.resync(self.mine.engine.clone(self.seat.session.state), knowledge)
                info, lines = narrate.event_dict(event), []
            msg = table_lines.event(info, lines)
            self.history.append(msg)
            self._send(msg)
        if events:
            self._since = time.time()
        self._redraw_soon()

    def _redraw_soon(self) -> None:
        """One picture for a burst of messages (a picture costs more than a message)."""
        if not self._drawing:
            self._drawing = True
            asyncio.get_running_loop().call_soon(self._draw)

    def _draw(self, status: str | None = None, view: Any = None) -> None:
        self._drawing = False
        if self.mine is None:
            return
        self.mine.refresh(self.seat.player.knowledge)
        state = table_lines.table_state(self.seat.session)
        table = {"waiting": state["waiting"], "chosen": state["chosen"], "since": self._since}
        words = status or table_lines.waiting_text(self.names, self.seat.seat, state)
        self.board = table_lines.board(self.seat.genesis.game, self.mine.view if view is None else view, self.names,
                                       words, self._since, table)
        self._send(self.board)

    def finish(self) -> None:
        """The seat's run ended: its result (None unless the game is complete) and the last picture."""
        if self.seat is None or self.result is not None:
            return
        outcome = self.seat.outcome
        complete = outcome is not None and outcome.kind == "complete"
        extra = {} if complete else {"ended": outcome.text if outcome is not None else "stopped"}
        self._draw()
        self.result = table_lines.result(self.seat.session.result() if complete else None, extra)
        self._send(self.result)
        asyncio.get_running_loop().call_soon(self._files)

    def _files(self) -> None:
        """The game-over box's transcript and its verdict, then its replay page (as the desktop
        page gets them: each as soon as it is ready), after the result itself."""
        from clients import replay
        from protocol.verify import verify_bytes

        data = self.seat.transcript()
        report = verify_bytes(data)
        kind, text = replay.badge(report)
        self._add_files({"transcript": base64.b64encode(data).decode(), "verify": {"kind": kind, "text": text}})
        try:
            title = games.get(self.seat.genesis.game).title
            self._add_files({"replay": replay.html(report, replay.frames(data, report), title)})
        except Exception as exc:              # noqa: BLE001 - a replay bug must not hide the result
            log.warning("could not draw the replay: %s", exc)

    def _add_files(self, files: dict[str, Any]) -> None:
        self.result = {**(self.result or table_lines.result(None)), **files}
        self._send({"type": "result_files", **files})

    # ------------------------------------------------------------------ the decider
    async def __call__(self, view: Any, legal: list[Any], kind: str) -> Any:
        """Offer the decision to the page and wait for an offered id."""
        self.counter += 1
        offered = table_lines.actions(self.seat.genesis.game, view, legal, kind, self.seat.seat)
        self._draw("your decision", view)
        self.pending = table_lines.decide(self.counter, kind, view, offered)
        self._legal = legal
        self._answer = asyncio.get_running_loop().create_future()
        self._send(self.pending)
        try:
            choice = await self._answer
        finally:
            decided, self.pending, self._answer = self.counter, None, None
            self._send({"type": "decided", "decision": decided})
        return legal[choice]

    async def say(self, msg: dict[str, Any]) -> dict[str, Any]:
        """The page's {"type": "chat", "text"}: signed and sent to every seat. The page is
        answered either way, so that it clears its box only for a line that was said."""
        typed = msg.get("text")
        if self.seat is None:
            return {"type": "chat_refused", "text": typed, "message": "chat opens when the game starts"}
        try:
            line = await self.seat.say(typed)
        except ChatError as exc:
            return {"type": "chat_refused", "text": typed, "message": str(exc)}
        return {"type": "chat_said", "text": typed, "said": line["text"]}

    def take(self, msg: Any) -> list[dict[str, Any]]:
        """A move from the page: [] when taken, else the lines that answer it (an error)."""
        pending = self.pending
        refused = table_lines.act_error(msg, None if pending is None else pending["decision"], len(self._legal))
        if refused is None and (self._answer is None or self._answer.done()):
            refused = "that decision was already answered"
        if refused is not None:
            return [table_lines.error(refused)]
        self._answer.set_result(msg["action"])
        return []

    def snapshot(self) -> list[dict[str, Any]]:
        """What a page that opens now needs, in order."""
        lines = [m for m in (self.hello,) if m]
        lines.append({"type": "history", "events": list(self.history)})
        if self.seat is not None:
            lines.append({"type": "chat_history", "lines": list(self.seat.chat.lines)})
        return lines + [m for m in (self.board, self.pending, self.result) if m]

    def _send(self, msg: dict[str, Any]) -> None:
        try:
            self.post(msg)
        except Exception as exc:              # noqa: BLE001 - a page gone must not stop the seat
            log.warning("the table page did not take a line: %s", exc)


class _Tables:
    current: PageTable | None = None


_tables = _Tables()


def decider(args: dict[str, Any]) -> PageTable:
    """seat_start/seat_relay's {"decider": "page", "names"?}: this worker's table page decides."""
    names = args.get("names")
    if names is not None and not (isinstance(names, list) and all(isinstance(n, str) for n in names)):
        raise ValueError("names must be a list of strings, one per seat")
    _tables.current = PageTable(names=names)
    return _tables.current


async def table_open(_: bytes | None) -> dict[str, Any]:
    """The page's socket opened: every line so far (none before a seat starts)."""
    table = _tables.current
    return {"lines": [] if table is None else table.snapshot()}


async def table_act(data: bytes | None) -> dict[str, Any]:
    """A line the page sent (JSON bytes): the lines that answer it ([] when taken)."""
    try:
        msg = json.loads(data or b"")
    except ValueError:
        return {"lines": [table_lines.error("not JSON")]}
    table = _tables.current
    if table is None:
        return {"lines": [table_lines.error("no game at this table yet")]}
    if isinstance(msg, dict) and msg.get("type") == "chat":
        return {"lines": [await table.say(msg)]}
    return {"lines": table.take(msg)}


OPS = {"table_open": table_open, "table_act": table_act}
