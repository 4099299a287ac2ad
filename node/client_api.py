"""The client API: line-delimited JSON between a node and whoever decides for its seat.

Node -> client: {"type": "hello", "game", "title", "seat", "seats", "options", "game_id"};
{"type": "decide", "decision": n, "kind", "view", "actions": [{"id", "action", "text"}]};
{"type": "event", "text", "event"}; {"type": "error", "message"}; {"type": "result", "result"}.
Client -> node: {"type": "act", "decision": n, "action": id}. An answer that is not one of
the offered ids gets an "error" line and the node waits for another answer. The node
does every commitment, reveal, share and signature itself; clients only decide.
See specs/client-api.md.
"""

from __future__ import annotations

import json
import logging
import shlex
import subprocess
import sys
from typing import Any

import trio

from clients.bot import Bot

log = logging.getLogger("caravan.client")

MAX_LINE = 1 << 20


def to_json(value: Any) -> Any:
    """Actions and views hold bytes and tuples; JSON gets hex strings and lists."""
    if isinstance(value, (bytes, bytearray)):
        return value.hex()
    if isinstance(value, (list, tuple)):
        return [to_json(v) for v in value]
    if isinstance(value, dict):
        return {str(k): to_json(v) for k, v in value.items()}
    return value


class BotDecider:
    """An in-process bot (clients.bot.Bot) deciding for the seat."""

    def __init__(self, bot: Bot, delay: float = 0.0):
        self.bot = bot
        self.delay = delay

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


class ClientDecider:
    """Asks a client over a LineChannel; re-asks on invalid answers."""

    def __init__(self, channel: LineChannel, describe=None):
        self.channel = channel
        self.describe = describe or (lambda action: json.dumps(to_json(action)))
        self.counter = 0

    async def hello(self, info: dict[str, Any]) -> None:
        await self.channel.send({"type": "hello", **to_json(info)})

    async def event(self, text: str, event: Any = None) -> None:
        try:
            await self.channel.send({"type": "event", "text": text, "event": to_json(event)})
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            pass

    async def result(self, result: Any) -> None:
        try:
            await self.channel.send({"type": "result", "result": to_json(result)})
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            pass

    async def __call__(self, view: Any, legal: list[Any], kind: str) -> Any:
        self.counter += 1
        n = self.counter
        actions = [{"id": i, "action": to_json(a), "text": self.describe(a)} for i, a in enumerate(legal)]
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
        task_status=task_status))
    channel = LineChannel(process.stdout, process.stdin)
    return ClientDecider(channel), process


async def stdio_channel() -> LineChannel:
    return LineChannel(trio.lowlevel.FdStream(0), trio.lowlevel.FdStream(1))


async def tcp_channel(port: int, on_status=lambda s: None) -> LineChannel:
    """Wait for one client on 127.0.0.1:port (local only)."""
    listeners = await trio.open_tcp_listeners(port, host="127.0.0.1")
    on_status(f"waiting for a client on 127.0.0.1:{listeners[0].socket.getsockname()[1]}")
    stream = await listeners[0].accept()
    for listener in listeners:
        await listener.aclose()
    return LineChannel(stream, stream)


class TerminalDecider:
    """A person at this terminal decides: the view and the numbered legal actions are shown
    on stderr, and the choice is read from stdin."""

    def __init__(self, describe, show_view: bool = True):
        self.describe = describe
        self.show_view = show_view

    async def __call__(self, view: Any, legal: list[Any], kind: str) -> Any:
        out = sys.stderr
        if self.show_view:
            print(json.dumps(to_json(view), indent=1, sort_keys=True), file=out)
        title = {"act": "your move", "commit": "your secret choice (hidden until revealed)",
                 "return": "the card to put back face down (the others will not see which)"}.get(kind, kind)
        print(f"\n{title}:", file=out)
        for i, action in enumerate(legal):
            print(f"  {i:3d}  {self.describe(action)}", file=out)
        while True:
            print(f"choose 0-{len(legal) - 1}: ", end="", file=out, flush=True)
            line = await trio.to_thread.run_sync(sys.stdin.readline, abandon_on_cancel=True)
            if not line:
                raise ConnectionError("stdin closed: nobody is left to decide for this seat")
            try:
                choice = int(line.strip())
            except ValueError:
                continue
            if 0 <= choice < len(legal):
                return legal[choice]
