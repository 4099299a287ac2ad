"""The commands that need no game node: verify, simulate, games, options, discover; and
the output helpers they share with the node commands (JSON lines, progress bars)."""

from __future__ import annotations

import argparse
import json
import logging
import sys
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import Any, Callable, Iterator

from protocol import games, genesis as G

from . import checks as check
from ..app import output
from .checks import UsageError

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


class _OneLine(output.PlainFormatter):
    """A log record as one plain line: no traceback (that is what -v is for), no control
    character or escape sequence (output.plain)."""

    def format(self, record: logging.LogRecord) -> str:
        record.exc_info, record.exc_text, record.stack_info = None, None, None
        return super().format(record)


class ReaderMayLeave:
    """sys.stdout for a reader that may stop reading (`caravan games | head -1`): once the
    pipe is closed, the rest of the output goes to /dev/null and the command ends as it
    would have (its own exit code), with no BrokenPipeError."""

    def __init__(self, stream: Any):
        self._stream = stream

    def write(self, text: str) -> int:
        try:
            return self._stream.write(text)
        except BrokenPipeError:
            self._reader_left()
            return len(text)

    def flush(self) -> None:
        try:
            self._stream.flush()
        except BrokenPipeError:
            self._reader_left()

    def _reader_left(self) -> None:
        import os
        devnull = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(devnull, self._stream.fileno())       # what is still buffered goes nowhere
        finally:
            os.close(devnull)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def setup_logging(args: argparse.Namespace, status: Callable[..., None] | None = None) -> None:
    """Debug logs with -v; without, warnings are one line each. The discovery warnings (an
    interface the beacon cannot reach) go to the node's status, so --json reports them."""
    level = logging.DEBUG if args.verbose >= 2 else logging.INFO if args.verbose else logging.WARNING
    fmt = "%(asctime)s %(name)s %(levelname)s %(message)s" if args.verbose else "caravan: %(levelname)s: %(message)s"
    handler = output.StderrHandler() if output.stderr_is_a_pipe() else logging.StreamHandler(sys.stderr)
    handler.setFormatter(output.PlainFormatter(fmt, lines=True) if args.verbose else _OneLine(fmt))
    logging.basicConfig(level=level, handlers=[handler])
    if not args.verbose:
        logging.getLogger("zeroconf").setLevel(logging.ERROR)      # its own retries, with tracebacks
    if status is not None and not args.verbose:
        class ToStatus(logging.Handler):
            def emit(self, record: logging.LogRecord) -> None:
                status(record.getMessage(), "warning")
        handler = ToStatus(logging.WARNING)
        discovery_log = logging.getLogger("caravan.discovery")
        discovery_log.addHandler(handler)
        discovery_log.propagate = False


def data_dir(args: argparse.Namespace) -> Path:
    from ..storage.store import default_data_dir
    return Path(args.data_dir) if getattr(args, "data_dir", None) else default_data_dir()


def json_line(kind: str, **fields: Any) -> None:
    print(json.dumps({"type": kind, **fields}, sort_keys=True, default=str), flush=True)


def _stderr_is_terminal(args: argparse.Namespace) -> bool:
    return sys.stderr.isatty() and not getattr(args, "json", False) and not getattr(args, "quiet", False)


