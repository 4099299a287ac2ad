"""`--client web`: this node serves one page to its own player on 127.0.0.1.

The page is just another client of the client API (specs/client-api.md): its WebSocket
carries the same JSON lines (hello, decide, event, error, result, act) plus `board` (the
seat's picture as SVG, with a status line) and `history` (every event so far, so a reload
or a node restart loses nothing). Every URL starts with a random per-game token; anything
else gets 403. Hypercorn serves the Starlette app on trio, in the node's own event loop.
"""

from __future__ import annotations

import base64

import json
import logging
import os
import secrets
from functools import partial
from html import escape
from pathlib import Path
from typing import Any, Callable

import trio
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, PlainTextResponse, Response
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from clients import render, table_lines
from clients.api_json import to_json
from clients.table_lines import games_js  # noqa: F401 - served as the page's games.js

from ..storage.files import write_atomic
from .web_guard import LocalOnly

log = logging.getLogger("caravan.web")

STATIC = Path(__file__).resolve().parents[2] / "clients" / "web"
QUEUE = 256
"""Messages buffered per page; a page that falls this far behind is disconnected (it reconnects
and gets the whole state again)."""


class WebClient:
    """Decides for the seat through the page; keeps what a (re)connecting page needs."""

    def __init__(self, token: str | None = None):
        self.token = token or secrets.token_urlsafe(18)
        self.hello_msg: dict[str, Any] | None = None
        self.history: list[dict[str, Any]] = []
        self.board: dict[str, Any] | None = None
        self.pending: dict[str, Any] | None = None
        self.result_msg: dict[str, Any] | None = None
        self.counter = 0
        self._legal: list[Any] = []
        self._answer: trio.MemorySendChannel | None = None
        self._pages: set[trio.MemorySendChannel] = set()
        self._alone_since: float | None = None   # trio clock: when the last page went away
        self.seen_result = trio.Event()
        self.seen_files = trio.Event()
        self.when_asked_alone: Callable[[], None] | None = None
        """Called when a decision is offered and no page is open (the home in the background:
        a desktop notification)."""
        self.notes: list[str] = []
        self.after_game: dict[str, str] = {}
        """Links for the game-over box (the home's: back home, Play again)."""
        self.url = ""
        self.chat: Any = None                    # node/app/chat.py Chat, once the game runs
        self.app = Starlette(routes=[
            Route("/{token}/", self._index),
            Route("/{token}/static/{name}", self._static),
            WebSocketRoute("/{token}/ws", self._socket),
            Route("/{path:path}", self._refuse),
        ])
        self.app = LocalOnly(self.app)             # Host and Origin: this machine's browser only

    # ------------------------------------------------------------------ serving
    async def serve(self, port: int = 0, task_status=trio.TASK_STATUS_IGNORED) -> None:
        """Serve on 127.0.0.1:port until cancelled; task_status gets the page's URL."""
        from hypercorn.config import Config
        from hypercorn.trio import serve

        config = Config()
        config.bind = [f"127.0.0.1:{port}"]
        config.accesslog = None
        config.errorlog = None
        config.graceful_timeout = 0.5

        async with trio.open_nursery() as nursery:
            binds = await nursery.start(partial(serve, self.app, config))
            task_status.started(f"{binds[0].rstrip('/')}/{self.token}/")

    def _authorised(self, token: str) -> bool:
        return secrets.compare_digest(token.encode(), self.token.encode())

    async def _refuse(self, request: Request) -> Response:
        return PlainTextResponse("forbidden: this page needs the link the node printed\n", 403)

    async def _index(self, request: Request) -> Response:
        if not self._authorised(request.path_params["token"]):
            return await self._refuse(request)
        return FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-store"})

    async def _static(self, request: Request) -> Response:
        name = request.path_params["name"]
        if not self._authorised(request.path_params["token"]) or name not in (*_STATIC_FILES, "games.js"):
            return await self._refuse(request)
        if name == "games.js":
            return Response(games_js(), media_type="text/javascript", headers={"Cache-Control": "no-store"})
        return FileResponse(STATIC / name, media_type=_STATIC_FILES[name], headers={"Cache-Control": "no-store"})

    async def _socket(self, ws: WebSocket) -> None:
        if not self._authorised(ws.path_params["token"]):
            await ws.close(code=4403)
            return
        await ws.accept()
        send, receive = trio.open_memory_channel[dict](QUEUE)
        for msg in self._snapshot():
            send.send_nowait(msg)
        self._pages.add(send)
        self._alone_since = None
        try:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(self._pump, ws, receive, nursery.cancel_scope)
                while True:
                    try:
                        text = await ws.receive_text()
                    except (WebSocketDisconnect, RuntimeError, KeyError):
                        break
                    reply = await self._on_chat(text) if _is_chat(text) else self._on_message(text)
                    if reply is not None:
                        await _put(send, reply)
                nursery.cancel_scope.cancel()
        finally:
            self._pages.discard(send)
            self._note_alone()

    async def _pump(self, ws: WebSocket, receive: trio.MemoryReceiveChannel, scope: trio.CancelScope) -> None:
        try:
            async for msg in receive:
                await ws.send_text(json.dumps(msg, separators=(",", ":")))
                if msg["type"] == "result":
                    self.seen_result.set()          # the node may stop now: the player has it
                elif msg["type"] == "result_files":
                    self.seen_files.set()
        except (WebSocketDisconnect, RuntimeError, OSError, trio.BrokenResourceError):
            pass
        scope.cancel()

    def _snapshot(self) -> list[dict[str, Any]]:
        out = [m for m in (self.hello_msg,) if m]
        out.append({"type": "history", "events": list(self.history)})
        if self.chat is not None:
            out.append({"type": "chat_history", "lines": list(self.chat.lines)})
        out += [m for m in (self.board, self.pending, self.result_msg) if m]
        return out

    def broadcast(self, msg: dict[str, Any]) -> None:
        for page in list(self._pages):
            try:
                page.send_nowait(msg)
            except trio.WouldBlock:
                page.close()                      # too far behind: it reconnects for a snapshot
                self._pages.discard(page)
                self._note_alone()
            except trio.ClosedResourceError:
                self._pages.discard(page)
                self._note_alone()

    def _note_alone(self) -> None:
        if not self._pages and self._alone_since is None:
            self._alone_since = trio.current_time()

    @property
    def pages(self) -> int:
        """How many pages are connected now."""
        return len(self._pages)

    async def wait_result_seen(self, patience: float, alone: float) -> bool:
        """Wait until a page has been sent the result: for at most `patience` s, and no longer
        once no page has been connected for `alone` s. A page that fell QUEUE messages behind
        (a busy machine) is dropped and reconnects a moment later for the whole state, the
        result with it: a node that stopped in that moment left it without an end."""
        start = trio.current_time()
        with trio.move_on_after(patience):
            while not self.seen_result.is_set():
                since = max(start, self._alone_since or start)
                if not self._pages and trio.current_time() - since >= alone:
                    break
                with trio.move_on_after(0.1):
                    await self.seen_result.wait()
        return self.seen_result.is_set()

    async def _on_chat(self, text: str) -> dict[str, Any]:
        """{"type": "chat", "text": ...} from the page: signed and sent to every seat. The page
        is answered either way, so that it clears its box only for a line that was said
        (`chat_said`) and keeps the text of one that was refused, saying why (`chat_refused`)."""
        from ..app.chat import ChatError

        typed = json.loads(text).get("text")
        if self.chat is None:
            return {"type": "chat_refused", "text": typed, "message": "chat opens when the game starts"}
        try:
            line = await self.chat.say(typed)
        except ChatError as exc:
            return {"type": "chat_refused", "text": typed, "message": str(exc)}
        return {"type": "chat_said", "text": typed, "said": line.get("text")}

    def attach_chat(self, chat: Any) -> None:
        self.chat = chat
        chat.listeners.append(self.broadcast)
        self.broadcast({"type": "chat_history", "lines": list(chat.lines)})

    def _on_message(self, text: str) -> dict[str, Any] | None:
        """A page's message; returns an error reply, or None when it was taken."""
        try:
            msg = json.loads(text)
        except ValueError:
            return {"type": "error", "message": "not JSON"}
        pending = self.pending
        refused = table_lines.act_error(msg, None if pending is None else pending["decision"], len(self._legal))
        if refused is not None:
            return table_lines.error(refused)
        choice = msg["action"]
        if self._answer is not None:
            try:
                self._answer.send_nowait(choice)
            except (trio.WouldBlock, trio.ClosedResourceError):
                return {"type": "error", "message": "that decision was already answered"}
        return None

    # ------------------------------------------------------------------ the decider
    async def hello(self, info: dict[str, Any]) -> None:
        self.hello_msg = table_lines.hello(info)
        self.broadcast(self.hello_msg)

    def note(self, text: str) -> None:
        """Before the game: the lobby's lines (who joined, what the game waits for) on the page."""
        self.notes = (self.notes + [text])[-12:]
        items = "".join(f"<li>{escape(line)}</li>" for line in self.notes)
        self.show_board(f'<div class="lobby"><h2>Lobby</h2><ul>{items}</ul></div>', text)

    def show_board(self, svg: str, status: str, applied_at: float | None = None,
                   table: dict[str, Any] | None = None) -> None:
        """The seat's picture; `applied_at` (Unix time of the event it shows) lets the page
        measure the delay from the node to the screen (bench_web); `table` says whom the game
        waits for (`waiting`), who has made the secret choice it waits on (`chosen`) and since
        when (`since`, Unix time) — the page's clock."""
        self.board = table_lines.board_svg(svg, status, applied_at, table)
        self.broadcast(self.board)

    def event(self, msg: dict[str, Any]) -> None:
        """An event line of the client API ({"type": "event", "seat", "text", "event"})."""
        self.history.append(msg)
        self.broadcast(msg)

    async def result(self, result: Any) -> None:
        self.result_msg = table_lines.result(result, self.after_game)
        self.broadcast(self.result_msg)

    def result_files(self, files: dict[str, Any]) -> None:
        """The game-over panel's transcript, verdict and replay page (after the result itself)."""
        self.result_msg = {**(self.result_msg or {"type": "result", "result": None}), **files}
        self.broadcast({"type": "result_files", **files})

    async def ask(self, decide: dict[str, Any], legal: list[Any]) -> Any:
        """Offer a `decide` message and wait for a page to answer it."""
        self.counter += 1
        decide = {**decide, "decision": self.counter}
        send, receive = trio.open_memory_channel[int](1)
        self.pending, self._legal, self._answer = decide, legal, send
        self.broadcast(decide)
        if not self._pages and self.when_asked_alone is not None:
            self.when_asked_alone()
        try:
            choice = await receive.receive()
        finally:
            self.pending, self._answer = None, None
            self.broadcast({"type": "decided", "decision": decide["decision"]})
        return legal[choice]


