"""Spectators read the table talk (issue 36, item A), real processes: a watcher gets the lines
said before it came and those said after, each checked as the players check them, and passes
them on to a spectator below it (`--serve`); a table whose host said `--spectators-chat no`
sends its spectators none. The game is played to its end, so "none" is a whole feed: the node
passes its talk before its log at each turn of the feed, and the end frame comes last."""

from __future__ import annotations

import io
import json
from pathlib import Path

import trio
from trio_websocket import open_websocket_url

from node.app import chat
from node.net.frames import Connection
from node.net.handshake import handshake
from node.app.watch import Terminal
from protocol import games, wire
from protocol.identity import SigningKey, fingerprint
from protocol.verify import verify_bytes
from tests.helpers import new_table, play, timeout
from tests.node.cli_spec import json_types
from tests.node.test_spectate import watch_a_node
from tests.web.conftest import Node

NORMAL = ("--priority", "normal")


def chat_host(tmp_path: Path, *extra: str) -> tuple[Node, int, str]:
    """Ann plays in a page (driven over its WebSocket by the test); a random bot holds seat 1."""
    h = Node(["host", "fixture", "--players", "2", "-o", "rounds=6", "--client", "web", "--no-browser",
              "--with-bots", "random", "--no-discovery", "--bind", "127.0.0.1", "--time-limit", "0",
              "--name", "Ann", *extra], tmp_path / "host", tmp_path / "host.log")
    port = h.wait_for("lobby")["port"]
    return h, port, h.wait_for("web", timeout=60)["url"]


def _watcher(tmp_path: Path, name: str, port: int, *extra: str) -> Node:
    return Node(["watch", f"127.0.0.1:{port}", "--json", "--out", str(tmp_path / f"{name}.caravan"), *NORMAL, *extra],
                tmp_path / name, tmp_path / f"{name}.log")


class Page:
    """Ann's page over its WebSocket: says lines, answers decisions (the first move)."""

    def __init__(self, ws):
        self.ws, self.decide, self.hello = ws, None, None

    async def next(self) -> dict:
        msg = json.loads(await self.ws.get_message())
        if msg["type"] == "hello":
            self.hello = msg
        elif msg["type"] == "decide":
            self.decide = msg
        elif msg["type"] == "decided":
            self.decide = None
        return msg

    async def chat_opens(self) -> None:
        while (await self.next())["type"] != "chat_history":
            pass

    async def say(self, text: str) -> None:
        await self.ws.send_message(json.dumps({"type": "chat", "text": text}))
        while True:
            msg = await self.next()
            assert msg["type"] != "chat_refused", msg
            if msg["type"] == "chat_said" and msg["text"] == text:
                return

    async def play_out(self) -> None:
        while True:
            if self.decide is not None:
                d, self.decide = self.decide, None
                await self.ws.send_message(json.dumps({"type": "act", "decision": d["decision"],
                                                       "action": d["actions"][0]["id"]}))
            if (await self.next())["type"] == "result":
                return


async def _wait(node: Node, kind: str, within: float = 60) -> dict:
    return await trio.to_thread.run_sync(node.wait_for, kind, within)


def _lines(node: Node, kind: str) -> list[dict]:
    """Every line of this type the node printed (it has ended: its stdout is read to the end)."""
    if not getattr(node, "drained", False):
        while (msg := node.lines.get(timeout=timeout(10))) is not None:
            node.seen.append(msg)
        node.drained = True
    return [m for m in node.seen if m.get("type") == kind]


def _players_transcript(tmp_path: Path) -> bytes:
    [path] = (tmp_path / "host" / "games").glob("*/transcript.caravan")
    return path.read_bytes()


def test_a_spectator_reads_the_talk_before_and_after_it_came_and_passes_it_on(tmp_path):
    h, port, url = chat_host(tmp_path)
    nodes = [h]

    async def main() -> None:
        with trio.fail_after(timeout(180)):
            async with open_websocket_url(url.replace("http://", "ws://") + "ws") as ws:
                page = Page(ws)
                await page.chat_opens()
                assert page.hello["spectators_read_chat"] is True, "Ann's page tells her who reads her talk"
                await page.say("before anyone watched")
                first = _watcher(tmp_path, "first", port, "--serve", "0", "--bind", "127.0.0.1")
                nodes.append(first)
                line = await _wait(first, "chat")
                assert (line["seat"], line["name"], line["said"]) == (0, "Ann", "before anyone watched"), line
                assert line["text"] == "Ann: before anyone watched"
                served = (await _wait(first, "serving"))["port"]
                below = _watcher(tmp_path, "below", served)
                nodes.append(below)
                assert (await _wait(below, "chat"))["said"] == "before anyone watched"
                await page.say("said while they watch")
                for w in (first, below):
                    assert (await _wait(w, "chat"))["said"] == "said while they watch"
                await page.play_out()

    try:
        trio.run(main)
        for w in nodes[1:]:
            assert w.wait_for("transcript", timeout=120)["verified"] is True
            assert w.stop() == 0
        assert h.stop(timeout=60) == 0
    finally:
        for n in nodes:
            if n.proc.poll() is None:
                n.proc.kill()
    players = _players_transcript(tmp_path)                  # the talk is never in the game's record
    assert verify_bytes(players).ok
    for name in ("first", "below"):
        assert (tmp_path / f"{name}.caravan").read_bytes() == players
    assert [c["said"] for w in nodes[1:] for c in _lines(w, "chat")] == []      # each line once (read above)
    assert not any(_lines(w, "chat_refused") for w in nodes[1:])


