"""`--client tcp:PORT`: the port opens as soon as the node starts (before the lobby fills), and
only the program that sends the printed token as its first line may decide for the seat."""

from __future__ import annotations

import json
import socket
import time
from pathlib import Path

from tests.games.pick import some_game
from tests.helpers import timeout as scaled
from tests.web.conftest import Node


def _lines(sock: socket.socket, count: int, timeout: float = 30.0) -> list[dict]:
    sock.settimeout(scaled(timeout))
    buf, out = b"", []
    deadline = time.monotonic() + scaled(timeout)
    while len(out) < count and time.monotonic() < deadline:
        chunk = sock.recv(65536)
        if not chunk:
            break
        buf += chunk
        while b"\n" in buf and len(out) < count:
            line, buf = buf.split(b"\n", 1)
            out.append(json.loads(line))
    return out


def test_the_client_port_needs_the_token_and_opens_before_the_lobby_fills(tmp_path: Path):
    host = Node(["host", some_game(players=2), "--players", "2", "--client", "tcp:0", "--no-discovery",
                 "--bind", "127.0.0.1", "--time-limit", "0"], tmp_path / "seat0", tmp_path / "seat0.log")
    joiner = None
    try:
        opened = host.wait_for("client_port")
        port, token = opened["port"], opened["token"]
        lobby = host.wait_for("lobby")                       # nobody has joined yet, the port is open
        with socket.create_connection(("127.0.0.1", port), timeout=scaled(10)) as intruder:
            intruder.sendall(b"not-the-token\n")
            reply = _lines(intruder, 1)
            assert reply and reply[0]["type"] == "error" and "token" in reply[0]["message"]
            assert intruder.recv(100) == b""                 # and the connection is closed
        client = socket.create_connection(("127.0.0.1", port), timeout=scaled(10))
        client.sendall(token.encode() + b"\n")
        joiner = Node(["join", f"127.0.0.1:{lobby['port']}", "--bot", "random", "--bind", "127.0.0.1"],
                      tmp_path / "seat1", tmp_path / "seat1.log")
        first = _lines(client, 2, timeout=60)
        assert first[0]["type"] == "hello" and first[0]["seat"] == 0 and first[0]["names"] == ["seat 0", "seat 1"]
        assert first[1]["type"] in ("decide", "event")
        client.close()
    finally:
        host.proc.kill()
        host.stop()
        if joiner is not None:
            joiner.proc.kill()
            joiner.stop()
