"""The tab's seat driver (clients/tab/py/tab_seat.py) in CPython, on asyncio: three seats of a
real game, each a TabSeat with a random bot from the registry, linked in memory by a network
that drops, duplicates and reorders their frames (as encoded bytes), finish the game with
byte-identical transcripts that protocol/verify.py accepts; a seat whose peer sends a forged
or illegal message refuses it naming that peer and its signer, and the game still ends."""

from __future__ import annotations

import asyncio
import importlib.util
import random
import sys
import time
from pathlib import Path
from types import ModuleType
from typing import Any, Callable

from clients.bot import make_bot
from protocol import chain, games
from protocol.errors import BadSignature, Equivocation, IllegalMove
from protocol.link.framing import decode, encode
from protocol.local_table import make_genesis
from protocol.verify import verify_bytes
from tests.games.pick import quick_game, short_game
from tests.helpers import timeout

N = 3
TAB_PY = Path(__file__).resolve().parents[2] / "clients" / "tab" / "py"


def tab_module(name: str) -> ModuleType:
    """A module of the tab's Python, loaded by path (its folder's `nacl` shim must not shadow PyNaCl)."""
    spec = importlib.util.spec_from_file_location(f"{name}_cpython", TAB_PY / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module              # (its dataclasses look their module up)
    spec.loader.exec_module(module)
    return module


tab_seat = tab_module("tab_seat")

Tamper = Callable[[int, dict], list[dict]]
"""(destination, frame) -> the frames a cheating seat sends instead."""


class Net:
    """In-memory links carrying encoded frames: each may be dropped or duplicated, and each copy
    is delivered after a random delay (so frames overtake one another)."""

    def __init__(self, rng: random.Random, drop: float = 0.0, dup: float = 0.0, delay: float = 0.0):
        self.rng, self.drop, self.dup, self.delay = rng, drop, dup, delay
        self.inbox = {(src, dst): asyncio.Queue() for src in range(N) for dst in range(N) if src != dst}
        self.tamper: dict[int, Tamper] = {}

    def carry(self, src: int, dst: int, frame: dict) -> None:
        frames = self.tamper[src](dst, frame) if src in self.tamper else [frame]
        for one in frames:
            if self.rng.random() < self.drop:
                continue
            data = encode(one)
            for _ in range(2 if self.rng.random() < self.dup else 1):
                asyncio.get_running_loop().call_later(self.rng.uniform(0, self.delay),
                                                      self.inbox[(src, dst)].put_nowait, decode(data))

    def links(self, seat: int) -> dict[int, Any]:
        return {peer: Link(self, seat, peer) for peer in range(N) if peer != seat}


class Link:
    """Seat `src`'s link to `dst`: its `inbox` holds what `dst` sent it."""

    def __init__(self, net: Net, src: int, dst: int):
        self.net, self.src, self.dst = net, src, dst
        self.inbox = net.inbox[(dst, src)]

    async def send(self, frame: dict) -> None:
        self.net.carry(self.src, self.dst, frame)


def genesis(seed: int) -> tuple[list, list[bytes], Any]:
    game = quick_game(N)
    engine = games.get(game)
    options = {**engine.default_options(N), **short_game(game)[1]}
    return make_genesis(game, options, N, random.Random(seed))


def play(net: Net, seed: int) -> list[Any]:
    """Three TabSeats on `net` play a game to the end: the seats (each with its outcome)."""
    keys, secrets, g = genesis(seed)
    seats = [tab_seat.TabSeat(g.to_wire(), keys[i], secrets[i],
                              tab_seat.bot_decider(make_bot("random", g.game, seed=seed * 10 + i)),
                              net.links(i), time.monotonic, sync_interval=0.02, linger=2.0)
             for i in range(N)]

    async def main() -> None:
        await asyncio.wait_for(asyncio.gather(*(s.run() for s in seats)), timeout(90))

    asyncio.run(main())
    return seats


def test_three_tab_seats_finish_a_game_through_a_lossy_network_with_identical_transcripts():
    net = Net(random.Random(7), drop=0.2, dup=0.2, delay=0.01)
    seats = play(net, seed=7)
    assert [s.outcome.kind for s in seats] == ["complete"] * N, [s.outcome for s in seats]
    transcripts = {s.transcript() for s in seats}
    assert len(transcripts) == 1
    report = verify_bytes(transcripts.pop())
    assert report.ok and report.messages == len(seats[0].session.log) > 0, report.to_json()
    assert all(s.refused == [] for s in seats)


def cheat(kind: str, keys: list) -> Tamper:
    """Seat 2 sends, instead of its first move, that move forged (a signature byte changed) or
    an illegal move under its own valid signature; its honest move comes by resync."""
    done: set[int] = set()

    def tamper(dst: int, frame: dict) -> list[dict]:
        if frame.get("t") != "msg" or dst in done:
            return [frame]
        msg = chain.parse(frame["m"])
        if msg.author != keys[2].public or msg.kind != "act":
            return [frame]
        done.add(dst)
        if kind == "forged":
            bad = frame["m"][:-1] + bytes([frame["m"][-1] ^ 1])
        else:
            bad = chain.seal(keys[2], msg.game_id, msg.seq, msg.prev, msg.refs, "act", {"a": "no such move", "o": []}).raw
        return [{"t": "msg", "m": bad}]
    return tamper


def test_a_seat_names_the_peer_that_sent_a_forged_or_illegal_message():
    for kind, errors in (("forged", (BadSignature,)), ("illegal", (IllegalMove, Equivocation))):
        net = Net(random.Random(3), drop=0.1, dup=0.1, delay=0.005)
        keys, _, _ = genesis(3)
        net.tamper[2] = cheat(kind, keys)
        seats = play(net, seed=3)
        named = [r for s in seats[:2] for r in s.refused]
        assert named, f"the {kind} message was taken"
        assert all(r.peer == 2 and r.error.seat == 2 and type(r.error) in errors for r in named), named
        assert str(named[0]).startswith("from seat 2: refused:") and "seat 2" in str(named[0].error)
        assert [s.outcome.kind for s in seats] == ["complete"] * N
        assert len({s.transcript() for s in seats}) == 1
