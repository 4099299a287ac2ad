"""`caravan replay FILE.caravan`: verify a transcript, then write one self-contained HTML file
that steps through the game from a spectator's view.

The file needs no network and no server: the board at every step (SVG from clients.render),
the narration synced to the step, a slider and previous/next/play controls, and a badge
that says whether the transcript verified (and, if not, which message failed and who signed
it). Frames are stored deflate-compressed (consecutive boards differ little) and unpacked
by the browser's DecompressionStream.
"""

from __future__ import annotations

import argparse
import base64
import json
import sys
import zlib
from html import escape
from pathlib import Path
from typing import Any, Callable

from protocol import abandon, games, genesis as G
from protocol.errors import Rejected
from protocol.need import EngineFault
from protocol.session import Session
from protocol.transcript import TranscriptError, load
from protocol.verify import Report, verify_bytes

from . import narrate, render

WEB = Path(__file__).resolve().parent / "web"


def frames(data: bytes, report: Report,
           progress: Callable[[int, int], None] | None = None) -> list[dict[str, Any]]:
    """The spectator's board and sentences after every event, up to the first bad message.
    Each frame: {"svg": index into the list of distinct pictures, "log": sentences,
    "seat": the acting seat or None, "message": transcript position}."""
    genesis_raw, messages = load(data)
    genesis = G.parse(genesis_raw)
    engine = games.get(genesis.game)
    players = len(genesis.seats)
    names = [f"seat {s}" for s in range(players)]
    session = Session(genesis, engine, strict=True)
    table = narrate.Table(engine, genesis.options, players, None, names)
    stop = len(messages)
    if report.error and report.error.get("position"):
        stop = min(stop, report.error["position"] - 1)
    if messages and _is_record(messages[-1]):
        stop = min(stop, len(messages) - 1)
    out = [{"picture": render.svg(engine.name, table.view, names), "log": ["the game is set up"],
            "seat": None, "message": 0}]
    for position, raw in enumerate(messages[:stop], start=1):
        if progress is not None:
            progress(position, stop)
        try:
            receipt = session.receive(raw)
        except (Rejected, EngineFault):
            break
        for event in receipt.events:
            info, lines = table.apply(event)
            out.append({"picture": render.svg(engine.name, table.view, names), "log": lines,
                        "seat": narrate.acting_seat(info), "message": position})
    if report.ok and report.hidden_cards:
        view = engine.view(table.state, 0, dict(report.hidden_cards))
        out.append({"picture": render.svg(engine.name, view, names), "seat": None, "message": stop,
                    "log": [f"after the end: {len(report.hidden_cards)} card(s) that stayed hidden, decoded with "
                            "the deck keys every seat published (shown in seat 0's picture)"]})
    return out


def _is_record(raw: bytes) -> bool:
    try:
        return abandon.parse_record(raw) is not None
    except Rejected:
        return True


def badge(report: Report) -> tuple[str, str]:
    """(css class, text) of the verification badge."""
    if report.ok:
        return "ok", f"Verified: every signature, proof and rule checks out ({report.messages} messages)"
    err = report.error or {}
    if report.valid and report.abandoned_by:          # the verifier's reason says "abandoned: seat 0 ..."
        return "warn", f"Abandoned: {str(err.get('reason', '')).removeprefix('abandoned: ')}"
    if report.valid:
        return "warn", f"Unfinished: {err.get('reason', '')}"
    who = f"signed by seat {err['seat']} ({err['fingerprint']})" if err.get("fingerprint") else "signer unknown"
    where = "the genesis" if err.get("position") == 0 else f"message #{err.get('position')}"
    return "bad", f"NOT VALID: {where}, {who}: {err.get('code')}: {err.get('reason')}"


