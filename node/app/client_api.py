"""The client API: line-delimited JSON between a node and whoever decides for its seat.

Node -> client: {"type": "hello", "game", "title", "seat", "seats", "options", "game_id"};
{"type": "decide", "decision": n, "kind", "view", "actions": [{"id", "action", "text"}]};
{"type": "event", "seat", "text", "event"}; {"type": "error", "message"}; {"type": "result", "result"}.
Client -> node: {"type": "act", "decision": n, "action": id}. An answer that is not one of
the offered ids gets an "error" line and the node waits for another answer. The node
does every commitment, reveal, share and signature itself; clients only decide.
See specs/client-api.md.
"""

from __future__ import annotations

import json
import logging
import secrets
import shlex
import subprocess
from typing import Any, Callable

import trio

from clients.api_json import to_json
from clients.bot import Bot

log = logging.getLogger("caravan.client")

MAX_LINE = 1 << 20


class BotDecider:
    """An in-process bot (clients.bot.Bot) deciding for the seat."""

    def __init__(self, bot: Bot, delay: float = 0.0):
        self.bot = bot
        self.delay = delay
        self.wants_view = bot.wants_view
        """False: the node need not build a view for it (issue #25: a view costs more than a
        random bot's whole decision)."""

    async def __call__(self, view: Any, legal: list[Any], kind: str) -> Any:
        await trio.sleep(self.delay)
        if getattr(self.bot, "thinks", False):       # a search bot: keep the node responsive meanwhile
            return await trio.to_thread.run_sync(self.bot.choose, view, legal)
        return self.bot.choose(view if self.bot.wants_view else None, legal)


class LineChannel:
    """JSON lines over a pair of trio streams."""

    def __init__(self, receive: trio.abc.ReceiveStream, send: trio.abc.SendStream):
        self.receive, self.send_stream = receive, send
        self._buf = bytearray()
        self._lock = trio.Lock()

    async def send(self, obj: dict[str, Any]) -> None:
        data = (json.dumps(obj, separators=(",", ":")) + "\n").encode()
        async with self._lock:
            await self.send_stream.send_all(data)

    async def recv(self) -> dict[str, Any] | None:
        while b"\n" not in self._buf:
            if len(self._buf) > MAX_LINE:
                raise ValueError("client line too long")
            chunk = await self.receive.receive_some(65536)
            if not chunk:
                return None
            self._buf += chunk
        line, _, rest = bytes(self._buf).partition(b"\n")
        self._buf = bytearray(rest)
        try:
            obj = json.loads(line)
        except ValueError:
            return {"type": "invalid", "line": line[:200].decode(errors="replace")}
        return obj if isinstance(obj, dict) else {"type": "invalid", "line": str(obj)[:200]}


Presenter = Callable[[Any, list[Any], str], list[dict[str, Any]]]
"""present(view, legal, kind) -> one {"text", "group", "target"} per legal action."""


def plain_presenter(describe: Callable[[Any], str] | None = None) -> Presenter:
    """Actions as the engine describes them (or as JSON), in one group."""
    text = describe or (lambda action: json.dumps(to_json(action)))
    return lambda view, legal, kind: [{"text": text(a), "group": "moves", "target": None} for a in legal]


