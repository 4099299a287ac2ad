"""The bot nodes seated with a person (`host --with-bots`, the home's New table): each is a
`caravan` process of its own, bound to the person's node by a pipe so that it pauses with
it; while the game runs a BotKeeper starts again one that stops."""

from __future__ import annotations

import logging
import signal
import sys
import time
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import trio

from . import lobby
from .runner import Seat
from ..storage.store import load_identity, write_private

log = logging.getLogger("caravan.bots")


LINGER_BOTS = 10.0
"""How long `host --with-bots` waits for its bot nodes to finish after the game."""


def _bot_process(args: list[str], home: Path) -> Any:
    """A bot node bound to this process: its stdin is a pipe from here, and it pauses (exit
    130) when the pipe closes: when this node pauses or dies, so that it never co-signs an
    abandon record against its paused person (`--with-parent`)."""
    import subprocess

    loud = ["-v"] if log.isEnabledFor(logging.INFO) else []      # this node runs with -v: its bots too
    with (home / "node.log").open("ab") as errors:
        proc = subprocess.Popen([sys.executable, "-m", "node", *args, "--bind", "127.0.0.1", "--data-dir", str(home),
                                 "-q", *loud, "--with-parent"],
                                stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=errors,
                                start_new_session=True)
    proc.caravan_args = args                           # what it was started with (BotKeeper starts it again)
    return proc


def start_bots(kinds: list[str], port: int | str, seat: Seat) -> list[Any]:
    """`host --with-bots`: each bot seat is a full node of its own (an OS process joining this
    lobby on loopback, or with the invite through the relay), exactly as if a friend had
    joined with `caravan join --bot KIND`. A broker's login goes to each bot in a 0600 file
    of its own data dir, never on its command line."""
    procs = []
    target = port if isinstance(port, str) else f"127.0.0.1:{port}"
    seat.bot_homes, seat.bot_kinds = [], list(kinds)
    for i, kind in enumerate(kinds, start=1):
        home = (seat.data_dir / "bots" / f"bot{i}").resolve()
        home.mkdir(parents=True, exist_ok=True)
        seed = [] if seat.seed is None else ["--seed", str(seat.seed + i)]
        auth: list[str] = []
        if seat.relay is not None and seat.relay.username is not None:
            write_private(home / "relay-auth", f"{seat.relay.username}:{seat.relay.password or ''}\n".encode())
            auth = ["--relay-auth", str(home / "relay-auth")]
        kind, _, think = kind.partition("@")                  # the home's "search@SECONDS"
        if think:
            seed += ["--think", think]
        number = i
        bot_key = load_identity(home).public                  # made now (the bot reads it): a page names it a bot
        seat.bot_keys[bot_key] = kind
        if seat.bot_seats is not None and i <= len(seat.bot_seats):     # the lobby seats it there
            number = seat.bot_seats[i - 1]
            seat.bot_places[bot_key] = number
        procs.append(_bot_process(["join", target, "--bot", kind, "--name", f"{kind} bot {number}", *seed, *auth],
                                  home))
        seat.bot_homes.append(str(home))
    return procs


def resume_bots(game_id: str, homes: list[str]) -> list[Any]:
    """The bot nodes seated with this person come back with it (each resumes with its own
    remembered settings)."""
    procs = []
    for home in homes:
        path = Path(home)
        if (path / "games").is_dir() and any((path / "games").glob(f"{game_id}*")):
            procs.append(_bot_process(["resume", game_id], path))
    return procs


def stop_bots(helpers: list[Any]) -> None:
    """This node pauses: its bots pause with it (their stdin closes; they stop cleanly)."""
    for proc in helpers:
        try:
            if proc.stdin is not None:
                proc.stdin.close()
        except OSError:
            pass


@contextmanager
def pause_with_me(helpers: list[Any]):
    """If this node stops before the game ends (^C, an error, the home closing), its bots stop too."""
    try:
        yield
    except BaseException:
        stop_bots(helpers)
        raise


BOT_RESTARTS = 3
"""How often in a row a bot node seated with a person is started again after it stops during
the game (each run of at least BOT_STEADY s starts the count again) before the person's node
ends the game with one line naming it."""
BOT_STEADY = 60.0


class BotStopped(lobby.LobbyError):
    """A bot node seated with this person stops again and again: the game stops, naming it
    (`caravan resume`, the home's Continue, starts it once more)."""


