"""The `caravan` command line. Every command, its JSON lines and its exit codes are
documented in specs/cli.md (and tests/node/test_cli_spec.py checks them against it).

Arguments are checked before anything starts (one line on stderr, exit 2); a node stopped
by ^C, SIGINT, SIGTERM or the end of its terminal input exits 130 with one line saying how
to continue; any other failure is one line and exit 1 (`-v` shows the traceback)."""

from __future__ import annotations

import argparse
import signal
import sys
from pathlib import Path
from typing import Any, Callable

from protocol import games

from . import checks as check
from ..app import output
from ..storage import seat_memory
from .common import discovery_args, json_arg, main_exception
from .checks import UsageError
from .tools import (ReaderMayLeave, cmd_discover, cmd_games, cmd_options, cmd_simulate, cmd_verify, data_dir,
                    json_line, setup_logging)

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130
BOT_KINDS = ("random", "heuristic", "search")


# ----------------------------------------------------------------------------- nodes

def _seat(args: argparse.Namespace):
    from ..app.runner import Seat

    check.decider(args)
    seat = Seat(data_dir(args), args.bind, args.port, args.bot, args.bot_cmd, args.client,
                Path(args.out) if args.out else None, args.seed, output.Status(args.json, args.quiet), args.bot_delay,
                Path(args.trace) if args.trace else None)
    seat.name, seat.confirm_forced = args.name, args.confirm_forced
    seat.web_port, seat.no_browser = args.web_port, args.no_browser
    seat.think, seat.iterations = args.think, args.iterations
    seat.relay_auth = args.relay_auth
    seat.relay = check.relay(getattr(args, "relay", None), args.relay_auth)
    if getattr(args, "until_idle", False):
        seat.until_idle = "idle" if args.command == "resume" else "genesis"
    if getattr(args, "spectators", None):
        seat.spectators = args.spectators == "yes"
    if getattr(args, "spectators_chat", None):
        seat.spectators_chat = args.spectators_chat == "yes"
    return seat


def _run_node(args: argparse.Namespace, make: Callable[[Any], Any], seat: Any) -> int:
    """Run a node under trio until its game ends or it is interrupted. SIGINT and SIGTERM
    cancel it, so it stops only at a checkpoint: every message is stored before it is sent
    or acted upon, and nothing is half-written."""
    import trio

    signals_seen: list[int] = []

    async def run_until_signal() -> Any:
        with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
            async with trio.open_nursery() as nursery:
                async def watch() -> None:
                    async for signum in signals:
                        signals_seen.append(signum)
                        nursery.cancel_scope.cancel()
                        return
                nursery.start_soon(watch)
                if getattr(args, "with_parent", False):
                    nursery.start_soon(_until_stdin_closes, nursery.cancel_scope, signals_seen)
                result = await make(seat)
                nursery.cancel_scope.cancel()
                return result

    try:
        result = trio.run(run_until_signal)
    except BaseException as exc:                     # noqa: BLE001 - reported, never a traceback
        leaf = main_exception(exc)
        end_of_input = args.client == "terminal" and isinstance(leaf, ConnectionError)   # ^D at the prompt
        if signals_seen or end_of_input or isinstance(leaf, (KeyboardInterrupt, EOFError)):
            return _paused(args, seat)
        if args.verbose:
            raise
        return _failed(args, seat, leaf)
    if signals_seen:
        return _paused(args, seat)
    return EXIT_OK if result is not None else EXIT_FAILED


async def _until_stdin_closes(scope: Any, signals_seen: list[int]) -> None:
    """--with-parent: a bot node seated by a person's node pauses when that node's pipe to it
    closes (the person paused, or their process died), like a signal would stop it."""
    import os

    import trio

    stream = trio.lowlevel.FdStream(os.dup(0))
    try:
        while await stream.receive_some(4096):
            pass
    except (OSError, trio.BrokenResourceError, trio.ClosedResourceError):
        pass
    signals_seen.append(0)
    scope.cancel()


def _paused(args: argparse.Namespace, seat: Any) -> int:
    game_id = getattr(seat, "game_id", None)
    if game_id:
        text = f"game {game_id[:16]} paused — continue with: caravan resume {game_id[:16]}"
        fields = {"game_id": game_id}
        kind = "paused"
    else:
        text = ("lobby closed before the game started; nothing to resume" if args.command == "host"
                else "left before the game started; nothing to resume")
        fields, kind = {}, "closed"
    if args.json:
        seat.status(text, kind, **fields)            # through the node's non-blocking stdout
    if args.client == "terminal":
        print(file=sys.stderr)                       # the cursor may sit after a prompt, or after ^C
    print(text, file=sys.stderr, flush=True)
    return EXIT_INTERRUPTED