@contextmanager
def progress_bar(label: str, total: int | None, enabled: bool) -> Iterator[Callable[..., None]]:
    """A rich progress bar on stderr (only on a terminal; `total` None: a spinner, 0: set
    later); yields update(done, text=None, total=None)."""
    if not enabled:
        yield lambda done, text=None, total=None: None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn
    columns = ([TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn()]
               if total is not None else [SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn()])
    with Progress(*columns, console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task(label, total=total)

        def update(done: int, text: str | None = None, total: int | None = None) -> None:
            bar.update(task, completed=done, description=f"{label} {text}" if text else label, total=total)
        yield update


# ----------------------------------------------------------------------------- verify

def _describe_result(result: dict[str, Any] | None) -> str:
    if not result:
        return "none"
    winners = ", ".join(f"seat {w}" for w in result.get("winners", []))
    scores = result.get("scores")
    return f"won by {winners}" + (f"; scores {scores}" if scores is not None else "")


def cmd_verify(args: argparse.Namespace) -> int:
    from protocol.verify import verify_bytes
    from .verify_pool import in_processes, proofs_in, workers

    try:
        with open(args.file, "rb") as fh:
            data = fh.read()
    except OSError as exc:
        raise UsageError(f"cannot open {args.file}: {exc.strerror or exc}") from None
    jobs = args.jobs or 1
    with progress_bar("checking messages", 0, _stderr_is_terminal(args) and len(data) > 256 * 1024) as update, \
            workers(jobs) if jobs > 1 else nullcontext() as pool:
        report = verify_bytes(data, progress=lambda done, total: update(done, total=total),
                              signatures=in_processes(jobs, pool) if pool else None,
                              proofs=proofs_in(pool) if pool else None)
    # every `unreadable` file (bad magic, a torn or oversized frame, wherever it is) exits 2:
    # its frames cannot be told apart, so no message can be judged (specs/protocol.md §9)
    readable = not (report.error and report.error["code"] == "unreadable")
    code = EXIT_OK if report.ok else EXIT_FAILED if readable else EXIT_USAGE
    if not readable:
        where = f" (frame {report.error['position']})" if report.error["position"] else ""
        print(f"caravan verify: {args.file} is not a readable Caravan transcript{where}: {report.error['reason']}",
              file=sys.stderr)
    if args.json:
        json_line("verify", **report.to_json())
        return code
    if not readable:
        return code
    title = report.game or "unknown game"
    if report.game:
        try:
            title = games.get(report.game).title
        except KeyError:
            pass
    head = f"{title}, game {report.game_id[:16]}…" if report.game_id else title
    if report.ok:
        print(f"VALID: {head}: {report.messages} messages, every signature, proof and rule checks out")
    elif report.valid and report.abandoned_by:
        print(f"ABANDONED: {head}: {report.messages} messages; {report.error['reason']}")
    elif report.valid:
        print(f"UNFINISHED: {head}: {report.messages} messages; {report.error['reason']}")
    else:
        err = report.error
        who = (f"signed by seat {err['seat']} ({err['fingerprint']})" if err["fingerprint"]
               else "signer unknown")
        where = "the genesis" if err["position"] == 0 else f"message #{err['position']}"
        print(f"INVALID: {head}: {where}, {who}: {err['code']}: {err['reason']}")
    if report.pace is not None:
        print(f"  pace: {G.pace_text(report.pace, report.time_limit)}")
    for s in report.seats:
        print(f"  seat {s['seat']}: {s['fingerprint']}")
    if report.ok:
        print(f"  result: {_describe_result(report.result)}")
        if report.hidden_cards:
            print(f"  {len(report.hidden_cards)} card(s) that stayed hidden decoded with the published deck keys "
                  "(--json lists them)")
    return code


# ----------------------------------------------------------------------------- simulate

def cmd_simulate(args: argparse.Namespace) -> int:
    from clients.bot import make_bot
    from clients.simulate import simulate

    engine = check.engine(args.game)
    check.players(engine, args.players)
    options = check.options(engine, args.option, args.players)
    bots = [b.strip() for b in args.bots.split(",") if b.strip()]
    for kind in bots:
        try:
            make_bot(kind, args.game, 0)
        except (KeyError, ValueError):
            raise UsageError(f"--bots: unknown bot {kind!r}; choose from random, heuristic") from None
    with progress_bar(f"simulating {args.game}", args.games, _stderr_is_terminal(args)) as update:
        stats = simulate(args.game, args.players, args.games, bots, args.seed, options, progress=update)
    if args.json:
        json_line("simulation", game=args.game, players=args.players, games=stats.games, seconds=stats.seconds,
                   games_per_s=stats.games_per_s, decisions_per_s=stats.decisions_per_s, wins=stats.wins)
        return EXIT_OK
    print(f"{stats.games} games of {args.game} with {args.players} players in {stats.seconds:.2f} s: "
          f"{stats.games_per_s:.1f} games/s, {stats.decisions_per_s:,.0f} decisions/s")
    print("wins (shared wins split):")
    for label, wins in sorted(stats.wins.items(), key=lambda kv: -kv[1]):
        print(f"  {label:14s} {wins:8.1f}  {100 * wins / max(1, stats.games):5.1f}%")
    return EXIT_OK


# ----------------------------------------------------------------------------- discovery

def cmd_discover(args: argparse.Namespace) -> int:
    import trio

    from ..net import discovery, mdns

    if args.via == "mdns" and not mdns.available():
        raise UsageError("--via mdns needs python-zeroconf (pip install zeroconf)")
    methods = discovery.methods(args.via, args.discovery_port)
    setup_logging(args)
    try:
        found = trio.run(lambda: discovery.discover(args.wait, args.discovery_port, args.discovery_bind,
                                                    via=args.via))
    except OSError as exc:
        print(f"caravan discover: cannot listen on {args.discovery_bind} UDP port {args.discovery_port}: "
              f"{exc.strerror or exc}", file=sys.stderr)
        return EXIT_FAILED
    if args.json:
        for a in found:
            json_line("found", **a.__dict__)
        json_line("discover", methods=methods, seconds=args.wait, found=len(found),
                   mdns_available=mdns.available())
        return EXIT_OK
    for a in found:
        print(output.plain(a.describe()))             # a title and a machine name from the LAN
    missing = "" if mdns.available() or args.via == "udp" else "; mDNS not available (pip install zeroconf)"
    print(f"{len(found) or 'no'} open lobb{'y' if len(found) == 1 else 'ies'} heard in {args.wait:g} s, "
          f"listening with: {', '.join(methods)}{missing}", file=sys.stderr)
    return EXIT_OK


# ----------------------------------------------------------------------------- stored games, options

def cmd_games(args: argparse.Namespace) -> int:
    from ..storage.stored import stored_games

    found = stored_games(data_dir(args))
    if args.json:
        for g in found:
            json_line("game", **{k: v for k, v in g.to_json().items() if k != "type"})
        return EXIT_OK
    if not found:
        print(f"no stored games under {data_dir(args) / 'games'}", file=sys.stderr)
    for g in found:
        print(g.describe())
    return EXIT_OK


def _options_module(game: str) -> Any:
    """The game's options module (protocol.games.options_module), or None for a game without one."""
    return games.options_module(game)


def option_help(game: str) -> dict[str, dict[str, str]]:
    """OPTION_HELP from protocol/games/<game>/options.py: {key: {"values", "help"}}; {} if absent."""
    return dict(getattr(_options_module(game), "OPTION_HELP", {}))


def option_kinds(game: str) -> dict[str, Any]:
    """OPTIONS from protocol/games/<game>/options.py: {key: protocol.engine.Option}; {} if absent."""
    return dict(getattr(_options_module(game), "OPTIONS", {}))


def option_presets(game: str) -> dict[str, dict[str, Any]]:
    """PRESETS from protocol/games/<game>/options.py: {name: options over the defaults}; {} if absent."""
    return dict(getattr(_options_module(game), "PRESETS", {}))


def cmd_options(args: argparse.Namespace) -> int:
    engine = check.engine(args.game)
    players = check.players(engine, args.players or engine.min_players)
    defaults = engine.default_options(players)
    helps, kinds, presets = option_help(args.game), option_kinds(args.game), option_presets(args.game)
    rows = [{"key": k, "default": v, "values": (helps.get(k) or {}).get("values", ""),
             "help": (helps.get(k) or {}).get("help", "(no description)"),
             **({"control": kinds[k].to_json()} if k in kinds else {})} for k, v in sorted(defaults.items())]
    if args.json:
        for row in rows:
            json_line("option", game=args.game, players=players, **row)
        return EXIT_OK
    print(f"{engine.title} ({args.game}), {engine.min_players}-{engine.max_players} players; "
          f"defaults for {players} players; set with -o KEY=VALUE (VALUE as JSON, or text)")
    if not rows:
        print("  (no options)")
    for row in rows:
        values = f"  values: {row['values']}" if row["values"] else ""
        print(f"  {row['key']} = {json.dumps(row['default'])}{values}\n      {row['help']}")
    if presets:
        print("presets (the home's New table offers them; each sets these over the defaults):")
    for name, preset in presets.items():
        print(f"  {name}: " + " ".join(f"-o {k}={v if isinstance(v, str) else json.dumps(v)}" for k, v in preset.items()))
    return EXIT_OK
