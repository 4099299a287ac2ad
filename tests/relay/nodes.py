"""Relayed games among real `caravan` processes: the host with --relay, the others joining
with the invite it printed; the checks every relay test makes at the end; and an outsider
on the broker that reads and publishes raw MQTT messages."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Callable

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from node.net.relay_url import parse_relay_url
from tests.helpers import timeout as scaled
from tests.node.procs import ROOT, env, finish, log_tail, node, read_until


class RelayedGame:
    """One host and players-1 joiners, each a `caravan` process with its own data dir."""

    def __init__(self, tmp_path: Path, url: str, game: str, players: int, options: list[str] = (),
                 bot: str = "random", host_args: list[str] = (), join_args: list[str] = (),
                 joiners: int | None = None, bot_delay: float = 0.0):
        self.tmp = tmp_path
        self.dirs = [tmp_path / f"seat{i}" for i in range(players)]
        self.logs = [tmp_path / f"seat{i}.log" for i in range(players)]
        opts = [a for o in options for a in ("-o", o)]
        slow = ["--bot-delay", str(bot_delay)] if bot_delay else []     # a game that lasts long enough to hurt
        host_args, join_args = [*host_args, *slow], [*join_args, *slow]
        self.host = node(["host", game, "--players", str(players), "--bot", bot, "--relay", url, "--seed", "0",
                          "--no-discovery", *opts, *host_args], self.dirs[0], self.logs[0])
        self.lobby = read_until(self.host, "lobby", timeout=20)
        self.invite = read_until(self.host, "invite", timeout=20)["invite"]
        self.bot, self.join_args = bot, list(join_args)
        self.joiners: list = []
        self.procs = [self.host]
        for _ in range(players - 1 if joiners is None else joiners):
            self.add_joiner(self.invite)

    def add_joiner(self, invite: str) -> None:
        """One more `caravan join INVITE` (the invite may carry USER:PASSWORD@)."""
        i = len(self.procs)
        proc = node(["join", invite, "--bot", self.bot, "--seed", str(i), *self.join_args], self.dirs[i],
                    self.logs[i])
        self.joiners.append(proc)
        self.procs.append(proc)

    def wait_started(self, timeout: float = 30) -> str:
        """Every node printed its `start` line (its seat goes into `seats`); returns the game id."""
        starts = [read_until(p, "start", timeout=timeout) for p in self.procs]
        self.seats = [s["seat"] for s in starts]
        return starts[0]["game_id"]

    def wait_events(self, proc, count: int, timeout: float = 60) -> None:
        """Until `proc` printed `count` event lines (the game is well under way)."""
        read_until(proc, "event", timeout=timeout, count=count)

    def finish(self, timeout: float = 90) -> list[int]:
        return finish(self.procs, timeout)

    def kill(self) -> None:
        for p in self.procs:
            if p.poll() is None:
                p.kill()
                p.wait()

    def log(self, i: int) -> str:
        return self.logs[i].read_text(errors="replace")

    def transcripts(self, game_id: str) -> list[Path]:
        return [d / "games" / game_id / "transcript.caravan" for d in self.dirs]


def run_alone(g: RelayedGame, i: int, game_id: str, timeout: float = 60, prefix: list[str] | None = None,
              codes: tuple[int, ...] = (0,)) -> list[dict]:
    """One `caravan resume --until-idle` of seat i's node (a turn-based table through a broker),
    to its end (one of exit `codes`): its JSON lines. `prefix`: a command it runs under
    (e.g. faketime)."""
    proc = node(["resume", game_id[:16], "--until-idle"], g.dirs[i], g.logs[i], prefix=prefix)
    try:
        code = proc.wait(timeout=scaled(timeout))
    except subprocess.TimeoutExpired:
        proc.kill()
        code = proc.wait()
    lines = [json.loads(x) for x in proc.stdout.read().splitlines() if x.startswith("{")]
    assert code in codes, f"seat {i}'s run ended with {code}: {[x.get('text') for x in lines][-5:]}{log_tail(proc)}"
    return lines


def turn_based_lobby(tmp_path: Path, url: str, game: str, options: list[str], pace: list[str]) -> tuple[RelayedGame, str]:
    """A 3-seat turn-based table through the broker at `url` whose lobby goes by mail, one node
    at a time (never two running together): the host creates it and stops, each friend joins
    and stops, then `caravan resume LOBBY --until-idle` of the host (seats them, posts the
    genesis to sign), of each friend (signs), of the host (starts the game) and of each friend
    (takes the start, resumed by the game's id): (game, game id)."""
    g = RelayedGame(tmp_path, url, game, 3, options, host_args=[*pace, "--until-idle"], join_args=["--until-idle"],
                    joiners=0)
    try:
        lobby = g.lobby["lobby"]
        wait_alone(g.host, 0, g)
        for _ in range(2):
            g.add_joiner(g.invite)
            wait_alone(g.procs[-1], len(g.procs) - 1, g)
        starts = []
        for i in (0, 1, 2, 0):
            lines = run_alone(g, i, lobby)
            starts += [x for x in lines if x["type"] == "start"]
        assert starts, f"the host's run that found every signature started no game: {[x.get('text') for x in lines]}"
        for i in (1, 2):                          # a friend that signed resumes the game by its id
            lines = run_alone(g, i, starts[0]["game_id"])
            starts += [x for x in lines if x["type"] == "start"]
    finally:
        g.kill()
    game_ids = {x["game_id"] for x in starts}
    assert len(starts) == 3 and len(game_ids) == 1, [x.get("text") for x in lines]
    return g, game_ids.pop()


def wait_alone(proc: subprocess.Popen, i: int, g: RelayedGame, timeout: float = 60) -> None:
    """Until `proc` (seat dir i's first run, alone) stopped by itself, idle."""
    try:
        code = proc.wait(timeout=scaled(timeout))
    except subprocess.TimeoutExpired:
        proc.kill()
        code = proc.wait()
    assert code == 0, f"seat {i}'s first run ended with {code}{log_tail(proc)}"


def play_alternately(g: RelayedGame, game_id: str, max_runs: int,
                     before_run: Callable[[int], None] = lambda run: None) -> tuple[set[int], list[str]]:
    """Run one seat's node at a time (`run_alone`) until every node saw the game end or
    `max_runs` runs: next the node the game waits for (once every node ran once), else the
    next one. Returns the data dirs whose node saw the end, and each idle run's reason."""
    done: set[int] = set()
    waits: list[str] = []
    seat_of: dict[int, int] = {}                  # data dir -> its seat (the joiners sit in join order)
    i = 0
    for run in range(max_runs):
        before_run(run)
        lines = run_alone(g, i, game_id)
        seat_of.update({i: x["seat"] for x in lines if x["type"] == "start"})
        kinds = {x["type"] for x in lines}
        waiting: list[int] = []
        if "result" in kinds or "ended" in kinds:
            done.add(i)
        else:
            stop = [x for x in lines if x["type"] == "idle"]
            assert stop, f"seat {i} stopped without saying why: {[x.get('text') for x in lines][-5:]}"
            waits.append(stop[-1]["text"])
            waiting = stop[-1]["waiting_for"]
            assert waiting, stop[-1]
        if len(done) == 3:
            break
        dirs = {seat: d for d, seat in seat_of.items()}
        awaited = [dirs[s] for s in waiting if s in dirs and dirs[s] not in done]
        rest = [d for d in ((i + k) % 3 for k in range(1, 4)) if d not in done]
        i = awaited[0] if awaited and len(seat_of) == 3 else rest[0]
    return done, waits


def verify(path: Path) -> dict:
    """`caravan verify FILE --json` on a transcript: its one JSON object (exit code in `exit`)."""
    proc = subprocess.run([sys.executable, "-m", "node", "verify", str(path), "--json"], capture_output=True,
                          text=True, env=env(), cwd=ROOT, timeout=scaled(120))
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    report["exit"] = proc.returncode
    return report


REFUSED = re.compile(r"relay link (.+?): refused (?:a frame|(\d+) frames) that fail")


def refusals(log: str) -> int:
    """How many frames a node's log says its relay links refused as failing authentication: a
    link logs its first refusal, then its running count at every power of ten
    (protocol/link/relay_frames.py), so a link's count is the largest it logged."""
    counts: dict[str, int] = {}
    for match in REFUSED.finditer(log):
        counts[match[1]] = max(counts.get(match[1], 0), int(match[2] or 1))
    return sum(counts.values())


def assert_all_verify(game: RelayedGame, game_id: str) -> dict:
    """Every node wrote the same transcript, and `caravan verify` accepts it as finished."""
    files = game.transcripts(game_id)
    contents = {f.read_bytes() for f in files}
    assert len(contents) == 1, "the nodes wrote different transcripts"
    report = verify(files[0])
    assert report["exit"] == 0 and report["valid"] and report["complete"], report
    return report


class Outsider:
    """Another MQTT client on the same broker: it sees every caravan topic and publishes raw."""

    def __init__(self, url: str):
        u = parse_relay_url(url)
        self.seen: list[tuple[str, bytes]] = []
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5)
        self.client.on_message = lambda c, u, m: self.seen.append((m.topic, bytes(m.payload)))
        self.client.on_connect = lambda c, u, f, rc, p: c.subscribe("caravan/#", qos=1)
        self.client.connect(u.host, u.port)
        self.client.loop_start()

    def publish(self, topic: str, payload: bytes) -> None:
        sent = self.client.publish(topic, payload, qos=1)
        sent.wait_for_publish(scaled(5))
        assert sent.is_published(), f"the outsider's message to {topic} was not published within {scaled(5):g} s"

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()