def _failed(args: argparse.Namespace, seat: Any, exc: BaseException) -> int:
    from ..app import operations as app
    from ..app.lobby import LobbyError

    known = (LobbyError, LookupError, ValueError, OSError, ConnectionError)
    text = str(exc).strip().replace("\n", " ") if isinstance(exc, known) else f"{type(exc).__name__}: {exc}"
    game_id = getattr(seat, "game_id", None)
    if game_id and app.resume_can_help(Path(getattr(seat, "data_dir", None) or data_dir(args)), game_id, exc):
        text += f" (game {game_id[:16]} can continue with: caravan resume {game_id[:16]})"
    print(f"caravan {args.command}: {output.plain(text) or type(exc).__name__}", file=sys.stderr, flush=True)
    return EXIT_FAILED


def cmd_host(args: argparse.Namespace) -> int:
    from ..app import operations as app

    engine = check.engine(args.game)
    check.players(engine, args.players)
    options = check.options(engine, args.option, args.players)
    bots = [k for k in args.with_bots.split(",") if k]
    bad = [k for k in bots if k not in BOT_KINDS]
    if bad:
        raise UsageError(f"unknown bot kind {bad[0]!r} for --with-bots (use {', '.join(BOT_KINDS)})")
    if len(bots) >= args.players:
        raise UsageError(f"--with-bots names {len(bots)} bot(s) but only {args.players - 1} seat(s) "
                         "are free besides yours")
    pace, time_limit = table_pace(args)
    if args.until_idle and (pace != "turn-based" or not args.relay):
        raise UsageError("--until-idle is for a turn-based table through a broker: add --pace turn-based and "
                         "--relay URL (its seats' nodes then need not run at the same time)")
    seat = _seat(args)
    seat.tab = check.tab(args.tab, seat.relay)
    setup_logging(args, seat.status)
    return _run_node(args, lambda seat: app.host(args.game, args.players, options, seat,
                                                  announce=not args.no_discovery,
                                                  discovery_target=args.discovery_addr,
                                                  discovery_port=args.discovery_port,
                                                  time_limit=time_limit, bots=bots, pace=pace), seat)


def table_pace(args: argparse.Namespace) -> tuple[str, int]:
    """(pace, time limit in seconds) from --pace, --move-time and --time-limit: a live table's
    limit is --time-limit (default 300 s), a turn-based table's is its time per move (default 24 h)."""
    if args.pace == "turn-based":
        if args.time_limit is not None:
            raise UsageError("--time-limit is for a live table; a turn-based table's limit is --move-time (e.g. 24h)")
        return "turn-based", args.move_time if args.move_time is not None else check.DEFAULT_MOVE_TIME
    if args.move_time is not None:
        raise UsageError("--move-time is for a turn-based table: add --pace turn-based (a live table has --time-limit)")
    limit = 300 if args.time_limit is None else args.time_limit
    if limit > 86400:
        raise UsageError(f"--time-limit {limit} is over a day (86400 s): for a slower table use "
                         "--pace turn-based --move-time 24h")
    return "live", limit


def cmd_join(args: argparse.Namespace) -> int:
    from ..app import operations as app

    target = check.join_target(args.target)
    seat = _seat(args)
    if target and target.startswith("caravan+"):
        seat.relay = check.invite(target, args.relay_auth)
    seat.join_timeout = args.join_timeout
    setup_logging(args)
    return _run_node(args, lambda seat: app.join(target, seat, args.discovery_port, args.discovery_bind,
                                                  args.wait, args.via), seat)


def cmd_resume(args: argparse.Namespace) -> int:
    from ..app import operations as app

    prefix = check.game_id_prefix(args.game_id)
    check.relay(args.relay, args.relay_auth)                         # what was given is checked first
    game_id, memory = _recall(args, prefix)
    seat_memory.fill_args(args, memory)                             # as the seat was decided, unless given
    if not memory and not any(getattr(args, k, None) for k in seat_memory.DECIDERS):
        raise UsageError(f"game {game_id[:16]} keeps no record of how its seat decides (it began before "
                         "Caravan kept one): add --client web|terminal, or --bot random|heuristic|search")
    seat = _seat(args)
    seat.game_id = game_id
    setup_logging(args)
    return _run_node(args, lambda seat: app.resume(prefix, seat), seat)


def _recall(args: argparse.Namespace, prefix: str) -> tuple[str, dict[str, Any]]:
    """app.recall: an unknown or ambiguous game id is a usage error."""
    from ..app import operations as app

    try:
        return app.recall(data_dir(args), prefix)
    except LookupError as exc:
        raise UsageError(str(exc)) from None