def test_a_table_that_said_no_sends_its_spectators_no_talk(tmp_path):
    h, port, url = chat_host(tmp_path, "--spectators-chat", "no")
    nodes = [h]

    async def main() -> None:
        with trio.fail_after(timeout(180)):
            async with open_websocket_url(url.replace("http://", "ws://") + "ws") as ws:
                page = Page(ws)
                await page.chat_opens()
                assert page.hello["spectators_read_chat"] is False
                await page.say("before anyone watched")
                w = _watcher(tmp_path, "watcher", port)
                nodes.append(w)
                await _wait(w, "watching")
                await page.say("said while it watches")
                await page.play_out()

    try:
        trio.run(main)
        w = nodes[1]
        assert w.wait_for("transcript", timeout=120)["verified"] is True     # the whole feed, to its end frame
        assert w.stop() == 0
        assert h.stop(timeout=60) == 0
    finally:
        for n in nodes:
            if n.proc.poll() is None:
                n.proc.kill()
    assert _lines(nodes[1], "chat") == [] and _lines(nodes[1], "chat_refused") == []
    chat = next((tmp_path / "host").rglob("chat.jsonl")).read_text()
    assert "said while it watches" in chat                       # said (the players have it), not shown


def _line(key, game_id: bytes, n: int, text: str) -> dict:
    body = wire.encode([chat.DOMAIN, game_id, key.public, n, text])
    return {"t": "chat", "b": body, "s": key.sign(body)}


async def test_a_bad_line_is_refused_naming_its_signer_and_the_watch_goes_on(tmp_path):
    """A node that passes a spectator a good line, a line of terminal escapes (well signed), a
    line whose signature is not its seat's, a garbage one and a repeat: the watcher shows the
    good line once, says why the others were refused (the forged one with the seat and key it
    claims), prints no escape and no traceback, and verifies the game to its end."""
    table = new_table(games.get("fixture"), 2, seed=3, options={"rounds": 2})
    play(table, lambda seat, legal: legal[0])
    genesis_raw, messages = table.genesis.to_wire(), table.sessions[0].log
    gid, (ann, bob) = table.genesis.game_id, table.keys
    good = _line(bob, gid, 1_000, "hello from Bob")
    forged = _line(ann, gid, 2_000, "not signed by Ann")
    forged["s"] = SigningKey.generate().sign(forged["b"])
    talk = [good, _line(bob, gid, 1_001, "clear \x1b[2J screen"), forged, {"t": "chat", "b": b"x", "s": b"y"}, good]

    async def fake_node(stream):
        conn = Connection(stream, "spectator")
        await handshake(conn, SigningKey.generate(), gid, dialer=False)
        await conn.send({"t": "genesis", "g": genesis_raw, "names": {"0": "Ann", "1": "Bob"}})
        for frame in talk:
            await conn.send(frame)
        for raw in messages:
            await conn.send({"t": "msg", "m": raw})
        await conn.send({"t": "end", "outcome": "complete", "text": "the game is complete"})
        with trio.move_on_after(timeout(10)):
            while await conn.recv() is not None:
                pass

    done, lines = await watch_a_node(tmp_path, fake_node)
    assert done.returncode == 0, done.stderr
    assert [(m["seat"], m["said"]) for m in lines if m["type"] == "chat"] == [(1, "hello from Bob")]
    refused = [m["reason"] for m in lines if m["type"] == "chat_refused"]
    assert len(refused) == 2 and "not one line of printable text" in refused[0]       # the 1st and 2nd are said
    assert f"signature of seat 0's line does not verify (key {fingerprint(ann.public)})" in refused[1]
    out = done.stdout.decode() + done.stderr.decode()
    assert "\x1b" not in out and "Traceback" not in out
    assert [m for m in lines if m["type"] == "transcript"][0]["verified"] is True
    assert (tmp_path / "w.caravan").read_bytes() == table.transcript()
    types = json_types()                                     # every line is in specs/cli.md, with its fields
    for m in lines:
        assert m["type"] in types and not set(types[m["type"]]) - set(m), m


def test_the_terminal_prints_a_line_as_plain_text():
    """`caravan watch --client terminal`: `[chat] NAME: text`, never a terminal control (a
    checked line has none; node/output.plain makes sure all the same)."""
    out = io.StringIO()
    Terminal(out).chat({"seat": 0, "name": "Ann\x1b]52;c;AAAA\x07", "text": "hi \x1b[2Jthere"})
    assert out.getvalue() == "[chat] Ann: hi there\n"
