"""Helpers for the stall, crash and store-fault tests: a game of node processes on
loopback, and the one check every such test ends with."""

from __future__ import annotations

import json
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from protocol.verify import verify_bytes
from tests.helpers import timeout as scaled
from tests.node.procs import node, read_until


@dataclass
class Game:
    procs: list[subprocess.Popen]
    dirs: list[Path]
    logs: list[Path]
    game_id: str
    common: list[list[str]]
    port: int = 0
    """The host's game port (a spectator's HOST:PORT)."""

    def transcript(self, seat: int) -> bytes:
        return (self.dirs[seat] / "games" / self.game_id / "transcript.caravan").read_bytes()

    def store(self, seat: int) -> Path:
        return self.dirs[seat] / "games" / self.game_id

    def kill_all(self) -> None:
        for p in self.procs:
            if p.poll() is None:
                p.send_signal(signal.SIGCONT)
                p.kill()
                p.wait(timeout=10)

    def tails(self) -> str:
        return "\n".join(f"--- seat {i}\n{log.read_text()[-1500:]}" for i, log in enumerate(self.logs))


def start(tmp: Path, n: int = 3, rounds: int = 6, time_limit: int = 2, delays: list[float] | None = None,
          data_dirs: list[Path] | None = None, prefixes: dict[int, list[str]] | None = None) -> Game:
    """Host and join an n-seat fixture game (random bots) on loopback; returns once the
    genesis is signed. `prefixes`: process index (0: the host) -> a command to run that
    node under (e.g. faketime)."""
    tmp.mkdir(parents=True, exist_ok=True)
    delays = delays or [0.03] * n
    dirs = data_dirs or [tmp / f"n{i}" for i in range(n)]
    logs = [tmp / f"n{i}.log" for i in range(n)]
    common = [["-v", "--bot", "random", "--bind", "127.0.0.1", "--bot-delay", str(delays[i]), "--seed", str(i)]
              for i in range(n)]
    host = node(["host", "fixture", "--players", str(n), "-o", f"rounds={rounds}", "--no-discovery",
                 "--time-limit", str(time_limit), *common[0]], dirs[0], logs[0])
    procs = [host]
    try:
        port = read_until(host, "lobby")["port"]
        for i in range(1, n):
            procs.append(node(["join", f"127.0.0.1:{port}", *common[i]], dirs[i], logs[i],
                              prefix=(prefixes or {}).get(i)))
        game_id = read_until(host, "genesis")["game_id"]
        seats = [0] + [read_until(p, "start")["seat"] for p in procs[1:]]
    except BaseException:
        for p in procs:
            p.kill()
        raise
    # joiners take seats in the order they reach the lobby: index everything by seat
    by_seat = sorted(range(n), key=lambda i: seats[i])
    return Game([procs[i] for i in by_seat], [dirs[i] for i in by_seat], [logs[i] for i in by_seat], game_id,
                [common[i] for i in by_seat], port)


def collect(proc: subprocess.Popen, deadline: float) -> tuple[int, list[dict]]:
    """Exit code and JSON lines of a node, waiting until `deadline` (time.monotonic; make it
    with tests.helpers.timeout) at most; a node still running then is killed and reported as
    -9 (a hang: one_truth and the callers' code checks fail on it)."""
    try:
        proc.wait(timeout=max(0.1, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        return -9, []
    out = proc.stdout.read()
    lines = []
    for line in (out or "").splitlines():
        try:
            lines.append(json.loads(line))
        except ValueError:
            pass
    return proc.returncode, lines


def one_truth(game: Game, seats: list[int], codes: list[int], stalled: int | None) -> str:
    """The nodes in `seats` end with the byte-identical transcript, which verifies: either
    a complete game (every exit 0) or the abandon record naming `stalled` (every exit 1).
    Returns "complete" or "abandoned"."""
    assert -9 not in codes, f"a node hung past the bound\n{game.tails()}"
    files = [game.transcript(s) for s in seats]
    assert len(set(files)) == 1, f"two different transcripts of one game\n{game.tails()}"
    report = verify_bytes(files[0])
    assert report.valid, (report.error, game.tails())
    if report.complete:
        assert set(codes) == {0}, (codes, game.tails())
        return "complete"
    assert report.error["code"] == "abandoned" and report.abandoned_by == [stalled], (report.error, game.tails())
    assert set(codes) == {1}, (codes, game.tails())
    return "abandoned"


def resume_and_finish(game: Game, seat: int, args: list[str], timeout: float = 60.0) -> None:
    """Resume `seat` with `args`, then every node must finish the game, complete and
    identical, with no equivocation reported anywhere."""
    game.procs[seat] = node(["resume", game.game_id[:12], *args], game.dirs[seat], game.logs[seat])
    deadline = time.monotonic() + scaled(timeout)
    codes = [collect(p, deadline)[0] for p in game.procs]
    assert one_truth(game, list(range(len(game.procs))), codes, stalled=None) == "complete"
    for log in game.logs:
        assert "equivocation" not in log.read_text(), game.tails()