def cmd_app(args: argparse.Namespace) -> int:
    """`caravan` / `caravan app`: the home page, until ^C."""
    import trio

    from ..pages.home import run_home
    from ..pages.home_tables import Network

    if args.install_autostart:
        return _install_autostart(args)
    network = Network(args.bind, args.discovery_addr, args.discovery_port, args.discovery_bind)
    setup_logging(args)                              # -v: the home's and its bots' logs (bots/botN/node.log)

    def tell(url: str) -> None:
        if args.json:
            json_line("web", url=url)
        elif args.background:
            print(f"Caravan runs in the background; the home: {url}", file=sys.stderr, flush=True)
        else:
            print(f"Caravan is open in your browser; if not, open: {url}\n(^C here closes it; your games "
                  "pause and continue from the page next time)", file=sys.stderr, flush=True)

    def answering(titles: list[str]) -> None:
        text = (f"answering for {len(titles)} turn-based game{'s' * (len(titles) != 1)}: {', '.join(titles)}"
                if titles else "no turn-based game to answer for now; new ones from the home are answered too")
        if args.json:
            json_line("background", games=titles)
        else:
            print(f"{text} (a desktop notification says when one waits for your move; ^C stops)",
                  file=sys.stderr, flush=True)

    async def main() -> None:
        with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(run_home, data_dir(args), network, args.port, tell,
                                   not (args.no_browser or args.background), answering if args.background else None)
                async for _ in signals:
                    nursery.cancel_scope.cancel()
                    return

    try:
        trio.run(main)
    except BaseException as exc:                     # noqa: BLE001 - one line, never a traceback
        leaf = main_exception(exc)
        if isinstance(leaf, KeyboardInterrupt):
            return EXIT_OK
        if isinstance(leaf, OSError):
            print(f"caravan app: {leaf}", file=sys.stderr)
            return EXIT_USAGE
        raise
    return EXIT_OK                                   # closed: its games pause


def _install_autostart(args: argparse.Namespace) -> int:
    from ..pages import autostart

    try:
        entry, unit = autostart.install(Path(args.data_dir) if args.data_dir else None)
    except OSError as exc:
        print(f"caravan app: cannot write the autostart files: {exc}", file=sys.stderr)
        return EXIT_FAILED
    if args.json:
        json_line("autostart", entry=str(entry), unit=str(unit))
    else:
        print(f"wrote {entry}: your desktop starts `caravan app --background` when you log in\n"
              f"wrote {unit}: without a desktop session, run `systemctl --user enable --now {autostart.UNIT}` "
              f"(and remove {entry})\nto undo: delete both files", flush=True)
    return EXIT_OK


def cmd_forget(args: argparse.Namespace) -> int:
    from ..app import operations as app

    game_id = _recall(args, check.game_id_prefix(args.game_id))[0]
    try:
        trash = app.forget(data_dir(args), game_id)
    except LookupError as exc:
        raise UsageError(str(exc)) from None
    if args.json:
        json_line("forgotten", game_id=game_id, path=str(trash))
    else:
        print(f"game {game_id[:16]} moved to {trash} (move it back to games/ to keep it)")
    return EXIT_OK


def _app_parser(sub: Any) -> None:
    a = sub.add_parser("app", help="the home page in your browser (also: caravan with no command)",
                       description="Serve Caravan's home on 127.0.0.1 and open it in the browser: your games, "
                                   "new tables with friends or bots, open tables on the LAN, settings.")
    a.add_argument("--port", type=check.port_number, default=0, help="serve on this port (default: a free one)")
    a.add_argument("--no-browser", action="store_true", help="print the home's link, do not open it")
    a.add_argument("--background", action="store_true",
                   help="no browser: continue your turn-based games at once, answer for them (shares, reveals, "
                        "your bots) and tell you on the desktop when one waits for your move")
    a.add_argument("--install-autostart", action="store_true",
                   help="start `caravan app --background` when you log in (an XDG autostart entry, and a systemd "
                        "user unit to enable where there is no desktop), then exit")
    a.add_argument("--data-dir", help="where keys and games are kept (default: the user data directory)")
    a.add_argument("--bind", default="0.0.0.0", help="address the games listen on (default: all)")
    a.add_argument("--discovery-addr", type=check.ipv4, default=None, metavar="IPV4",
                   help="where to send lobby announcements (default: every interface's broadcast address)")
    a.add_argument("--discovery-port", type=check.udp_port, default=check.DISCOVERY_PORT)
    a.add_argument("--discovery-bind", default="0.0.0.0", help="address to listen for announcements on")
    a.add_argument("-v", "--verbose", action="count", default=0,
                   help="logs on stderr (-vv: debug), and the bots' in their node.log")
    json_arg(a, 'one JSON line: {"type": "web", "url": ...}')
    a.set_defaults(func=cmd_app)

    f = sub.add_parser("forget", help="move a stored game's folder to the trash folder (the home's Forget)")
    f.add_argument("game_id", help="the game id, or a unique prefix of it (caravan games lists them)")
    f.add_argument("--data-dir", help="where keys and games are kept (default: the user data directory)")
    json_arg(f, 'one JSON line: {"type": "forgotten", "game_id", "path"}')
    f.set_defaults(func=cmd_forget)


