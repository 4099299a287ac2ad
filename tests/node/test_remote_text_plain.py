"""Strings that come from elsewhere — a LAN announcement's title and machine name, a peer's
refusal, a log line quoting a peer — reach the terminal as plain text (issue 34, item 5a): no
escape sequence (OSC 52 writes the clipboard, CSI 2J clears the screen) and no other control
character, while the printable text stays."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import threading

from node.app import output
from node.app.output import Status
from tests.games.pick import installed
from tests.helpers import free_udp_port, timeout
from tests.node.procs import ROOT, env

EVIL = "Ev\x1b]52;c;Y3VybCBldmlsIHwgc2g=\x07il\x1b[2J\x1b[H\x9b31m table\x1b[0m\x07\x08\x7f\u202e"
SHOWN = "Evil table"
CONTROLS = [chr(c) for c in range(32) if chr(c) != "\n"] + ["\x7f"] + [chr(c) for c in range(0x80, 0xa0)] + ["\u202e"]


def _plain(text: str) -> bool:
    return not any(c in text for c in CONTROLS)


def test_a_lan_announcement_is_printed_plain_by_discover():
    port = free_udp_port()
    beacon = json.dumps({"caravan": 1, "lobby": "ab" * 16, "game": installed()[0], "title": EVIL, "players": 2,
                         "seated": 1, "port": 4000, "name": "host\x1b[2J", "spectators": True}).encode()
    proc = subprocess.Popen([sys.executable, "-m", "node", "discover", "--via", "udp", "--wait", "1.5",
                             "--discovery-bind", "127.0.0.1", "--discovery-port", str(port)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env(), cwd=ROOT)
    stop = threading.Event()

    def send() -> None:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            while not stop.wait(0.1):
                s.sendto(beacon, ("127.0.0.1", port))
    sender = threading.Thread(target=send, daemon=True)
    sender.start()
    try:
        out, err = proc.communicate(timeout=timeout(60))
    finally:
        stop.set()
        proc.kill()
    assert proc.returncode == 0, err
    assert SHOWN in out and "abababab" in out and "host" in out, out
    assert _plain(out) and _plain(err), (out, err)


def test_a_log_line_quoting_a_peer_is_plain():
    code = ("import argparse, logging\n"
            "from node.cli.tools import setup_logging\n"
            f"for v in (0, 1):\n"
            f"    logging.getLogger().handlers.clear()\n"
            f"    setup_logging(argparse.Namespace(verbose=v))\n"
            f"    logging.getLogger('caravan.test').warning('the peer said %s', {EVIL!r})\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env(), cwd=ROOT,
                       timeout=timeout(60))
    assert r.returncode == 0, r.stderr
    assert r.stderr.count(f"the peer said {SHOWN}") == 2 and _plain(r.stderr), r.stderr


def test_a_status_line_is_plain_on_the_terminal(capfd):
    status = Status()
    status(f"the host refused: {EVIL}", "warning")
    err = capfd.readouterr().err
    assert f"the host refused: {SHOWN}" in err and _plain(err), repr(err)


def test_plain_keeps_printable_text():
    assert output.plain("Añ 中 🎲 seat 2: ok") == "Añ 中 🎲 seat 2: ok"
    assert output.plain("a\tb\nc") == "a b c" and output.plain("a\nb", lines=True) == "a\nb"
    assert output.plain("x\x1b]0;title\x1b\\y\x1bcz") == "xyz"