def _is_chat(text: str) -> bool:
    try:
        msg = json.loads(text)
    except ValueError:
        return False
    return isinstance(msg, dict) and msg.get("type") == "chat"


_STATIC_FILES = {"app.js": "text/javascript", "style.css": "text/css", "index.html": "text/html"}


async def _put(channel: trio.MemorySendChannel, msg: dict[str, Any]) -> None:
    try:
        channel.send_nowait(msg)
    except (trio.WouldBlock, trio.ClosedResourceError):
        pass


class WebDecider:
    """The seat's decider and event sink for the runner: narration goes to the page's log, each
    new view is drawn as SVG, and decisions are offered with their moves grouped and placed."""

    wants_history = True

    def __init__(self, client: WebClient, game: str, names: list[str], present, transcript: Path | None = None):
        self.client, self.game, self.names, self.present = client, game, names, present
        self.transcript = transcript
        self.seen_result = client.seen_result
        self._table: dict[str, Any] = {}

    async def hello(self, info: dict[str, Any]) -> None:
        await self.client.hello(info)

    async def event(self, msg: dict[str, Any]) -> None:
        self.client.event(to_json(msg))

    def show(self, view: dict[str, Any], status: str, applied_at: float | None = None,
             table: dict[str, Any] | None = None) -> None:
        if table is not None:
            self._table = table
        self.client.show_board(render.svg(self.game, view, self.names), status, applied_at, self._table)

    def attach_chat(self, chat: Any) -> None:
        self.client.attach_chat(chat)

    async def result(self, result: Any) -> None:
        """The result at once; then the transcript (its link and where it is kept: reading it
        takes no time), its verdict (however long it takes within the node's RESULT_GRACE: the
        badge is never left out on a busy machine) and its replay page (within FILES_TIME),
        each sent as soon as it is ready, so that a slow step never hides the ones before it."""
        await self.client.result(result)
        if self.transcript is None:
            return
        data = await trio.to_thread.run_sync(_read_transcript, self.transcript, abandon_on_cancel=True)
        if data is None:
            return
        self.client.result_files({"transcript_path": str(self.transcript),
                                  "transcript": base64.b64encode(data).decode()})
        report = await trio.to_thread.run_sync(_verdict, data, abandon_on_cancel=True)
        kind, text = _badge(report)
        self.client.result_files({"verify": {"kind": kind, "text": text}})
        with trio.move_on_after(FILES_TIME):
            page = await trio.to_thread.run_sync(replay_page, data, report, abandon_on_cancel=True)
            if page:
                self.client.result_files({"replay": page})
        self.client.seen_files = trio.Event()
        self.client.result_files({})                    # the last: once a page has it, it has them all
        with trio.move_on_after(FILES_TIME):
            await self.client.seen_files.wait()         # on its way to the page before the node stops

    async def __call__(self, view: Any, legal: list[Any], kind: str) -> Any:
        offered = table_lines.offered(legal, self.present(view, legal, kind))
        self.show(view, "your decision")
        return await self.client.ask(table_lines.decide(0, kind, view, offered), legal)