def cmd_rematch(args: argparse.Namespace) -> int:
    """Play again: a new lobby for the same game, options and seats; the bots re-seated."""
    from ..app import operations as app

    game_id, memory = _recall(args, check.game_id_prefix(args.game_id))
    seat_memory.fill_args(args, memory)                             # as the seat was decided, unless given
    seat = _seat(args)
    setup_logging(args, seat.status)
    return _run_node(args, lambda seat: app.rematch(game_id, seat, announce=not args.no_discovery,
                                                     discovery_target=args.discovery_addr,
                                                     discovery_port=args.discovery_port,
                                                     decline=args.decline), seat)


def cmd_watch(args: argparse.Namespace) -> int:
    """`caravan watch TARGET`: watch a game as a spectator (app.watch) until it ends."""
    import logging

    import trio

    from ..app import operations as app, watch as watching
    from ..pages.browser import BrowserOpener
    from ..net.frames import FrameError
    from ..net.handshake import HandshakeError
    from ..app.lobby import LobbyError

    target = args.target
    try:
        if target and target.startswith("caravan+"):
            from ..net.relay_url import parse_invite, with_auth
            try:
                url = watching.parse_watch_invite(target)[0] if "/watch/" in target else parse_invite(target).url
            except ValueError as exc:
                raise ValueError(f"{exc}; to watch a game under way, give a player's watch invite "
                                 "(caravan+mqtt://HOST:PORT/watch/GAME_ID/INBOX)") from None
            with_auth(url, args.relay_auth)
        else:
            target = check.join_target(target)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    status = output.Status(args.json, args.quiet)
    setup_logging(args, status)
    client = args.client or (None if args.json else "web")
    opener = BrowserOpener(data_dir(args), "watch.html") if client == "web" and not args.no_browser else None
    if args.priority == "low":
        logging.getLogger("caravan.watch").info("CPU priority: %s", watching.lower_priority())

    def say(text: str, kind: str = "status", **fields: Any) -> None:
        if kind not in ("event", "chat") or args.json:     # a terminal or a page shows these itself
            status(text, kind, **fields)

    async def main() -> int:
        with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
            async with trio.open_nursery() as nursery:
                async def interrupt() -> None:
                    async for _ in signals:
                        raise KeyboardInterrupt
                nursery.start_soon(interrupt)
                show = (None if client == "web" else watching.Quiet() if client is None
                        else watching.Terminal(sys.stderr if args.json else sys.stdout))
                code = await app.watch(target, data_dir(args), say, show, Path(args.out) if args.out else None,
                                       args.relay_auth, None if args.serve is None else (args.bind, args.serve),
                                       args.web_port, opener,
                                       (args.discovery_port, args.discovery_bind, args.wait, args.via))
                nursery.cancel_scope.cancel()
                return code

    try:
        return trio.run(main)
    except BaseException as exc:                    # noqa: BLE001 - one line, never a traceback
        leaf = main_exception(exc)
        if isinstance(leaf, KeyboardInterrupt):
            print("caravan watch: stopped watching (the players' game goes on)", file=sys.stderr, flush=True)
            return EXIT_INTERRUPTED
        if args.verbose:
            raise
        known = (watching.WatchError, LobbyError, HandshakeError, FrameError, OSError, ValueError, LookupError,
                 trio.TooSlowError)
        if isinstance(leaf, (trio.BrokenResourceError, trio.ClosedResourceError)):
            leaf = watching.WatchError(f"the link to {args.target} broke ({leaf})")
        text = str(leaf) if isinstance(leaf, known) else f"{type(leaf).__name__}: {leaf}"
        if isinstance(leaf, HandshakeError):
            text = f"the handshake with {args.target} failed: {text}"
        print(f"caravan watch: {output.plain(text)}", file=sys.stderr, flush=True)
        return EXIT_FAILED


def cmd_demo(args: argparse.Namespace) -> int:
    from .demo import run_demo
    return run_demo(args)


