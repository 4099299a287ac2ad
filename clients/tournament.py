"""`caravan tournament`: many engine-only games among bots, with standings and ratings.

    caravan tournament GAME --players 4 --bots search,heuristic --games 40 --jobs 2
    caravan tournament GAME --players 3 --bots heuristic,'cmd:python mybot.py' --json
    caravan tournament GAME --players 4 --bots search,heuristic --games 400 --ray HEAD:6379

Each entry of `--bots` is a bot kind (random, heuristic, search) or `cmd:COMMAND`, a program
speaking the client API (specs/client-api.md) on stdin/stdout, started once per game. Games
cycle through every lineup of `players` entries (all combinations when there are more
entries than seats; when there are fewer, they are repeated to fill the seats and each copy
is a bot of its own in the standings) and every seat rotation of it, so no
entry keeps a seat. A crashing, misbehaving or timed-out external bot loses that game (the
others share the win) and the tournament goes on. Standings: games, wins (a shared win is
split), mean score, and a Plackett-Luce rating with its uncertainty (openskill). `--jobs N`
plays N games at once on this machine, `--ray` on a Ray cluster (clients/tournament_ray.py):
the same games with the same seeds, so the same standings.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import selectors
import shlex
import subprocess
import sys
import time
from dataclasses import dataclass, field
from typing import Any

from protocol import engine as E
from protocol import games
from protocol.referee import Referee

from . import game_options, narrate, rating
from .api_json import to_json
from .bot import Bot, make_bot

EXTERNAL_TIMEOUT = 10.0        # seconds an external bot may take to answer one decision
KINDS = ("random", "heuristic", "search")


class BotFailure(Exception):
    """An external bot crashed, went silent, or answered nonsense; `seat` loses the game."""

    def __init__(self, seat: int, why: str):
        super().__init__(f"seat {seat}: {why}")
        self.seat = seat


class ExternalBot(Bot):
    """A program speaking the client API, driven synchronously for engine-only play."""

    def __init__(self, command: str, game: str, seat: int, players: int, options: dict[str, Any],
                 timeout: float = EXTERNAL_TIMEOUT):
        super().__init__(seat)
        self.to_json, self.seat, self.timeout, self.decision = to_json, seat, timeout, 0
        try:
            self.proc = subprocess.Popen(shlex.split(command), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=subprocess.DEVNULL, text=True, bufsize=1)
        except (OSError, ValueError) as exc:
            raise BotFailure(seat, f"cannot start {command!r}: {exc}") from None
        self.selector = selectors.DefaultSelector()
        self.selector.register(self.proc.stdout, selectors.EVENT_READ)
        self._send({"type": "hello", "game": game, "title": games.get(game).title, "seat": seat,
                    "seats": players, "options": options, "time_limit": int(timeout), "game_id": ""})

    def _send(self, msg: dict[str, Any]) -> None:
        try:
            self.proc.stdin.write(json.dumps(self.to_json(msg), separators=(",", ":")) + "\n")
            self.proc.stdin.flush()
        except (OSError, ValueError):
            raise BotFailure(self.seat, "its input is closed (it crashed?)") from None

    def choose_kind(self, view: Any, legal: list[Any], kind: str, texts: list[str]) -> Any:
        self.decision += 1
        self._send({"type": "decide", "decision": self.decision, "kind": kind, "view": view,
                    "actions": [{"id": i, "action": a, "text": t} for i, (a, t) in enumerate(zip(legal, texts))]})
        deadline = time.monotonic() + self.timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or not self.selector.select(left):
                raise BotFailure(self.seat, f"no answer in {self.timeout:g} s")
            line = self.proc.stdout.readline()
            if not line:
                raise BotFailure(self.seat, "it exited")
            try:
                answer = json.loads(line)
            except ValueError:
                answer = None
            if (isinstance(answer, dict) and answer.get("type") == "act" and answer.get("decision") == self.decision
                    and type(answer.get("action")) is int and 0 <= answer["action"] < len(legal)):
                return legal[answer["action"]]
            self._send({"type": "error", "message": f"expected {{\"type\": \"act\", \"decision\": "
                                                    f"{self.decision}, \"action\": 0..{len(legal) - 1}}}"})

    def close(self, result: Any = None) -> None:
        try:
            if result is not None:
                self._send({"type": "result", "result": result})
            self.proc.stdin.close()
        except (BotFailure, OSError, ValueError):
            pass
        try:
            self.proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.selector.close()


def check_entry(entry: str) -> str:
    """A --bots entry, or ValueError with a readable reason."""
    if entry.startswith("cmd:"):
        command = entry[4:].strip().strip('"').strip("'")
        if not command:
            raise ValueError("cmd: needs a command, e.g. cmd:\"python mybot.py\"")
        return "cmd:" + command
    if entry not in KINDS:
        raise ValueError(f"unknown bot {entry!r} (use {', '.join(KINDS)} or cmd:\"COMMAND\")")
    return entry


def labels_for(entries: list[str]) -> list[str]:
    """Names for the standings: the entry itself, numbered when an entry repeats."""
    counts: dict[str, int] = {}
    out = []
    for e in entries:
        counts[e] = counts.get(e, 0) + 1
        out.append(e if entries.count(e) == 1 else f"{e}#{counts[e]}")
    return out


def fill(entries: list[str], players: int) -> list[str]:
    """Fewer entries than seats: repeat them in turn (each copy gets its own standing)."""
    return entries if len(entries) >= players else (entries * players)[:players]


def schedule(entries: int, players: int, count: int) -> list[list[int]]:
    """For each game, the entry index of every seat: lineups round-robin, seats rotated."""
    lineups = [list(c) for c in itertools.combinations(range(entries), players)]
    out = []
    for g in range(count):
        lineup = lineups[g % len(lineups)]
        shift = (g // len(lineups)) % players
        out.append(lineup[shift:] + lineup[:shift])
    return out


@dataclass
class GameJob:
    game: str
    players: int
    options: dict[str, Any]
    seed: int
    index: int
    seats: list[int]            # entry index per seat
    entries: list[str]
    think: float
    iterations: int | None
    timeout: float = EXTERNAL_TIMEOUT


def _referee(job: GameJob) -> Referee:
    return Referee(games.get(job.game), job.players, job.options, seed=job.seed * 1_000_003 + job.index)


def play_one(job: GameJob) -> dict[str, Any]:
    """Play one game; returns {"seats", "winners", "scores", "failed", "moves"} (failed: a seat
    or None; moves: the index in the legal actions of every decision, in order: the game's
    record, from which `check_result` plays it again)."""
    engine = games.get(job.game)
    bots: list[Bot] = []
    moves: list[int] = []
    externals: list[ExternalBot] = []
    try:
        for seat, e in enumerate(job.seats):
            entry = job.entries[e]
            if entry.startswith("cmd:"):
                bot = ExternalBot(entry[4:], job.game, seat, job.players, job.options, job.timeout)
                externals.append(bot)
            else:
                bot = make_bot(entry, job.game, job.seed * 1_000_003 + job.index * 7 + seat,
                               think=job.think, iterations=job.iterations)
            bots.append(bot)
        ref = _referee(job)

        def decide(seat: int, legal: list[Any], referee: Referee) -> Any:
            bot = bots[seat]
            if isinstance(bot, ExternalBot):
                step = engine.expected(referee.state)
                kind = "commit" if isinstance(step, E.Commit) else "return" if isinstance(step, E.DeckReturn) else "act"
                view = referee.view(seat)
                texts = [m["text"] for m in narrate.moves(job.game, view, legal, seat)]
                return bot.choose_kind(bot.to_json(view), legal, kind, texts)
            return bot.choose(referee.view(seat) if bot.wants_view else None, legal)

        def choose(seat: int, legal: list[Any], referee: Referee) -> Any:
            action = decide(seat, legal, referee)
            moves.append(legal.index(action))
            return action

        result = ref.play(choose)
        out = {"seats": job.seats, "winners": list(result["winners"]), "scores": list(result["scores"]),
               "failed": None, "moves": moves}
    except BotFailure as failure:
        others = [s for s in range(job.players) if s != failure.seat]
        out = {"seats": job.seats, "winners": others, "scores": None, "failed": failure.seat,
               "why": str(failure), "moves": moves}
    finally:
        for bot in externals:
            bot.close()
    return out


class _RecordEnds(Exception):
    def __init__(self, seat: int):
        self.seat = seat


class _NotLegal(Exception):
    pass


def check_result(job: GameJob, result: Any) -> str | None:
    """Why `result`, returned for `job` by a worker this process does not trust (a Ray task),
    is not the game its moves make, or None when it is: the game is played again here from the
    job's seed with the recorded moves (the engine alone, no bot thinks), and its winners and
    scores must be the ones claimed. A record that stops early is taken only as a program bot
    (`cmd:`) failing at its own decision, the others sharing the win."""
    if type(result) is not dict:
        return "it returned no game result"
    moves = result.get("moves")
    if type(moves) is not list or any(type(m) is not int for m in moves):
        return "it holds no record of the game's moves"
    if result.get("seats") != job.seats:
        return "it is the result of another lineup"
    record = iter(moves)

    def replay(seat: int, legal: list[Any], referee: Referee) -> Any:
        k = next(record, None)
        if k is None:
            raise _RecordEnds(seat)
        if not 0 <= k < len(legal):
            raise _NotLegal(f"its move {referee.decisions} ({k}) is not one of seat {seat}'s {len(legal)} legal moves")
        return legal[k]

    try:
        played = _referee(job).play(replay)
        claim = {"winners": list(played["winners"]), "scores": list(played["scores"]), "failed": None}
        if next(record, None) is not None:
            return f"it holds more moves than the game takes ({len(moves)})"
    except _RecordEnds as end:
        if not job.entries[job.seats[end.seat]].startswith("cmd:"):
            return f"its record stops after {len(moves)} moves, at seat {end.seat}, a bot that cannot fail"
        claim = {"winners": [s for s in range(job.players) if s != end.seat], "scores": None, "failed": end.seat}
    except _NotLegal as exc:
        return str(exc)
    except (E.IllegalAction, RuntimeError) as exc:
        return f"its moves do not replay ({exc})"
    got = {k: result.get(k) for k in claim}
    if got != claim:
        return f"it claims {got}, but its moves give {claim}"
    return None


@dataclass
class Standing:
    bot: str
    games: int = 0
    wins: float = 0.0
    score_sum: float = 0.0
    scored: int = 0
    failures: int = 0
    rating: Any = None

    @property
    def mean_score(self) -> float:
        return self.score_sum / self.scored if self.scored else 0.0

    def line(self) -> dict[str, Any]:
        return {"type": "standing", "bot": self.bot, "games": self.games, "wins": round(self.wins, 4),
                "win_share": round(self.wins / self.games, 4) if self.games else 0.0,
                "mean_score": round(self.mean_score, 3), "rating": round(self.rating.mu, 3),
                "rating_sigma": round(self.rating.sigma, 3)}


@dataclass
class Tournament:
    """Results folded in one game at a time, in game order (so ratings do not depend on --jobs)."""
    labels: list[str]
    standings: list[Standing] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.model = rating.model()
        self.standings = [Standing(label, rating=self.model.rating(name=label)) for label in self.labels]

    def add(self, game: dict[str, Any]) -> None:
        seats, winners, scores = game["seats"], game["winners"], game["scores"]
        for seat, e in enumerate(seats):
            st = self.standings[e]
            st.games += 1
            if seat in winners:
                st.wins += 1 / len(winners)
            if scores is not None:
                st.score_sum += scores[seat]
                st.scored += 1
            if seat == game["failed"]:
                st.failures += 1
        ranks = rating.ranks(len(seats), winners, scores, game["failed"])   # a failed seat last
        new = self.model.rate([[self.standings[e].rating] for e in seats], ranks=ranks)
        for e, team in zip(seats, new):
            self.standings[e].rating = team[0]


def run(game: str, players: int, entries: list[str], count: int, seed: int = 0, jobs: int = 1,
        options: dict[str, Any] | None = None, think: float = 1.0, iterations: int | None = None,
        timeout: float = EXTERNAL_TIMEOUT, progress=None, ray: str | None = None,
        say=lambda text: None) -> Tournament:
    """Play the tournament; `progress(done, total)` is called after each game. `ray`: play the
    games on that Ray cluster instead ("" for the one on this machine); `say(text)` hears what
    the cluster runner has to tell (its size, a game played again after a lost worker)."""
    engine = games.get(game)
    if not engine.min_players <= players <= engine.max_players:
        raise ValueError(f"{engine.title} is for {engine.min_players}-{engine.max_players} players")
    if not entries:
        raise ValueError("--bots needs at least one bot")
    entries = fill([check_entry(e) for e in entries], players)
    opts = dict(engine.default_options(players), **(options or {}))
    engine.new_game(opts, players)                     # BadOptions now, not in every worker
    plan = schedule(len(entries), players, count)
    jobs_list = [GameJob(game, players, opts, seed, i, seats, entries, think, iterations, timeout)
                 for i, seats in enumerate(plan)]
    tour = Tournament(labels_for(entries))
    results: list[dict[str, Any] | None] = [None] * count
    if ray is not None:
        from .tournament_ray import play_all
        results = play_all(jobs_list, play_one, check_result, ray or None, progress, say)
    elif jobs <= 1:
        for i, job in enumerate(jobs_list):
            results[i] = play_one(job)
            if progress:
                progress(i + 1, count)
    else:
        from concurrent.futures import ProcessPoolExecutor, as_completed   # only for --jobs
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            futures = {pool.submit(play_one, job): i for i, job in enumerate(jobs_list)}
            for done, fut in enumerate(as_completed(futures), 1):
                results[futures[fut]] = fut.result()
                if progress:
                    progress(done, count)
    for r in results:
        tour.add(r)
    return tour


# ---------------------------------------------------------------- the command line

class _GameHelp:
    """The `game` argument's help: the registered games, looked up only when the help is shown
    (every node process builds this parser; reading the registry costs ~30 ms)."""

    def __mod__(self, params: dict[str, Any]) -> str:
        return f"one of: {', '.join(games.names()) or 'none installed'}"

    def strip(self) -> str:
        return "one of the games"


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add `tournament` to caravan's subcommands."""
    t = subparsers.add_parser("tournament", help="rate bots against each other in many engine-only games",
                              description="Play GAMES engine-only games (no network) among the bots, "
                                          "rotating lineups and seats, and print standings with ratings.")
    t.add_argument("game", help=_GameHelp())
    t.add_argument("--players", type=int, default=4)
    t.add_argument("--bots", required=True, metavar="A,B,...",
                   help='comma-separated: random, heuristic, search, or cmd:"COMMAND" (a client-API program)')
    t.add_argument("--games", type=int, default=20)
    t.add_argument("--seed", type=int, default=0)
    where = t.add_mutually_exclusive_group()
    where.add_argument("--jobs", type=int, default=1, help="games played at once, in parallel processes")
    where.add_argument("--ray", nargs="?", const="", metavar="ADDRESS",
                       help="play the games as tasks on a Ray cluster (pip install 'caravan[ray]'): at "
                            "ADDRESS (HOST:PORT), else the one `ray start` runs on this machine")
    t.add_argument("--think", type=float, default=1.0, metavar="SECONDS", help="search bot: time per decision")
    t.add_argument("--iterations", type=int, metavar="N", help="search bot: iterations per decision "
                                                              "(deterministic; overrides --think)")
    t.add_argument("--timeout", type=float, default=EXTERNAL_TIMEOUT, metavar="SECONDS",
                   help="an external bot that takes longer for one decision loses the game")
    t.add_argument("--option", "-o", action="append", default=[], metavar="KEY=VALUE", help="a game option")
    t.add_argument("--json", action="store_true", help="one JSON line per bot instead of a table")
    t.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    t.set_defaults(func=command)
    return t


