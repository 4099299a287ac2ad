"""What one game costs the broker (issue 33): the messages published through a local Mosquitto
(persisting its sessions) and their payload bytes, per 3-seat game of each game, for each kind
of table: live (relay links, every node running), turn-based with every node running
(postboxes), and turn-based with nodes that never run together (one `caravan resume
--until-idle` at a time, as tests/relay/test_turn_based_mail.py plays it). Counted by one more
client subscribed to every caravan topic, the lobby included. Skipped (one line) when
Mosquitto is not installed."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Callable

from tests.benchmarks.common import local_broker
from tests.games.pick import cli_options, installed, short_game

CASES = [(game, cli_options(short_game(game)[1])) for game in installed()]
"""Every installed game, short (its SHORT_GAME hook: the plumbing, not a game's length)."""
TURN_BASED = ["--pace", "turn-based", "--move-time", "24h"]
MAX_RUNS = 400


def _live(work: Path, url: str, game: str, options: list[str]) -> bool:
    from tests.relay.nodes import RelayedGame
    g = RelayedGame(work, url, game, 3, options)
    try:
        return g.finish(timeout=600) == [0, 0, 0]
    finally:
        g.kill()


def _turn_based_running(work: Path, url: str, game: str, options: list[str]) -> bool:
    from tests.relay.nodes import RelayedGame
    g = RelayedGame(work, url, game, 3, options, host_args=TURN_BASED)
    try:
        return g.finish(timeout=600) == [0, 0, 0]
    finally:
        g.kill()


def _turn_based_apart(work: Path, url: str, game: str, options: list[str]) -> bool:
    from tests.relay.nodes import play_alternately, turn_based_lobby
    g, game_id = turn_based_lobby(work, url, game, options, TURN_BASED)
    done, _ = play_alternately(g, game_id, MAX_RUNS)
    return len(done) == 3


KINDS: list[tuple[str, Callable[[Path, str, str, list[str]], bool]]] = [
    ("live", _live), ("turn-based, all running", _turn_based_running),
    ("turn-based, never together", _turn_based_apart)]


def run() -> list[str]:
    started = local_broker("caravan-bench-traffic-", persistent=True)
    if isinstance(started, str):
        return [started]
    broker, work = started
    from tests.relay.broker import Traffic
    traffic = Traffic(broker.host, broker.port)
    lines = ["broker messages and payload bytes per 3-seat game (one table at a time, lobby included):"]
    failed = False
    try:
        for game, options in CASES:
            for kind, play in KINDS:
                folder = work / f"{game}-{kind.split(',')[0]}-{len(lines)}"
                folder.mkdir()
                traffic.reset()
                try:
                    ok = play(folder, broker.url, game, options)
                except (AssertionError, RuntimeError, OSError) as exc:
                    ok, why = False, str(exc).splitlines()[0] if str(exc) else type(exc).__name__
                else:
                    why = "not finished"
                messages, size = traffic.settle()
                failed |= not ok
                lines.append(f"  {game:7s} {kind:27s} {messages:6d} messages  {size / 1024:8.1f} KiB"
                             f"  ({size / max(1, messages):.0f} B each)" + ("" if ok else f"  FAILED: {why}"))
    finally:
        traffic.close()
        broker.stop()
    if failed:
        lines.append(f"  logs kept in {work}")
    else:
        shutil.rmtree(work, ignore_errors=True)
    return lines