# ----------------------------------------------------------------------------- the parser

class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line on stderr (exit 2), not the usage text."""

    def error(self, message: str) -> None:
        self.exit(EXIT_USAGE, f"{self.prog}: {message} (see {self.prog} --help)\n")


def _node_args(p: argparse.ArgumentParser) -> None:
    d = p.add_argument_group("how this seat decides (choose one)")
    d.add_argument("--bot", choices=["random", "heuristic", "search"], help="an in-process bot")
    d.add_argument("--think", type=check.seconds, default=1.0, metavar="SECONDS", help="--bot search: time per decision")
    d.add_argument("--iterations", type=check.count, metavar="N", help="--bot search: iterations per decision instead")
    d.add_argument("--bot-cmd", metavar="COMMAND", help='a bot program speaking the client API on stdin/stdout, '
                                                       'e.g. "python -m clients.stdio_bot random"')
    d.add_argument("--client", metavar="web|terminal|stdio|tcp:PORT",
                   help="web: you play in your browser (the node serves the page on 127.0.0.1); terminal: you "
                        "play at this terminal; stdio: a program speaking the client API on this process's "
                        "stdin/stdout; tcp:PORT: one such client on 127.0.0.1:PORT (specs/client-api.md)")
    d.add_argument("--name", help="your name, shown to you in the narration (default: seat N)")
    d.add_argument("--web-port", type=check.port_number, metavar="PORT", help="--client web: serve the page on this port "
                   "(default: a free one; a resumed game keeps its port when it can)")
    d.add_argument("--no-browser", action="store_true", help="--client web: print the page's link, do not open it")
    d.add_argument("--confirm-forced", action="store_true",
                   help="--client terminal: ask even when only one move is legal (default: take it and say so)")
    n = p.add_argument_group("node")
    n.add_argument("--data-dir", help="where keys and games are kept (default: the user data directory)")
    n.add_argument("--bind", default="0.0.0.0", help="address to listen on (default: all)")
    n.add_argument("--port", type=check.port_number, default=0,
                   help="TCP port to listen on, 0-65535 (default 0: any free port)")
    n.add_argument("--out", help="also write the transcript to this file at the end")
    n.add_argument("--seed", type=int, help="seed for the bot's own choices (not for the game's dice)")
    n.add_argument("--bot-delay", type=check.seconds, default=0.0, metavar="SECONDS",
                   help="let an in-process bot think this long per decision (to watch a game)")
    json_arg(n, "JSON lines on stdout instead of human status on stderr (specs/cli.md)")
    n.add_argument("--relay-auth", metavar="FILE", help="the MQTT broker's USER:PASSWORD, the first line of FILE "
                   "(kept off the command line; for --relay, an invite, or a resumed relayed game)")
    n.add_argument("--trace", metavar="FILE", help="append message sign/apply times to FILE (for benchmarks)")
    n.add_argument("-q", "--quiet", action="store_true", help="no human status output")
    n.add_argument("--with-parent", action="store_true", help=argparse.SUPPRESS)   # a person's bot: pause with it
    n.add_argument("-v", "--verbose", action="count", default=0, help="debug logs on stderr (-vv: more)")


def _watch_parser(sub: Any) -> None:
    w = sub.add_parser("watch", help="watch a game live as a spectator, verifying every message as it arrives",
                       description="Connect to a player's node (the HOST:PORT of its game, or of its lobby: then "
                                   "wait for the game to start), receive every signed message so far and then "
                                   "each new one, check each on arrival and show the game as a spectator sees "
                                   "it. At the end the transcript is written (the same bytes as the players'). "
                                   "Exit 0: the game ended and its transcript verifies; 1: a message failed, the "
                                   "node refused or went away; 2: bad usage; 130: interrupted.")
    w.add_argument("target", nargs="?", help="HOST:PORT of a player's game or of an open lobby ([IPv6]:PORT), a "
                   "lobby id (prefix) from caravan discover (default: the only open lobby), a watch invite "
                   "(caravan+mqtt://HOST:PORT/watch/GAME_ID/INBOX) printed by a player's node of a relayed game "
                   "whose host allowed spectators, or a relayed lobby's invite (caravan+mqtt://HOST:PORT/LOBBY_ID/"
                   "HOST_KEY): then wait there for the game to start")
    w.add_argument("--client", choices=["web", "terminal"], default=None,
                   help="web (default without --json): the table page in your browser, spectator mode; terminal: "
                        "the game in words on this terminal")
    w.add_argument("--json", action="store_true", help="JSON lines on stdout for scripts (specs/cli.md); no page "
                                                       "unless --client web")
    w.add_argument("--out", help="write the transcript here (default: DATA_DIR/watched/GAME_ID.caravan)")
    w.add_argument("--data-dir", help="where watched transcripts are kept (default: the user data directory)")
    w.add_argument("--web-port", type=check.port_number, default=0, metavar="PORT", help="--client web: serve the page on this port")
    w.add_argument("--no-browser", action="store_true", help="--client web: print the page's link, do not open it")
    w.add_argument("--serve", type=check.port_number, metavar="PORT", help="relay the verified game to other spectators on this "
                   "TCP port (0: any free one), so the players' nodes carry less; they verify it all themselves")
    w.add_argument("--bind", default="0.0.0.0", help="--serve: the address to listen on (default: all)")
    w.add_argument("--relay-auth", metavar="FILE", help="a watch invite's broker: USER:PASSWORD on FILE's first line")
    w.add_argument("--priority", choices=["low", "normal"], default="low",
                   help="low (default): verify only on CPU time nothing else wants (Linux SCHED_IDLE, elsewhere "
                        "nice 19), so a player's node on the same machine never waits for this watcher; normal: "
                        "the usual priority")
    discovery_args(w)
    w.add_argument("-q", "--quiet", action="store_true", help="no human status output")
    w.add_argument("-v", "--verbose", action="count", default=0, help="debug logs on stderr")
    w.set_defaults(func=cmd_watch)


def _until_idle_arg(p: argparse.ArgumentParser, when: str) -> None:
    p.add_argument("--until-idle", action="store_true",
                   help="a turn-based table through a broker (its seats' nodes need not run together): stop, "
                        f"exit 0, {when}")


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version
    try:
        return version("caravan")
    except PackageNotFoundError:
        return "unknown (not installed)"


class _VersionAction(argparse._VersionAction):
    """--version, looked up only when asked: importlib.metadata costs every node process
    (each one builds this parser) a few hundredths of a second of CPU (issue 31)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs, help="show program's version number and exit")

    def __call__(self, parser: argparse.ArgumentParser, *args: Any, **kwargs: Any) -> None:
        self.version = f"caravan {_version()}"
        super().__call__(parser, *args, **kwargs)


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="caravan", description="Serverless, verifiable board games on a LAN. "
                                            "Commands, JSON lines and exit codes: specs/cli.md.")
    p.add_argument("--version", action=_VersionAction)
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    game_names = "the game (an unknown name lists the installed ones; caravan options GAME shows its options)"

    v = sub.add_parser("verify", help="check a finished game's signed transcript",
                       description="Replay a .caravan transcript and check every signature, proof and rule. "
                                   "Exit 0: valid and finished; 1: invalid, unfinished or abandoned; 2: the file "
                                   "cannot be opened or is not a transcript at all, or bad usage.")
    v.add_argument("file", help="the .caravan transcript")
    v.add_argument("--jobs", type=check.count, metavar="N",
                   help="processes checking signatures and deck proofs at once: the replay and N-1 "
                        "workers (default 1: a worker pays only on a large transcript with a spare core)")
    json_arg(v, "print one JSON object instead of text")
    v.set_defaults(func=cmd_verify)

    s = sub.add_parser("simulate", help="play many engine-only games among bots (no network, no crypto)")
    s.add_argument("game", help=game_names)
    s.add_argument("--players", type=check.count, default=4)
    s.add_argument("--games", type=check.count, default=100)
    s.add_argument("--bots", default="random", help="comma-separated bot kinds per seat: random, heuristic")
    s.add_argument("--seed", type=int, default=0)
    s.add_argument("--option", "-o", action="append", default=[], metavar="KEY=VALUE",
                   help="a game option (caravan options GAME lists them)")
    s.add_argument("-q", "--quiet", action="store_true", help="no progress output")
    json_arg(s, "one JSON object with the rates and wins")
    s.set_defaults(func=cmd_simulate)

    h = sub.add_parser("host", help="open a lobby on this machine and play when every seat is taken",
                       description="Open a lobby for GAME, announce it on the LAN, and start when PLAYERS have "
                                   "joined and signed the genesis. The host has no special power afterwards.")
    h.add_argument("game", help=game_names)
    h.add_argument("--players", type=int, required=True)
    h.add_argument("--option", "-o", action="append", default=[], metavar="KEY=VALUE",
                   help="a game option (caravan options GAME lists them)")
    h.add_argument("--time-limit", type=check.whole_seconds, default=None, metavar="SECONDS",
                   help="a live table: how long a player may take for a move before the others may end the game "
                        "as abandoned by that player (0: no limit; default 300)")
    h.add_argument("--pace", choices=["live", "turn-based"], default="live",
                   help="live (default): everyone plays now; turn-based: each player has --move-time per move "
                        "(hours or days), the others' nodes wait that long before the game may be abandoned")
    h.add_argument("--move-time", type=check.move_time, default=None, metavar="90m|24h|3d",
                   help="--pace turn-based: the time per move, 1h to 14d (default 24h)")
    h.add_argument("--no-discovery", action="store_true", help="do not announce the lobby on the LAN")
    h.add_argument("--spectators", choices=["yes", "no"], default=None,
                   help="may others watch this table with caravan watch (default: yes on a LAN, no through a broker)")
    h.add_argument("--spectators-chat", choices=["yes", "no"], default=None,
                   help="may the spectators read the table talk (read-only; default: yes where spectators are allowed)")
    h.add_argument("--with-bots", default="", metavar="KIND,...",
                   help="fill seats with bots on this machine, one node each (e.g. heuristic,random); "
                        "the other seats are for people joining")
    h.add_argument("--discovery-addr", type=check.ipv4, default=None, metavar="IPV4",
                   help="where to send announcements (default: every interface's broadcast address)")
    h.add_argument("--discovery-port", type=check.udp_port, default=check.DISCOVERY_PORT)
    h.add_argument("--relay", metavar="mqtt://HOST[:PORT]",
                   help="play over the internet through this MQTT broker (mqtts:// for TLS, ws:// or wss:// for its websockets "
                        "listener; mqtt://USER:PASSWORD@HOST "
                        "or --relay-auth FILE to log in): prints an invite, caravan+mqtt://HOST:PORT/LOBBY_ID/HOST_KEY, "
                        "for the others to join with")
    h.add_argument("--tab", metavar="URL",
                   help="the address of the browser tab your group uses (a copy of make tab's bundle; caravan tab "
                        "--check URL): also prints a link that opens it with the invite, for friends who join from "
                        "a browser or a phone (needs --relay ws:// or wss://)")
    _node_args(h)
    _until_idle_arg(h, "once the table's advert and this seat's postbox are on the broker (its lobby goes by "
                       "mail: go on with caravan resume LOBBY_ID --until-idle)")
    h.set_defaults(func=cmd_host)

    j = sub.add_parser("join", help="take a seat in a lobby (found on the LAN, or at HOST:PORT)")
    j.add_argument("target", nargs="?", help="HOST:PORT ([IPv6]:PORT), an invite (caravan+mqtt://HOST:PORT/LOBBY_ID/"
                                             "HOST_KEY, printed by caravan host --relay), or a lobby id (prefix) from "
                                             "caravan discover; default: the only open lobby. HOST:PORT/KEY or "
                                             "LOBBY_ID/KEY (the key host prints) refuses any other host")
    j.add_argument("--join-timeout", type=check.seconds, default=60.0, metavar="SECONDS",
                   help="through a broker: how long to keep asking a lobby whose host does not answer "
                        "(a busy host answers late; default 60)")
    discovery_args(j)
    _node_args(j)
    _until_idle_arg(j, "once the join waits in the host's postbox (a turn-based table's lobby goes by mail: go on "
                       "with caravan resume LOBBY_ID --until-idle)")
    j.set_defaults(func=cmd_join)

    r = sub.add_parser("resume", help="restart a stored game (after ^C or a crash) and continue it")
    r.add_argument("game_id", help="the game id, or a unique prefix of it (caravan games lists them)")
    r.add_argument("--relay", metavar="mqtt://HOST[:PORT]",
                   help="a relayed game: reach the others through this broker instead of the one it was played on")
    _node_args(r)
    _until_idle_arg(r, "once this node has taken what waited on the broker, made every move and step it can "
                       "without the others, and the broker holds what it sent: it says whom the game waits for "
                       "(GAME_ID may be a turn-based lobby's id: its next step by mail, then its game)")
    r.set_defaults(func=cmd_resume)

    a = sub.add_parser("rematch", help="play again: a new lobby for a stored game's game, options and seats",
                       description="Host a new game like a stored one (same game, options, number of seats and time "
                                   "limit, a fresh genesis); the bots seated with it are seated again, friends join "
                                   "the new lobby. The seat decides as it did in that game unless told otherwise.")
    a.add_argument("game_id", help="the game id, or a unique prefix of it (caravan games lists them)")
    a.add_argument("--decline", action="store_true", help="a friend who joined that game: tell the host's new "
                   "lobby \"not this time\" (the host sees who declined, by name) instead of joining it")
    a.add_argument("--no-discovery", action="store_true", help="do not announce the lobby on the LAN")
    a.add_argument("--discovery-addr", type=check.ipv4, default=None, metavar="IPV4",
                   help="where to send announcements (default: every interface's broadcast address)")
    a.add_argument("--discovery-port", type=check.udp_port, default=check.DISCOVERY_PORT)
    _node_args(a)
    a.set_defaults(func=cmd_rematch)

    g = sub.add_parser("games", help="list the games stored on this machine and where each stands")
    g.add_argument("--data-dir", help="where keys and games are kept (default: the user data directory)")
    json_arg(g, "one JSON object per game")
    g.set_defaults(func=cmd_games)

    o = sub.add_parser("options", help="list a game's options: values, default and meaning")
    o.add_argument("game", help=game_names)
    o.add_argument("--players", type=int, default=None, help="show the defaults for this many players")
    json_arg(o, "one JSON object per option")
    o.set_defaults(func=cmd_options)

    d = sub.add_parser("discover", help="list open lobbies on the LAN")
    discovery_args(d)
    json_arg(d, "one JSON object per lobby, then one saying how it listened")
    d.add_argument("-v", "--verbose", action="count", default=0, help="debug logs on stderr")
    d.set_defaults(func=cmd_discover)

    m = sub.add_parser("demo", help="play a whole game among bots, one OS process per player, on loopback")
    m.add_argument("game", nargs="?", default=None, help="the game (default: the first available)")
    m.add_argument("--players", type=int, default=None)
    m.add_argument("--out", help="transcript file (default: demo-GAME.caravan)")
    m.add_argument("--seed", type=int, default=0, help="seed for the bots' choices")
    m.add_argument("--bot", choices=list(BOT_KINDS), default="heuristic")
    m.add_argument("--bot-delay", type=check.seconds, default=0.0, metavar="SECONDS",
                   help="let every bot think this long per decision (to follow the game as it is played)")
    m.add_argument("--option", "-o", action="append", default=[], metavar="KEY=VALUE")
    m.add_argument("--keep", action="store_true", help="keep the nodes' data and logs (removed otherwise)")
    json_arg(m, "the host node's JSON lines, then one 'demo' summary object")
    m.set_defaults(func=cmd_demo)

    _app_parser(sub)
    from clients import replay
    replay.add_parser(sub)
    _watch_parser(sub)
    from clients import tournament
    tournament.add_parser(sub)
    from . import records
    records.add_parser(sub)
    from ..tab import serve as tab
    tab.add_parser(sub)
    return p