def html(report: Report, steps: list[dict[str, Any]], title: str) -> str:
    """One self-contained page (inline CSS, script and compressed frames)."""
    pictures: list[str] = []
    index: dict[str, int] = {}
    packed = []
    for step in steps:
        pic = step["picture"]
        if pic not in index:
            index[pic] = len(pictures)
            pictures.append(pic)
        packed.append({"svg": index[pic], "log": step["log"], "seat": step["seat"], "message": step["message"]})
    payload = json.dumps({"pictures": pictures, "steps": packed}, separators=(",", ":")).encode()
    blob = base64.b64encode(zlib.compress(payload, 9)).decode()
    kind, text = badge(report)
    result = ""
    if report.result:
        scores = report.result.get("scores")
        result = ("Won by " + " and ".join(f"seat {w}" for w in report.result.get("winners", [])) +
                  (f"; scores: {', '.join(f'seat {s} {v}' for s, v in enumerate(scores))}" if scores else ""))
    no_result = "No result: " + ("the transcript is not valid." if not report.valid else "the game did not finish.")
    failed = report.error.get("position") if report.error and not report.valid else None
    style = (WEB / "style.css").read_text() + REPLAY_CSS
    script = (WEB / "replay.js").read_text()
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{escape(title)} — Caravan replay</title><style>{style}</style></head>
<body>
<header><h1>{escape(title)} — replay</h1>
<span id="badge" class="badge {kind}">{escape(text)}</span>
<button id="theme" type="button">theme: system</button></header>
<main>
<section><div id="controls">
<button id="first" type="button" title="first step">«</button>
<button id="prev" type="button" title="previous step (←)">◀</button>
<button id="play" type="button" title="play / pause (space)">▶ play</button>
<button id="next" type="button" title="next step (→)">▶</button>
<button id="last" type="button" title="last step">»</button>
<input id="slider" type="range" min="0" max="0" value="0" aria-label="step">
<span id="stepno"></span></div>
<div id="board"><p class="muted">Unpacking the game…</p></div></section>
<aside><div id="result" class="status{'' if result else ' nores'}" hidden>{escape(result) or no_result}</div>
<h2>What happened</h2><ol id="log"></ol></aside>
</main>
<script id="frames" type="application/octet-stream">{blob}</script>
<script>const FAILED = {json.dumps(failed)};
{script}</script>
</body></html>
"""


REPLAY_CSS = """
#result.nores { border-color: var(--hi); }
#controls { display: flex; gap: .4em; align-items: center; margin-bottom: .6em; flex-wrap: wrap; }
#slider { flex: 1; min-width: 10em; }
#log li.now { background: var(--panel); font-weight: 600; }
#log li.failed { color: var(--hi); font-weight: 600; }
"""


def add_parser(sub: argparse._SubParsersAction) -> None:
    r = sub.add_parser("replay", help="verify a transcript and write a replay page to step through it",
                       description="Verify FILE (same checks and exit codes as caravan verify), then write one "
                                   "self-contained HTML file that shows the board at every step and open it.")
    r.add_argument("file", help="the .caravan transcript")
    r.add_argument("--html", metavar="OUT", help="where to write the page (default: FILE with .html)")
    r.add_argument("--no-browser", action="store_true", help="do not open the page")
    r.add_argument("--json", action="store_true", help='one JSON line: {"type": "replay", "html", "valid", ...}')
    r.set_defaults(func=cmd_replay)


def cmd_replay(args: argparse.Namespace) -> int:
    try:
        data = Path(args.file).read_bytes()
    except OSError as exc:
        print(f"caravan replay: cannot open {args.file}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    try:
        load(data)
    except TranscriptError as exc:
        print(f"caravan replay: {args.file} is not a readable transcript: {exc}", file=sys.stderr)
        return 2
    report = verify_bytes(data)
    try:
        title = games.get(report.game).title if report.game else "Caravan"
        steps = frames(data, report, _progress_bar(args))
    except (KeyError, Rejected, TranscriptError) as exc:
        print(f"caravan replay: cannot replay {args.file}: {exc}", file=sys.stderr)
        return 2 if report.game is None else 1
    out = Path(args.html) if args.html else Path(args.file).with_suffix(".html")
    try:
        out.write_text(html(report, steps, title))
    except OSError as exc:
        print(f"caravan replay: cannot write {out}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    kind, text = badge(report)
    if args.json:
        print(json.dumps({"type": "replay", "html": str(out), "valid": report.valid, "complete": report.complete,
                          "steps": len(steps), "verdict": text}))
    else:
        print(text)
        print(f"replay: {out} ({len(steps)} steps)")
    if not args.no_browser:
        import webbrowser
        webbrowser.open(out.resolve().as_uri())
    return 0 if report.ok else 1


def _progress_bar(args: argparse.Namespace):
    if args.json or not sys.stderr.isatty():
        return None
    from rich.progress import Progress

    bar = Progress(transient=True)
    task = bar.add_task("drawing the boards", total=None)
    bar.start()

    def update(done: int, total: int) -> None:
        bar.update(task, completed=done, total=total)
        if done >= total:
            bar.stop()
    return update
