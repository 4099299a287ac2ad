"""`caravan demo`: one OS process per player on loopback, each a full node with a bot.

Shows progress (whose turn, last action) and the result, writes the transcript and
verifies it — the whole product in one command.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from protocol import games
from protocol.verify import verify_bytes

PREFERRED = ["sare", "sabbat", "nomads"]
TIMEOUT = 600.0


def _node(args: list[str], data_dir: Path, log: Path, watch: bool = False) -> subprocess.Popen:
    """A node process; only the watched one's stdout is a pipe (an unread pipe would fill up
    and stall its node), the others write to their log."""
    out = subprocess.PIPE if watch else log.with_suffix(".out").open("wb")
    return subprocess.Popen([sys.executable, "-m", "node", *args, "--data-dir", str(data_dir), "--bind", "127.0.0.1",
                             "--json"], stdout=out, stderr=log.open("wb"), text=True)


def _say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def run_demo(args: argparse.Namespace) -> int:
    available = games.names()
    game = args.game or next((g for g in PREFERRED if g in available), None)
    if game is None or game not in available:
        _say(f"caravan demo: no such game {args.game!r}; available: {', '.join(available) or 'none'}")
        return 2
    engine = games.get(game)
    players = args.players or min(4, engine.max_players)
    if not engine.min_players <= players <= engine.max_players:
        _say(f"caravan demo: {engine.title} is for {engine.min_players}-{engine.max_players} players")
        return 2
    out = Path(args.out or f"demo-{game}.caravan").resolve()
    work = Path(tempfile.mkdtemp(prefix="caravan-demo-"))
    options = [x for o in args.option for x in ("--option", o)]
    _say(f"demo: {engine.title}, {players} players, one process each (logs in {work})")
    started = time.monotonic()
    host = _node(["host", game, "--players", str(players), "--bot", args.bot, "--seed", str(args.seed),
                  "--no-discovery", "--out", str(out), *options], work / "seat0", work / "seat0.log", watch=True)
    procs = [host]
    try:
        port = None
        for line in host.stdout:
            msg = json.loads(line)
            if msg.get("type") == "lobby":
                port = msg["port"]
                break
        if port is None:
            _say(f"demo: the host did not open a lobby; see {work / 'seat0.log'}")
            return 1
        _say(f"demo: lobby on 127.0.0.1:{port}; starting {players - 1} joining nodes")
        for i in range(1, players):
            procs.append(_node(["join", f"127.0.0.1:{port}", "--bot", args.bot, "--seed", str(args.seed + i)],
                               work / f"seat{i}", work / f"seat{i}.log"))
        result = None
        events = 0
        for line in host.stdout:
            msg = json.loads(line)
            kind = msg.get("type")
            if kind == "event":
                events += 1
                _say(f"  {msg['text']}")
            elif kind in ("genesis", "start"):
                _say(f"demo: {msg['text']}")
            elif kind == "result":
                result = msg.get("result")
                _say(f"demo: {msg['text']}")
            elif kind == "warning":
                _say(f"demo: warning: {msg['text']}")
            if time.monotonic() - started > TIMEOUT:
                _say("demo: timed out")
                return 1
        for p in procs:
            p.wait(timeout=120)
        failed = [i for i, p in enumerate(procs) if p.returncode != 0]
        if failed or result is None:
            _say(f"demo: node(s) {failed or 'host'} failed; logs in {work}")
            return 1
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
    report = verify_bytes(out.read_bytes())
    took = time.monotonic() - started
    if not report.ok:
        _say(f"demo: the transcript does NOT verify: {report.error}")
        return 1
    winners = ", ".join(f"seat {w}" for w in report.result["winners"])
    print(f"{engine.title}: {players} players, {report.messages} signed messages, {events} moves, "
          f"{took:.1f} s; won by {winners}; scores {report.result.get('scores')}")
    print(f"transcript {out} verifies: caravan verify {out}")
    return 0