def _load_extra_engines() -> None:
    """CARAVAN_ENGINES="module[:attr],...": register engines from other packages (plugins,
    and the test suite's fixture games in node subprocesses)."""
    import importlib
    import os
    for spec in filter(None, os.environ.get("CARAVAN_ENGINES", "").split(",")):
        module, _, attr = spec.strip().partition(":")
        games.register(getattr(importlib.import_module(module), attr or "ENGINE"))


def main(argv: list[str] | None = None) -> int:
    # SIGTERM stops like ^C until a node installs its own handler (then: paused, exit 130)
    previous = signal.signal(signal.SIGTERM, signal.default_int_handler)
    stdout, sys.stdout = sys.stdout, ReaderMayLeave(sys.stdout)     # `caravan games | head -1` ends quietly
    try:
        code = _main(argv)
        sys.stdout.flush()
        return code
    finally:
        sys.stdout = stdout
        signal.signal(signal.SIGTERM, previous)


def _main(argv: list[str] | None) -> int:
    command = "caravan"
    verbose = False
    try:
        _load_extra_engines()
        parser = build_parser()
        argv = list(sys.argv[1:] if argv is None else argv)
        if not argv or (argv[0].startswith("-") and argv[0] not in ("-h", "--help", "--version")):
            argv = ["app", *argv]                    # `caravan` alone (or with app flags): the home
        try:
            args = parser.parse_args(argv)
        except SystemExit as exc:
            return EXIT_USAGE if exc.code else EXIT_OK
        if not getattr(args, "func", None):
            parser.print_help(sys.stderr)
            return EXIT_USAGE
        command, verbose = f"caravan {args.command}", bool(getattr(args, "verbose", 0))
        return args.func(args)
    except UsageError as exc:
        print(f"{command}: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print(f"{command}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BaseException as exc:                     # noqa: BLE001 - one line, never a traceback
        if isinstance(exc, SystemExit) or verbose:
            raise
        leaf = main_exception(exc)
        if isinstance(leaf, KeyboardInterrupt):
            print(f"{command}: interrupted", file=sys.stderr)
            return EXIT_INTERRUPTED
        print(f"{command}: {type(leaf).__name__}: {leaf}".rstrip(": "), file=sys.stderr)
        return EXIT_FAILED