def split_bots(text: str) -> list[str]:
    """Split --bots on commas outside quotes (a cmd: entry may hold commas in quotes)."""
    lexer = shlex.shlex(text, posix=True)
    lexer.whitespace, lexer.whitespace_split = ",", True
    return [part.strip() for part in lexer if part.strip()]


def command(args: argparse.Namespace) -> int:
    def usage(message: str) -> int:
        print(f"caravan tournament: {message}", file=sys.stderr)
        return 2

    try:
        entries = split_bots(args.bots)
        if args.games < 1 or args.jobs < 1:
            raise ValueError("--games and --jobs must be at least 1")
        if args.iterations is not None and args.iterations < 1:
            raise ValueError("--iterations must be at least 1")
        if args.think <= 0 or args.timeout <= 0:
            raise ValueError("--think and --timeout must be more than 0 seconds")
        for e in entries:
            check_entry(e)
        engine = games.get(args.game)
        if not engine.min_players <= args.players <= engine.max_players:
            raise ValueError(f"{engine.title} is for {engine.min_players}-{engine.max_players} players, "
                             f"not {args.players}")
        options = game_options.parse(engine, args.option, args.players)
    except E.BadOptions as exc:
        return usage(f"bad options: {exc}")
    except KeyError as exc:
        return usage(str(exc))
    except ValueError as exc:
        return usage(str(exc))
    jobs = min(args.jobs, os.cpu_count() or 1, args.games)
    run_args = (args.game, args.players, entries, args.games, args.seed, jobs, options, args.think,
                args.iterations, args.timeout)
    extra = {"ray": args.ray, "say": lambda text: print(f"caravan tournament: {text}", file=sys.stderr)}
    from .tournament_ray import RayUnavailable
    try:
        tour = _run_with_progress(args, run_args, extra)
    except RayUnavailable as exc:                 # the Ray cluster: missing, unreachable, lost
        print(f"caravan tournament: {exc}", file=sys.stderr)
        return 1
    standings = sorted(tour.standings, key=lambda s: -s.rating.mu)
    if args.json:
        for s in standings:
            print(json.dumps(s.line()))
    else:
        print_table(args.game, args.players, standings)
    return 0


def _run_with_progress(args: argparse.Namespace, run_args: tuple, extra: dict[str, Any]) -> Tournament:
    """run(), with a progress bar on a terminal."""
    if args.quiet or args.json or not sys.stderr.isatty():
        return run(*run_args, **extra)
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                  console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task(f"{args.game} {args.players}p", total=args.games)
        return run(*run_args, progress=lambda done, total: bar.update(task, completed=done), **extra)


def print_table(game: str, players: int, standings: list[Standing]) -> None:
    from rich.console import Console
    from rich.table import Table
    table = Table(title=f"{games.get(game).title}, {players} players")
    for name in ("bot", "games", "wins", "win share", "mean score", "rating", "failures"):
        table.add_column(name, justify="left" if name == "bot" else "right")
    for s in standings:
        line = s.line()
        table.add_row(s.bot, str(s.games), f"{s.wins:g}", f"{line['win_share']:.1%}", f"{s.mean_score:.1f}",
                      f"{s.rating.mu:.1f} ± {s.rating.sigma:.1f}", str(s.failures))
    Console().print(table)
