"""`caravan demo`: one OS process per player on loopback, each a full node with a bot.

Shows progress (whose turn, last action) and the result, writes the transcript and
verifies it — the whole product in one command. The nodes' data and logs live in a
temporary folder, removed at the end unless --keep (or a node failed: then it is kept
and named, so the logs can be read).
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from clients import games as presentations
from protocol import games
from protocol.verify import verify_bytes

from . import checks as check

TIMEOUT = 600.0


def _node(args: list[str], data_dir: Path, log: Path, watch: bool = False) -> subprocess.Popen:
    """A node process; only the watched one's stdout is a pipe (an unread pipe would fill up
    and stall its node), the others write to their log."""
    out = subprocess.PIPE if watch else log.with_suffix(".out").open("wb")
    return subprocess.Popen([sys.executable, "-m", "node", *args, "--data-dir", str(data_dir), "--bind", "127.0.0.1",
                             "--json"], stdout=out, stderr=log.open("wb"), text=True)


def _say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def _stop(procs: list[subprocess.Popen]) -> None:
    """Stop the nodes still running: SIGTERM (they pause cleanly), SIGKILL after 5 s."""
    for p in procs:
        if p.poll() is None:
            p.terminate()
    for p in procs:
        try:
            p.wait(timeout=5)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


def run_demo(args: argparse.Namespace) -> int:
    from .tools import progress_bar

    game = args.game or presentations.first(games.names())
    if game is None:
        raise check.UsageError("no game is installed")
    engine = check.engine(game)
    players = check.players(engine, args.players or min(4, engine.max_players))
    check.options(engine, args.option, players)
    out = Path(args.out or f"demo-{game}.caravan").resolve()
    work = Path(tempfile.mkdtemp(prefix="caravan-demo-"))
    options = [x for o in args.option for x in ("--option", o)]
    pace = ["--bot-delay", str(args.bot_delay)] if args.bot_delay else []
    show = sys.stderr.isatty() and not args.json
    if not args.json:
        _say(f"demo: {engine.title}, {players} players, one process each (working folder {work})")
    started = time.monotonic()
    host = _node(["host", game, "--players", str(players), "--bot", args.bot, "--seed", str(args.seed), *pace,
                  "--no-discovery", "--out", str(out), *options], work / "seat0", work / "seat0.log", watch=True)
    procs = [host]
    keep = args.keep
    events = 0
    try:
        port = None
        for line in host.stdout:
            msg = json.loads(line)
            if args.json:
                print(line, end="", flush=True)
            if msg.get("type") == "lobby":
                port = msg["port"]
                break
        if port is None:
            keep = True
            _say(f"demo: the host did not open a lobby; see {work / 'seat0.log'}")
            return 1
        if not args.json:
            _say(f"demo: lobby on 127.0.0.1:{port}; starting {players - 1} joining nodes")
        for i in range(1, players):
            procs.append(_node(["join", f"127.0.0.1:{port}", "--bot", args.bot, "--seed", str(args.seed + i), *pace],
                               work / f"seat{i}", work / f"seat{i}.log"))
        result = None
        with progress_bar("demo: moves", None, show) as update:
            for line in host.stdout:
                msg: dict[str, Any] = json.loads(line)
                kind = msg.get("type")
                if args.json:
                    print(line, end="", flush=True)
                elif kind == "event":
                    _say(f"  {msg['text']}")
                elif kind in ("genesis", "start", "result"):
                    _say(f"demo: {msg['text']}")
                elif kind == "warning":
                    _say(f"demo: warning: {msg['text']}")
                if kind == "event":
                    events += 1
                    update(events, f"{events}")
                elif kind == "result":
                    result = msg.get("result")
                if time.monotonic() - started > TIMEOUT:
                    keep = True
                    _say("demo: timed out")
                    return 1
        for p in procs:
            p.wait(timeout=120)
        failed = [i for i, p in enumerate(procs) if p.returncode != 0]
        if failed or result is None:
            keep = True
            _say(f"demo: node(s) {failed or 'host'} failed; logs in {work}")
            return 1
    finally:
        _stop(procs)
        if keep:
            if args.keep:
                _say(f"demo: the nodes' data and logs are kept in {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    report = verify_bytes(out.read_bytes())
    took = time.monotonic() - started
    if args.json:
        print(json.dumps({"type": "demo", "game": game, "players": players, "messages": report.messages,
                          "moves": events, "seconds": round(took, 3), "result": report.result,
                          "transcript": str(out), "verified": report.ok}, sort_keys=True), flush=True)
    if not report.ok:
        _say(f"demo: the transcript does NOT verify: {report.error}")
        return 1
    if args.json:
        return 0
    winners = ", ".join(f"seat {w}" for w in report.result["winners"])
    print(f"{engine.title}: {players} players, {report.messages} signed messages, {events} moves, "
          f"{took:.1f} s; won by {winners}; scores {report.result.get('scores')}")
    print(f"transcript {out} verifies: caravan verify {out}")
    return 0
