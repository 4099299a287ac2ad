"""Every seat of a table in one process, messages handed between the replicas as bytes only:
the tests' games, the benchmarks' and the browser tab's measured Sa-Rê game (sans-I/O, so it
runs unchanged in the tab's Pyodide)."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, Callable

from . import genesis as G, transcript
from .identity import SigningKey
from .player import Player, beacon_chain
from .session import Session


@dataclass
class Table:
    keys: list[SigningKey]
    secrets: list[bytes]
    genesis: G.Genesis
    sessions: list[Session]
    players: list[Player]

    def transcript(self, seat: int = 0) -> bytes:
        return transcript.dump(self.genesis.to_wire(), self.sessions[seat].log)


def make_genesis(game: str, options: dict, n: int, rng: random.Random, beacon_length: int = 256,
                 time_limit: int = 0, pace: str = G.LIVE,
                 keys: list[SigningKey] | None = None) -> tuple[list[SigningKey], list[bytes], G.Genesis]:
    """A signed genesis of n seats, its seats' keys (from `rng` unless given) and secrets."""
    keys = keys or [SigningKey.from_seed(rng.randbytes(32)) for _ in range(n)]
    secrets = [rng.randbytes(32) for _ in range(n)]
    nonce = rng.randbytes(16)
    tips = [beacon_chain(secrets[i], nonce, i, beacon_length)[0] for i in range(n)]
    body = G.make_body(game, options, [k.public for k in keys], tips, nonce, beacon_length, time_limit, pace)
    raw = G.Genesis(game, options, [k.public for k in keys], tips, beacon_length, nonce, body,
                    [G.sign(k, body) for k in keys], time_limit, pace).to_wire()
    return keys, secrets, G.parse(raw)


def new_table(engine, n: int, seed: int = 0, options: dict | None = None,
              keys: list[SigningKey] | None = None) -> Table:
    rng = random.Random(seed)
    options = engine.default_options(n) if options is None else options
    keys, secrets, genesis = make_genesis(engine.name, options, n, rng, keys=keys)
    sessions = [Session(genesis, engine) for _ in range(n)]
    players = [Player(sessions[i], i, keys[i], secrets[i]) for i in range(n)]
    return Table(keys, secrets, genesis, sessions, players)


Chooser = Callable[[int, list[Any]], Any]


def play(table: Table, choose: Chooser, rng: random.Random | None = None, max_rounds: int = 100_000,
         stop: Callable[[int, Any], bool] | None = None) -> tuple[int, Any] | None:
    """Run the game to the end: each replica's own messages are delivered to every other
    replica as bytes (in a shuffled order when `rng` is given, to exercise buffering).

    With `stop(seat, decision)`: the first decision it accepts is left undone, every
    replica is brought up to date, and (seat, decision) is returned."""
    n = len(table.players)
    inbox: list[list[bytes]] = [[] for _ in range(n)]
    found: tuple[int, Any] | None = None
    for _ in range(max_rounds):
        sent: list[tuple[int, bytes]] = []
        for seat, p in enumerate(table.players):
            for raw in inbox[seat]:
                table.sessions[seat].receive(raw)
            inbox[seat] = []
            out = p.automatic()
            d = None if found else p.decision()
            if d is not None and stop is not None and stop(seat, d):
                found, d = (seat, d), None
            if d is not None:
                out.append(p.decide(choose(seat, d.legal)))
                out.extend(p.automatic())
            sent.extend((seat, raw) for raw in out)
        if rng is not None:
            rng.shuffle(sent)
        for author, raw in sent:
            for seat in range(n):
                if seat != author:
                    inbox[seat].append(raw)
        if not sent and not any(inbox):
            if found or all(s.complete for s in table.sessions):
                return found
            raise AssertionError("stalled: " + "; ".join(f"{i}: {s.describe_need()} early={sorted(s.early)}"
                                                         for i, s in enumerate(table.sessions)))
    raise AssertionError("the game did not end")
