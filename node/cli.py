"""The `caravan` command line."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from protocol import games

EXIT_OK, EXIT_INVALID, EXIT_USAGE = 0, 1, 2


def _describe_result(result: dict[str, Any] | None) -> str:
    if not result:
        return "none"
    winners = ", ".join(f"seat {w}" for w in result.get("winners", []))
    scores = result.get("scores")
    return f"won by {winners}" + (f"; scores {scores}" if scores is not None else "")


def cmd_verify(args: argparse.Namespace) -> int:
    from protocol.verify import verify_bytes

    try:
        with open(args.file, "rb") as fh:
            data = fh.read()
    except OSError as exc:
        print(f"caravan verify: cannot open {args.file}: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_USAGE
    show = sys.stderr.isatty() and not args.json

    def progress(done: int, total: int) -> None:
        print(f"\r  checking message {done}/{total}", end="", file=sys.stderr, flush=True)

    report = verify_bytes(data, progress=progress if show else None)
    if show:
        print("\r" + " " * 40 + "\r", end="", file=sys.stderr, flush=True)
    if args.json:
        print(json.dumps(report.to_json(), sort_keys=True))
        return EXIT_OK if report.ok else EXIT_INVALID
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
    for s in report.seats:
        print(f"  seat {s['seat']}: {s['fingerprint']}")
    if report.ok:
        print(f"  result: {_describe_result(report.result)}")
        if report.hidden_cards:
            print(f"  {len(report.hidden_cards)} card(s) that stayed hidden decoded with the published deck keys "
                  "(--json lists them)")
    return EXIT_OK if report.ok else EXIT_INVALID


def cmd_simulate(args: argparse.Namespace) -> int:
    from clients.simulate import simulate

    bots = [b.strip() for b in args.bots.split(",") if b.strip()]
    shown = [0]

    def progress(done: int) -> None:
        if not args.quiet and (done == args.games or done - shown[0] >= max(1, args.games // 20)):
            shown[0] = done
            print(f"\r  {done}/{args.games} games", end="", file=sys.stderr, flush=True)

    try:
        options = _parse_options(args.option, args.game, args.players)
        stats = simulate(args.game, args.players, args.games, bots, args.seed, options, progress=progress)
    except (KeyError, ValueError) as exc:
        print(f"caravan simulate: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if not args.quiet:
        print(file=sys.stderr)
    print(f"{stats.games} games of {args.game} with {args.players} players in {stats.seconds:.2f} s: "
          f"{stats.games_per_s:.1f} games/s, {stats.decisions_per_s:,.0f} decisions/s")
    print("wins (shared wins split):")
    for label, wins in sorted(stats.wins.items(), key=lambda kv: -kv[1]):
        print(f"  {label:14s} {wins:8.1f}  {100 * wins / max(1, stats.games):5.1f}%")
    return EXIT_OK


def _parse_options(pairs: list[str], game: str, players: int) -> dict[str, Any]:
    """Game options: the engine's defaults, overridden by KEY=VALUE (values are JSON or text)."""
    options = games.get(game).default_options(players)
    for pair in pairs:
        k, sep, v = pair.partition("=")
        if not sep:
            raise ValueError(f"option {pair!r} is not KEY=VALUE")
        try:
            options[k] = json.loads(v)
        except ValueError:
            options[k] = v
    return options


def _seat(args: argparse.Namespace):
    from pathlib import Path

    from .runner import Seat, Status, check_decider
    from .store import default_data_dir

    seat = Seat(Path(args.data_dir) if args.data_dir else default_data_dir(), args.bind, args.port,
                args.bot, args.bot_cmd, args.client, Path(args.out) if args.out else None, args.seed,
                Status(args.json, args.quiet), args.bot_delay, Path(args.trace) if args.trace else None)
    seat.think, seat.iterations = args.think, args.iterations
    check_decider(seat)
    return seat


def _run_node(args: argparse.Namespace, make) -> int:
    import trio

    from .lobby import LobbyError

    _logging(args)
    try:
        seat = _seat(args)
    except ValueError as exc:
        print(f"caravan {args.command}: {exc}", file=sys.stderr)
        return EXIT_USAGE
    try:
        result = trio.run(make, seat)
    except (LobbyError, LookupError, ValueError, OSError) as exc:
        print(f"caravan {args.command}: {exc}", file=sys.stderr)
        return EXIT_INVALID
    except KeyboardInterrupt:
        print(f"caravan {args.command}: interrupted; resume with caravan resume GAME_ID", file=sys.stderr)
        return 130
    return EXIT_OK if result is not None else EXIT_INVALID