class ClientDecider:
    """Asks a client over a LineChannel; re-asks on invalid answers."""

    def __init__(self, channel: LineChannel, present: Presenter | None = None):
        self.channel = channel
        self.present = present or plain_presenter()
        self.counter = 0

    async def _send(self, obj: dict[str, Any]) -> None:
        try:
            await self.channel.send(obj)
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            pass

    async def hello(self, info: dict[str, Any]) -> None:
        await self.channel.send({"type": "hello", **to_json(info)})

    async def event(self, msg: dict[str, Any]) -> None:
        """An event line: {"type": "event", "seat", "text", "event"} (see clients.narrate)."""
        await self._send(to_json(msg))

    async def result(self, result: Any) -> None:
        await self._send({"type": "result", "result": to_json(result)})

    async def __call__(self, view: Any, legal: list[Any], kind: str) -> Any:
        self.counter += 1
        n = self.counter
        actions = [{"id": i, "action": to_json(a), **p} for i, (a, p) in
                   enumerate(zip(legal, self.present(view, legal, kind)))]
        await self.channel.send({"type": "decide", "decision": n, "kind": kind, "view": to_json(view),
                                 "actions": actions})
        while True:
            answer = await self.channel.recv()
            if answer is None:
                raise ConnectionError("the client went away")
            if answer.get("type") != "act" or answer.get("decision") != n:
                await self.channel.send({"type": "error", "message":
                                         f"expected {{\"type\": \"act\", \"decision\": {n}, \"action\": id}}"})
                continue
            choice = answer.get("action")
            if type(choice) is not int or not 0 <= choice < len(legal):
                await self.channel.send({"type": "error", "message":
                                         f"action must be one of the offered ids 0..{len(legal) - 1}"})
                continue
            return legal[choice]


async def spawn_bot(command: str, nursery: trio.Nursery) -> tuple[ClientDecider, trio.Process]:
    """Run `command` as a bot process speaking the client API on its stdin/stdout."""
    process = await nursery.start(lambda task_status: trio.run_process(
        shlex.split(command), stdin=subprocess.PIPE, stdout=subprocess.PIPE, check=False,
        start_new_session=True,           # ^C at the terminal pauses the node; the node stops its bot
        task_status=task_status))
    decider = ClientDecider(LineChannel(process.stdout, process.stdin))
    decider.process = process
    return decider, process


async def stdio_channel() -> LineChannel:
    return LineChannel(trio.lowlevel.FdStream(0), trio.lowlevel.FdStream(1))


class TcpClientPort:
    """`--client tcp:PORT`: a port on 127.0.0.1, opened as soon as the node starts, where the
    deciding program connects and sends the printed token as its first line. Connections
    without the token get an error line and are closed, so no other local program can decide
    for the seat. Connections are answered from the start (before the lobby fills)."""

    def __init__(self, listeners: list[trio.SocketListener], token: str):
        self.listeners, self.token = listeners, token
        self.port = listeners[0].socket.getsockname()[1]
        self._client: LineChannel | None = None
        self._ready = trio.Event()

    @classmethod
    async def open(cls, port: int) -> "TcpClientPort":
        """Listen, and answer connections in a task of the run's own (system) nursery."""
        opened = cls(await trio.open_tcp_listeners(port, host="127.0.0.1"), secrets.token_urlsafe(18))
        trio.lowlevel.spawn_system_task(opened._serve)
        return opened

    async def accept(self) -> LineChannel:
        """The connection that sent the token (waits for it)."""
        await self._ready.wait()
        if self._client is None:
            raise ConnectionError(f"the client port 127.0.0.1:{self.port} closed before a client connected")
        return self._client

    async def _serve(self) -> None:
        try:
            while self._client is None:
                stream = await self.listeners[0].accept()
                channel = LineChannel(stream, stream)
                first = None
                with trio.move_on_after(30):
                    first = await _first_line(channel)
                if first is not None and secrets.compare_digest(first.encode(), self.token.encode()):
                    self._client = channel
                    break
                try:
                    await channel.send({"type": "error", "message": "wrong or missing token: send the token "
                                        "the node printed as the first line"})
                except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                    pass
                await stream.aclose()
        except (OSError, trio.ClosedResourceError) as exc:
            log.warning("the client port stopped: %s", exc)
        finally:
            for listener in self.listeners:
                await listener.aclose()
            self._ready.set()


async def _first_line(channel: LineChannel) -> str | None:
    while b"\n" not in channel._buf:
        if len(channel._buf) > 1024:
            return None
        try:
            chunk = await channel.receive.receive_some(1024)
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            return None
        if not chunk:
            return None
        channel._buf += chunk
    line, _, rest = bytes(channel._buf).partition(b"\n")
    channel._buf = bytearray(rest)
    return line.decode(errors="replace").strip()
