"""Bad arguments are refused before anything starts: exit 2 and one line on stderr naming
the problem; a join to something that is not a Caravan lobby says what it found (exit 1)."""

import socket
import subprocess
import sys
import threading

import pytest

from protocol import games
from tests.games.pick import quick_game
from tests.helpers import communicate, join, timeout
from tests.node.procs import ROOT, env

DECIDE = ["--bot", "random"]
GAME = quick_game(2)
"""An installed game (the options of the fixture game are not a real game's)."""
_ENGINE = games.get(GAME)
_OPTION = sorted(_ENGINE.default_options(2))[0]
_SEATS = f"{_ENGINE.min_players}-{_ENGINE.max_players} players"

# (arguments, words the one error line must contain)
BAD = [
    (["host", "fixture", "--players", "2", *DECIDE, "--port", "99999"], "99999"),
    (["host", "fixture", "--players", "2", *DECIDE, "--port", "-1"], "-1"),
    (["host", "fixture", "--players", "2", *DECIDE, "--port", "http"], "'http' is not a port"),
    (["host", "fixture", "--players", "2", *DECIDE, "--discovery-port", "70000"], "70000"),
    (["host", "fixture", "--players", "2", *DECIDE, "--discovery-addr", "not-an-ip"], "not-an-ip"),
    (["host", "fixture", "--players", "2", "--client", "tcp:abc"], "tcp:abc"),
    (["host", "fixture", "--players", "2", "--client", "tcp:70000"], "70000"),
    (["host", "fixture", "--players", "2", "--client", "browser"], "terminal, web, stdio or tcp:PORT"),
    (["host", "fixture", "--players", "2", "--bot-cmd", "/no/such/bot --fast"], "'/no/such/bot' not found"),
    (["host", "fixture", "--players", "2", "--bot-cmd", "no-such-program-anywhere"], "not found"),
    (["host", "fixture", "--players", "2", "--bot-cmd", str(ROOT / "README.md")], "not executable"),
    (["host", "fixture", "--players", "2", "--bot-cmd", "'unclosed"], "quotation"),
    (["host", "fixture", "--players", "2"], "choose exactly one way"),
    (["host", "fixture", "--players", "2", *DECIDE, "--client", "stdio"], "choose exactly one way"),
    (["host", "chess", "--players", "2", *DECIDE], "unknown game 'chess'; choose one of:"),
    (["host", "fixture", "--players", "7", *DECIDE], "2-6 players, not 7"),
    (["host", "fixture", "--players", "2", *DECIDE, "-o", "speed=3"], "its options are: rounds"),
    (["host", "fixture", "--players", "2", *DECIDE, "-o", "rounds=99"], "rounds"),
    (["host", "fixture", "--players", "2", *DECIDE, "-o", "rounds"], "not KEY=VALUE"),
    (["host", GAME, "--players", "2", *DECIDE, "-o", f"{_OPTION}=maybe"], _OPTION),
    (["host", "fixture", "--players", "2", *DECIDE, "--time-limit", "-5"], "-5"),
    (["host", "fixture", "--players", "2", *DECIDE, "--tab", "https://tab.example.org/"], "--tab needs --relay ws://"),
    (["host", "fixture", "--players", "2", *DECIDE, "--relay", "mqtt://127.0.0.1", "--tab", "https://tab.example.org/"],
     "--tab needs --relay ws://"),
    (["host", "fixture", "--players", "2", *DECIDE, "--relay", "ws://127.0.0.1:9001", "--tab", "tab.example.org"],
     "'tab.example.org' is not a tab's address"),
    (["host", "fixture", "--players", "2", *DECIDE, "--relay", "ws://127.0.0.1:9001", "--tab", "https://t.org/#x"],
     "no #fragment"),
    (["join", "127.0.0.1:notaport", *DECIDE], "'notaport'"),
    (["join", "127.0.0.1:0", *DECIDE], "1-65535"),
    (["join", ":4000", *DECIDE], "needs a host"),
    (["join", "::1:4000", *DECIDE], "[ADDRESS]:PORT"),
    (["join", "[nonsense]:4000", *DECIDE], "not an IPv6 address"),
    (["join", "lobby-over-there", *DECIDE], "neither HOST:PORT nor a lobby id"),
    (["join", "127.0.0.1:4000", "--client", "tcp:x"], "tcp:x"),
    (["join", *DECIDE, "--wait", "soon"], "'soon'"),
    (["resume", "zz-top", *DECIDE], "not a game id"),
    (["simulate", "fixture", "--players", "2", "--bots", "random,genius"], "'genius'"),
    (["simulate", "fixture", "--players", "2", "--games", "0"], "whole number >= 1"),
    (["options", "chess"], "choose one of"),
    (["options", GAME, "--players", str(_ENGINE.max_players + 1)], _SEATS),
    (["demo", GAME, "--players", "1"], _SEATS),
    (["demo", GAME, "-o", f"{_OPTION}=maybe"], _OPTION),
    (["discover", "--discovery-port", "0"], "1-65535"),
    (["verify"], "required"),
    (["frobnicate"], "invalid choice"),
]