class BotKeeper:
    """Watches the bot nodes seated with this person while the lobby and the game run. One that
    exits before the game is over (killed, or failed: the last line of its log says why) is
    started again — `caravan resume GAME` in its data dir once it holds the game, else its
    `join` again — and the person's status (the home's table log) says so; after BOT_RESTARTS
    quick failures in a row it raises BotStopped naming the bot and its last line. `helpers`
    (the Popen list the caller holds) is updated in place."""

    def __init__(self, helpers: list[Any], seat: Seat, game_id: str | None = None):
        self.helpers, self.seat, self.game_id = helpers, seat, game_id
        self.failures = [0] * len(helpers)
        self.started = [time.monotonic()] * len(helpers)
        self.marks = [_log_size(_bot_home(p)) for p in helpers]
        self._wake = trio.Event()

    def revive(self) -> None:
        """Continue on a running table: every bot that is gone starts again now, counts reset."""
        self.failures = [0] * len(self.helpers)
        self._wake.set()

    async def watch(self) -> None:
        while True:
            for i, proc in enumerate(self.helpers):
                if proc.poll() is None or proc.returncode == 0:
                    continue                              # running, or done with its game
                home = _bot_home(proc)
                why = _exit_reason(proc.returncode, _log_tail(home, self.marks[i]))
                name = f"bot {home.name.removeprefix('bot')}" if home.name.startswith("bot") else str(home)
                if time.monotonic() - self.started[i] >= BOT_STEADY:
                    self.failures[i] = 0
                if self.failures[i] >= BOT_RESTARTS:
                    raise BotStopped(f"{name} stopped ({why}) {BOT_RESTARTS + 1} times; the game stops here "
                                     f"(its log: {home / 'node.log'})")
                self.failures[i] += 1
                game_id = self.game_id or self.seat.game_id
                args = (["resume", game_id] if game_id and (home / "games" / game_id).is_dir()
                        else proc.caravan_args)
                self.seat.status(f"{name} stopped ({why}); starting it again "
                                 f"({self.failures[i]}/{BOT_RESTARTS})", "warning", bot=str(home))
                self.marks[i] = _log_size(home)
                self.started[i] = time.monotonic()
                if proc.stdin is not None:
                    try:
                        proc.stdin.close()
                    except OSError:
                        pass
                self.helpers[i] = _bot_process(args, home)
            self._wake = trio.Event()
            with trio.move_on_after(0.2):
                await self._wake.wait()


def _bot_home(proc: Any) -> Path:
    args = list(proc.args)
    return Path(args[args.index("--data-dir") + 1])


def _log_size(home: Path) -> int:
    try:
        return (home / "node.log").stat().st_size
    except OSError:
        return 0


def _log_tail(home: Path, since: int) -> str:
    """The last line a bot node wrote to its log since `since` (its error line, when it failed)."""
    try:
        with (home / "node.log").open("rb") as fh:
            fh.seek(max(since, fh.seek(0, 2) - 4096))
            lines = [line.strip() for line in fh.read().decode("utf-8", "replace").splitlines() if line.strip()]
    except OSError:
        return ""
    return lines[-1][:800] if lines else ""


def _exit_reason(code: int, line: str) -> str:
    if code < 0:
        try:
            what = f"killed by {signal.Signals(-code).name}"
        except ValueError:
            what = f"killed by signal {-code}"
    else:
        what = f"exit {code}"
    return f"{what}: {line}" if line else what


@asynccontextmanager
async def keep_bots(helpers: list[Any], seat: Seat, game_id: str | None = None):
    """While the block runs, a BotKeeper restarts the bots that stop; when it ends, wait for
    them to finish too; if this node stops first (^C, an error, the home closing), they pause."""
    if not helpers:
        yield
        return
    keeper = BotKeeper(helpers, seat, game_id)
    seat.bots = keeper
    try:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(keeper.watch)
            yield
            nursery.cancel_scope.cancel()
        seat.bots = None
        await wait_for_bots(helpers)
    except BaseException:
        stop_bots(helpers)
        raise
    finally:
        seat.bots = None


async def wait_for_bots(helpers: list[Any]) -> None:
    """The bot nodes end with the game; if this node is interrupted instead, they stay and wait
    for `caravan resume` (or name this seat in an abandon record after the time limit)."""
    with trio.move_on_after(LINGER_BOTS):
        while any(proc.poll() is None for proc in helpers):
            await trio.sleep(0.1)
    for proc in helpers:
        if proc.poll() is None:
            proc.terminate()
    stop_bots(helpers)                            # close our ends of their pipes (a home runs for days)
