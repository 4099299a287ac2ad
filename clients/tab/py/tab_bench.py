"""What `make bench` measures in the tab and in CPython alike (tests/benchmarks/bench_tab.py).

The very same functions run in the tab's worker (the "bench" op) and in CPython, so a ratio
compares the two runtimes and nothing else. Times are `time.process_time()`: CPU time under
CPython; in the tab the worker's clock (Emscripten has no CPU clock; the worker is one thread
doing nothing else, so its wall time is its CPU time, on an idle core)."""

from __future__ import annotations

import hashlib
import random
import time
from typing import Any

from protocol import games
from protocol.identity import SigningKey, verify
from protocol.local_table import new_table, play
from protocol.referee import Referee


def decisions(game: str, players: int = 4, seconds: float = 2.0) -> dict[str, Any]:
    """Random games through the referee for `seconds`: the engine's decisions per second."""
    engine = games.get(game)
    count = played = 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        rng = random.Random(played)
        referee = Referee(engine, players, None, seed=played)
        referee.play(lambda seat, legal, r: legal[rng.randrange(len(legal))])
        count += referee.decisions
        played += 1
    spent = time.process_time() - start
    return {"per_s": count / spent, "decisions": count, "games": played}


def verifies(seconds: float = 1.0) -> dict[str, Any]:
    """protocol.identity.verify of one 200-byte message's signature, as every received message is checked."""
    key = SigningKey.from_seed(bytes(range(32)))
    data = bytes(200)
    signature = key.sign(data)
    count = 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        for _ in range(100):
            if not verify(key.public, signature, data):
                raise AssertionError("a good signature did not verify")
        count += 100
    return {"per_s": count / (time.process_time() - start), "verifies": count}


def whole_game(game: str, players: int = 3, seed: int = 1) -> dict[str, Any]:
    """A whole random game of `game`, every seat's replica in this process (signing, the deck's
    shuffles and proofs, checking every message): CPU per seat is the total over `players`."""
    start = time.process_time()
    table = new_table(games.get(game), players, seed=seed)
    rng = random.Random(seed)
    play(table, lambda seat, legal: rng.choice(legal))
    spent = time.process_time() - start
    return {"seconds": spent, "per_seat_s": spent / players, "messages": len(table.sessions[0].log),
            "transcript_sha256": hashlib.sha256(table.transcript()).hexdigest()}


MEASURES = {"decisions": decisions, "verifies": verifies, "whole_game": whole_game}


def run(what: str, **kwargs: Any) -> dict[str, Any]:
    """One measure by name (the worker's "bench" op passes the page's JSON here)."""
    if what not in MEASURES:
        raise ValueError(f"unknown measure {what!r}; known: {', '.join(sorted(MEASURES))}")
    return MEASURES[what](**kwargs)