def _logging(args: argparse.Namespace) -> None:
    import logging
    level = logging.DEBUG if args.verbose >= 2 else logging.INFO if args.verbose else logging.WARNING
    logging.basicConfig(level=level, stream=sys.stderr, format="%(asctime)s %(name)s %(levelname)s %(message)s")


def cmd_host(args: argparse.Namespace) -> int:
    from . import runner

    try:
        options = _parse_options(args.option, args.game, args.players)
    except (KeyError, ValueError) as exc:
        print(f"caravan host: {exc}", file=sys.stderr)
        return EXIT_USAGE
    return _run_node(args, lambda seat: runner.host(args.game, args.players, options, seat,
                                                     announce=not args.no_discovery,
                                                     discovery_target=args.discovery_addr,
                                                     discovery_port=args.discovery_port,
                                                     time_limit=args.time_limit))


def cmd_join(args: argparse.Namespace) -> int:
    from . import runner
    return _run_node(args, lambda seat: runner.join(args.target, seat, args.discovery_port,
                                                     args.discovery_bind, args.wait, args.via))


def cmd_resume(args: argparse.Namespace) -> int:
    from . import runner
    return _run_node(args, lambda seat: runner.resume(args.game_id, seat))


def cmd_discover(args: argparse.Namespace) -> int:
    import trio

    from . import discovery

    try:
        found = trio.run(lambda: discovery.discover(args.wait, args.discovery_port, args.discovery_bind,
                                                    via=args.via))
    except ValueError as exc:
        print(f"caravan discover: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if args.json:
        for a in found:
            print(json.dumps(a.__dict__, sort_keys=True))
    elif not found:
        print(f"no open lobbies heard on UDP port {args.discovery_port} in {args.wait:g} s", file=sys.stderr)
    else:
        for a in found:
            print(a.describe())
    return EXIT_OK


def cmd_demo(args: argparse.Namespace) -> int:
    from .demo import run_demo
    return run_demo(args)


def _node_args(p: argparse.ArgumentParser) -> None:
    d = p.add_argument_group("how this seat decides (choose one)")
    d.add_argument("--bot", choices=["random", "heuristic", "search"], help="an in-process bot")
    d.add_argument("--think", type=float, default=1.0, metavar="SECONDS", help="--bot search: time per decision")
    d.add_argument("--iterations", type=int, metavar="N", help="--bot search: iterations per decision instead")
    d.add_argument("--bot-cmd", metavar="COMMAND", help='a bot program speaking the client API on stdin/stdout, '
                                                       'e.g. "python -m clients.stdio_bot random"')
    d.add_argument("--client", metavar="terminal|stdio|tcp:PORT",
                   help="terminal: you decide at this terminal; stdio: a program speaking the client API on this "
                        "process's stdin/stdout; tcp:PORT: one such client on 127.0.0.1:PORT (specs/client-api.md)")
    n = p.add_argument_group("node")
    n.add_argument("--data-dir", help="where keys and games are kept (default: the user data directory)")
    n.add_argument("--bind", default="0.0.0.0", help="address to listen on (default: all)")
    n.add_argument("--port", type=int, default=0, help="TCP port to listen on (default: any free port)")
    n.add_argument("--out", help="also write the transcript to this file at the end")
    n.add_argument("--seed", type=int, help="seed for the bot's own choices (not for the game's dice)")
    n.add_argument("--bot-delay", type=float, default=0.0, metavar="SECONDS",
                   help="let an in-process bot think this long per decision (to watch a game)")
    n.add_argument("--json", action="store_true", help="JSON lines on stdout instead of human status on stderr")
    n.add_argument("--trace", metavar="FILE", help="append message sign/apply times to FILE (for benchmarks)")
    n.add_argument("-q", "--quiet", action="store_true", help="no human status output")
    n.add_argument("-v", "--verbose", action="count", default=0, help="debug logs on stderr (-vv: more)")


def _discovery_args(p: argparse.ArgumentParser) -> None:
    from .discovery import DISCOVERY_PORT
    p.add_argument("--discovery-port", type=int, default=DISCOVERY_PORT, help="UDP port of lobby announcements")
    p.add_argument("--discovery-bind", default="0.0.0.0", help="address to listen for announcements on")
    p.add_argument("--wait", type=float, default=3.0, help="seconds to listen for announcements")
    p.add_argument("--via", choices=["udp", "mdns", "both"], default="both",
                   help="UDP beacon, mDNS/DNS-SD (needs python-zeroconf), or both (default)")


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="caravan", description="Serverless, verifiable board games on a LAN.")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    v = sub.add_parser("verify", help="check a finished game's signed transcript",
                       description="Replay a .caravan transcript and check every signature, proof and rule. "
                                   "Exit 0: valid and finished; 1: invalid or unfinished; 2: unreadable file "
                                   "or bad usage.")
    v.add_argument("file", help="the .caravan transcript")
    v.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    v.set_defaults(func=cmd_verify)
    s = sub.add_parser("simulate", help="play many engine-only games among bots (no network, no crypto)")
    s.add_argument("game", help=f"one of: {', '.join(games.names()) or 'none installed'}")
    s.add_argument("--players", type=int, default=4)
    s.add_argument("--games", type=int, default=100)
    s.add_argument("--bots", default="random", help="comma-separated bot kinds per seat: random, heuristic")
    s.add_argument("--seed", type=int, default=0)
    s.add_argument("--option", "-o", action="append", default=[], metavar="KEY=VALUE",
                   help="a game option (e.g. -o powers=true for Sabbat Magica's POWER cards)")
    s.add_argument("-q", "--quiet", action="store_true", help="no progress output")
    s.set_defaults(func=cmd_simulate)

    h = sub.add_parser("host", help="open a lobby on this machine and play when every seat is taken",
                       description="Open a lobby for GAME, announce it on the LAN, and start when PLAYERS have "
                                   "joined and signed the genesis. The host has no special power afterwards.")
    h.add_argument("game", help=f"one of: {', '.join(games.names()) or 'none installed'}")
    h.add_argument("--players", type=int, required=True)
    h.add_argument("--option", "-o", action="append", default=[], metavar="KEY=VALUE", help="a game option")
    h.add_argument("--time-limit", type=int, default=300, metavar="SECONDS",
                   help="how long a player may take for a move before the others may end the game as "
                        "abandoned by that player (0: no limit; default 300)")
    h.add_argument("--no-discovery", action="store_true", help="do not announce the lobby on the LAN")
    h.add_argument("--discovery-addr", default="255.255.255.255", help="where to send announcements")
    h.add_argument("--discovery-port", type=int, default=47474)
    _node_args(h)
    h.set_defaults(func=cmd_host)

    j = sub.add_parser("join", help="take a seat in a lobby (found on the LAN, or at HOST:PORT)")
    j.add_argument("target", nargs="?", help="HOST:PORT, or a lobby id (prefix) from caravan discover; "
                                             "default: the only open lobby")
    _discovery_args(j)
    _node_args(j)
    j.set_defaults(func=cmd_join)

    r = sub.add_parser("resume", help="restart a stored game after a crash and continue it")
    r.add_argument("game_id", help="the game id, or a unique prefix of it")
    _node_args(r)
    r.set_defaults(func=cmd_resume)

    d = sub.add_parser("discover", help="list open lobbies on the LAN")
    _discovery_args(d)
    d.add_argument("--json", action="store_true", help="one JSON object per lobby")
    d.set_defaults(func=cmd_discover)

    m = sub.add_parser("demo", help="play a whole game among bots, one OS process per player, on loopback")
    m.add_argument("game", nargs="?", default=None, help="the game (default: the first available)")
    m.add_argument("--players", type=int, default=None)
    m.add_argument("--out", help="transcript file (default: demo-GAME.caravan)")
    m.add_argument("--seed", type=int, default=0, help="seed for the bots' choices")
    m.add_argument("--bot", choices=["random", "heuristic"], default="heuristic")
    m.add_argument("--option", "-o", action="append", default=[], metavar="KEY=VALUE")
    m.set_defaults(func=cmd_demo)

    from clients import tournament
    tournament.add_parser(sub)
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
    _load_extra_engines()
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return EXIT_USAGE if exc.code else EXIT_OK
    if not getattr(args, "func", None):
        parser.print_help()
        return EXIT_USAGE
    return args.func(args)
