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
    report = verify_bytes(data)
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
        stats = simulate(args.game, args.players, args.games, bots, args.seed, progress=progress)
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
    s.add_argument("-q", "--quiet", action="store_true", help="no progress output")
    s.set_defaults(func=cmd_simulate)
    return p


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return EXIT_USAGE if exc.code else EXIT_OK
    if not getattr(args, "func", None):
        parser.print_help()
        return EXIT_USAGE
    return args.func(args)