FILES_TIME = float(os.environ.get("CARAVAN_FILES_TIME") or 2.0)
"""Seconds the game-over panel waits for the replay page, then as long for the page to take
the files (the node's RESULT_GRACE bounds the whole). CARAVAN_FILES_TIME: for the tests only
(a machine too busy to draw the replay in time)."""


def _read_transcript(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except OSError as exc:
        log.warning("could not read the transcript %s: %s", path, exc.strerror or exc)
        return None


def _verdict(data: bytes) -> Any:
    from protocol.verify import verify_bytes
    return verify_bytes(data)


def _badge(report: Any) -> tuple[str, str]:
    from clients import replay
    return replay.badge(report)


def game_files(path: Path) -> dict[str, Any]:
    """What the game-over panel shows: the transcript (base64) and its verification badge
    (plus the data and report, for replay_page). Empty when the transcript is unreadable."""
    import base64

    from clients import replay
    from protocol.verify import verify_bytes

    try:
        data = path.read_bytes()
    except OSError as exc:
        log.warning("could not read the transcript %s: %s", path, exc.strerror or exc)
        return {}
    report = verify_bytes(data)
    kind, text = replay.badge(report)
    return {"verify": {"kind": kind, "text": text}, "transcript_path": str(path),
            "transcript": base64.b64encode(data).decode(), "data": data, "report": report}


def replay_page(data: bytes, report: Any) -> str | None:
    """The self-contained replay page of the transcript (clients/replay.py), or None."""
    from clients import replay
    from protocol import games

    try:
        title = games.get(report.game).title if report.game else "Caravan"
        return replay.html(report, replay.frames(data, report), title)
    except Exception as exc:              # noqa: BLE001 - a replay bug must not hide the result
        log.warning("could not draw the replay: %s", exc)
        return None


def load_settings(game_dir: Path) -> dict[str, Any]:
    """The port and token a game's page was served with (so a resumed node serves the same URL)."""
    try:
        data = json.loads((game_dir / WEB_FILE).read_text())
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}


def save_settings(game_dir: Path, settings: dict[str, Any]) -> None:
    write_atomic(game_dir / WEB_FILE, json.dumps(settings).encode())      # 0600: the token is a secret


WEB_FILE = "web.json"