def _data(args: list[str], tmp_path) -> list[str]:
    return ["--data-dir", str(tmp_path / "d")] if args[0] in ("host", "join", "resume") else []


def test_every_bad_argument_is_one_line_and_exit_2(tmp_path, capsys):
    """In-process through main() (fast); the next test runs a sample as real processes."""
    from node.cli.main import main
    from tests.fixture_game import ENGINE
    from protocol import games
    games.register(ENGINE)
    for args, words in BAD:
        assert main([*args, *_data(args, tmp_path)]) == 2, args
        out, err = capsys.readouterr()
        lines = err.strip().splitlines()
        assert len(lines) == 1 and words in lines[0], (args, err)
        assert out == "", (args, out)
    assert not (tmp_path / "d" / "games").exists()          # nothing started


def test_bad_arguments_as_real_processes(tmp_path):
    """`python -m node`: the same one line and exit 2 (a sample, a few processes at a time)."""
    sample = BAD[::5]
    for i in range(0, len(sample), 4):
        procs = [(args, words, subprocess.Popen([sys.executable, "-m", "node", *args, *_data(args, tmp_path)],
                                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                                env=env(), cwd=ROOT)) for args, words in sample[i:i + 4]]
        for args, words, proc in procs:
            out, err = communicate(proc, 120, f"caravan {args}")
            assert proc.returncode == 2, (args, err)
            lines = err.strip().splitlines()
            assert len(lines) == 1 and words in lines[0], (args, err)
            assert out == "", (args, out)


class _Server:
    """A TCP server on loopback that is not a Caravan lobby: `behaviour(conn)` per client."""

    def __init__(self, behaviour):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen()
        self.sock.settimeout(timeout(30))
        self.port = self.sock.getsockname()[1]
        self.thread = threading.Thread(target=self._serve, args=(behaviour,), daemon=True)
        self.thread.start()

    def _serve(self, behaviour):
        try:
            conn, _ = self.sock.accept()
        except OSError:
            return
        with conn:
            behaviour(conn)

    def close(self):
        self.sock.close()
        join(self.thread, 15, "the stand-in server (its client never hung up)")


def _silent(conn):
    conn.recv(100)                       # waits for the joiner to give up


def _banner(conn):
    conn.sendall(b"SSH-2.0-OpenSSH_9.6\r\n")
    conn.recv(100)


def _hangup(conn):
    pass


def _game_node(conn):
    import msgpack
    import struct
    data = msgpack.packb({"t": "hello", "v": 1, "scope": b"x" * 32, "key": b"k" * 32, "nonce": b"n" * 32})
    conn.sendall(struct.pack(">I", len(data)) + data)
    conn.recv(100)


def _future_lobby(conn):
    import msgpack
    import struct
    data = msgpack.packb({"t": "lobby", "v": 2, "lobby": "ab" * 16, "game": "fixture"})
    conn.sendall(struct.pack(">I", len(data)) + data)
    conn.recv(100)


@pytest.mark.parametrize("behaviour, words", [
    (None, "connection refused"),
    (_silent, "sent nothing for 10 s"),
    (_banner, "is not a Caravan lobby"),
    (_hangup, "closed the connection without a word"),
    (_game_node, "is a game in progress, not a lobby; to continue a game you are seated in, run: caravan resume"),
    (_future_lobby, "another Caravan protocol version"),
])
def test_join_says_what_it_found(tmp_path, behaviour, words):
    if behaviour is None:
        probe = socket.socket()
        probe.bind(("127.0.0.1", 0))
        port, server = probe.getsockname()[1], None
        probe.close()                                           # nothing listens there now
    else:
        server = _Server(behaviour)
        port = server.port
    try:
        r = subprocess.run([sys.executable, "-m", "node", "join", f"127.0.0.1:{port}", *DECIDE, "--bind",
                            "127.0.0.1", "--data-dir", str(tmp_path)], capture_output=True, text=True,
                           timeout=timeout(60), env=env(), cwd=ROOT)
    finally:
        if server:
            server.close()
    assert r.returncode == 1, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and words in lines[0] and "Traceback" not in r.stderr, r.stderr
