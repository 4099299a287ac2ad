"""Seats of a game on the tab's driver (clients/tab/py/tab_seat.py) for tests: the driver loaded
in CPython, an in-memory network between seats (lossy if asked), a game's genesis, and the
shuttle that carries one seat's frames through its worker ops (tab_seat_ops: `seat_feed`),
whether those run here or in a browser tab, and desktop seats (GameNodes, trio) run in a
thread beside a test's tab seat (`desktop_seats`). tests/core/test_tab_seat.py,
tests/web/test_tab_seat*.py and tests/node/test_tab_seat_mixed.py use it."""

from __future__ import annotations

import asyncio
import importlib.util
import random
import sys
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Any, Awaitable, Callable, Iterator

import msgpack
import trio

from clients.bot import make_bot
from node.app.game import GameNode
from node.net import relay as desk_relay
from node.storage.store import GameStore
from protocol import chain, games, wire
from protocol.genesis import LIVE
from protocol.identity import SigningKey
from protocol.link.framing import FrameError, TcpFraming, decode, encode
from protocol.link.handshake import Handshake, HandshakeError
from protocol.local_table import make_genesis
from tests.games.pick import quick_game, short_game
from tests.helpers import timeout as scaled
from tests.node.conftest import bot_decider

N = 3
TAB_PY = Path(__file__).resolve().parents[1] / "clients" / "tab" / "py"


def tab_module(name: str, alias: str | None = None) -> ModuleType:
    """A module of the tab's Python loaded by path (its folder's `nacl` shim must not shadow
    PyNaCl here), registered as `alias` (default `<name>_cpython`): its dataclasses look it up,
    and a tab module that imports it by name (`import tab_seat`) finds it under `name`."""
    spec = importlib.util.spec_from_file_location(alias or f"{name}_cpython", TAB_PY / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


tab_seat = tab_module("tab_seat", "tab_seat")
tab_module("tab_requests", "tab_requests")      # what the worker ops import by name

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


def cheat(kind: str, key: SigningKey) -> Tamper:
    """The seat of `key` sends, instead of its first move, that move forged (a signature byte
    changed) or an illegal move under its own valid signature, once to each peer; its honest
    move comes by resync."""
    done: set[int] = set()

    def tamper(dst: int, frame: dict) -> list[dict]:
        if frame.get("t") != "msg" or dst in done:
            return [frame]
        msg = chain.parse(frame["m"])
        if msg.author != key.public or msg.kind != "act":
            return [frame]
        done.add(dst)
        if kind == "forged":
            bad = frame["m"][:-1] + bytes([frame["m"][-1] ^ 1])
        else:
            bad = chain.seal(key, msg.game_id, msg.seq, msg.prev, msg.refs, "act", {"a": "no such move", "o": []}).raw
        return [{"t": "msg", "m": bad}]
    return tamper


def key_seed(seed: int, i: int) -> bytes:
    """Seat i's key seed in the game `genesis(seed)` (a tab is handed it in `seat_start`)."""
    return random.Random(seed * 100 + i).randbytes(32)


def genesis(seed: int, time_limit: int = 0, game: str | None = None,
            players: int | None = None, pace: str = LIVE) -> tuple[list, list[bytes], Any]:
    """(keys, secrets, genesis) of a short game: of `quick_game(N)` for N seats, or of `game`
    with its short game's seats (short_game) unless `players` says; `pace` turn-based for a
    table played through postboxes (it needs a time limit)."""
    seats, options = (N, short_game(quick_game(N))[1]) if game is None else short_game(game)
    players = players or seats
    game = game or quick_game(N)
    engine = games.get(game)
    keys = [SigningKey.from_seed(key_seed(seed, i)) for i in range(players)]
    return make_genesis(game, {**engine.default_options(players), **options}, players, random.Random(seed),
                        keys=keys, time_limit=time_limit, pace=pace)


def seat(g: Any, keys: list, secrets: list[bytes], i: int, links: dict[int, Any], seed: int) -> Any:
    """Seat i on the driver, with a random bot of the registry."""
    return tab_seat.TabSeat(g.to_wire(), keys[i], secrets[i],
                            tab_seat.bot_decider(make_bot("random", g.game, seed=seed * 10 + i)),
                            links, time.monotonic, sync_interval=0.02, linger=2.0)


Feed = Callable[[bytes], Awaitable[dict]]
"""The `seat_feed` op: its msgpack argument in, its answer out."""


async def shuttle(net: Net, far: int, feed: Feed, wait: float = 0.02) -> dict:
    """Carry seat `far`'s frames between `net` and its ops until its seat stops running: what
    the others send it goes in through `feed`, what it sends comes out of `feed`'s answers.
    Its last answer."""
    while True:
        frames = []
        for (src, dst), queue in net.inbox.items():
            while dst == far and not queue.empty():
                frames.append([src, encode(queue.get_nowait())])
        answer = await feed(msgpack.packb({"frames": frames, "wait": wait}, use_bin_type=True))
        assert "error" not in answer, answer
        for peer, data in answer["out"]:
            net.carry(far, peer, decode(bytes.fromhex(data)))
        if not answer["running"]:
            return answer
        await asyncio.sleep(0)


class TcpLink:
    """A TabSeat's link to a desktop node over TCP, on asyncio: the desktop's framing and
    handshake (protocol/link: TcpFraming, Handshake) as node/net drives them with trio, so the
    desktop node cannot tell it from one of its own. `dial` opens it; its `inbox` fills from a
    reader task until the peer closes (then None)."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter):
        self.reader, self.writer = reader, writer
        self.framing = TcpFraming()
        self.inbox: asyncio.Queue = asyncio.Queue()
        self.task: asyncio.Task | None = None

    async def _frame(self) -> Any:
        while not self.framing.whole():
            data = await self.reader.read(1 << 16)
            if not data:
                raise ConnectionError("the peer closed the link")
            self.framing.feed(data)
        return self.framing.next()

    @classmethod
    async def dial(cls, host: str, port: int, key: SigningKey, scope: bytes, peer: bytes,
                   within: float = 10.0) -> "TcpLink":
        link = cls(*await asyncio.open_connection(host, port))
        shake = Handshake(key, scope, dialer=True, now=time.monotonic(), timeout=within)
        link.writer.write(link.framing.frame(shake.hello))
        [auth] = shake.receive(await asyncio.wait_for(link._frame(), within), time.monotonic())
        link.writer.write(link.framing.frame(auth))
        shake.receive(await asyncio.wait_for(link._frame(), within), time.monotonic())
        link.framing.seal(shake.push, shake.pull)
        if shake.peer_key != peer:
            raise HandshakeError(f"{host}:{port} proved another key than the seat's")
        link.task = asyncio.ensure_future(link._read())
        return link

    async def _read(self) -> None:
        try:
            while True:
                await self.inbox.put(await self._frame())
        except (ConnectionError, FrameError):
            await self.inbox.put(None)

    async def send(self, frame: dict) -> None:
        self.writer.write(self.framing.frame(frame))
        await self.writer.drain()

    async def close(self) -> None:
        if self.task is not None:
            self.task.cancel()
        self.writer.close()


@contextmanager
def desktop_seats(start: Callable[[trio.Nursery, int], Awaitable[Any]], seats: list[int],
                  within: float, started_within: float) -> Iterator[None]:
    """Desktop seats (GameNodes on trio) beside a test's tab seat: `start(nursery, seat)` starts
    each, in a trio run in a thread of its own (asyncio, or the test waiting on a browser,
    holds this one). Enters once all started; leaves once they stopped, within `within` s of
    the start; a failure of theirs (one raised, or too slow) fails the test saying what."""
    started, failed = threading.Event(), []

    def run() -> None:
        async def main() -> None:
            with trio.fail_after(within):
                async with trio.open_nursery() as nursery:
                    for i in seats:
                        await start(nursery, i)
                    started.set()
        try:
            trio.run(main)
        except BaseException as exc:                   # noqa: BLE001 - reported by the test
            failed.append(exc)
            started.set()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    assert started.wait(started_within) and not failed, f"the desktop seats did not start: {failed}"
    yield
    thread.join(within)
    assert not thread.is_alive(), f"the desktop seats {seats} did not stop within {within:g} s"
    assert not failed, f"the desktop seats failed: {failed}"


def relayed_desktops(tcp_url: Any, g: Any, keys: list, secrets: list[bytes], dirs: dict[int, Path],
                     nodes: dict | None = None) -> Callable[[trio.Nursery, int], Awaitable[Any]]:
    """What starts desktop seat i for `desktop_seats`: a GameNode with a random bot, its own
    store in dirs[i], relayed through the broker at `tcp_url` (paho). `nodes`, if given, gets
    each node by seat and, under "token", the trio token of their run (to act on them)."""
    async def one(i: int, task_status=trio.TASK_STATUS_IGNORED) -> None:
        GameStore.create(dirs[i], g.to_wire(), g.game_id, {"secret": secrets[i], "committed": wire.encode([])}, {})
        async with desk_relay.connect(tcp_url, keys[i].public, scopes=[g.game_id]) as relay:
            node = GameNode(GameStore(dirs[i], g.game_id), keys[i], bot_decider(i), ("127.0.0.1", 0), {},
                            relay=relay.endpoint(g.game_id))
            if nodes is not None:
                nodes[i], nodes["token"] = node, trio.lowlevel.current_trio_token()
            await node.run(task_status=task_status)
    return lambda nursery, i: nursery.start(one, i)


def mailed_desktops(tcp_url: Any, g: Any, keys: list, secrets: list[bytes], dirs: dict[int, Path],
                    nodes: dict | None = None) -> Callable[[trio.Nursery, int], Awaitable[Any]]:
    """As `relayed_desktops`, for a turn-based genesis: each GameNode talks through its postbox
    on the broker at `tcp_url` (a MailTransport, as node/app/runner.py builds it), stays running
    until the game ends, then publishes what is left and waits for the broker's acks."""
    from node.net.mail_links import MailTransport
    from node.net.postbox import open_postbox
    from protocol.mail.mailbox import Mailbox

    async def one(i: int, task_status=trio.TASK_STATUS_IGNORED) -> None:
        store = GameStore.create(dirs[i], g.to_wire(), g.game_id, {"secret": secrets[i], "committed": wire.encode([])},
                                 {})
        async with open_postbox(tcp_url, g.game_id, keys[i].public, g.time_limit) as box:
            transport = MailTransport(box, Mailbox(g.game_id, list(g.seats), i, keys[i]), store.dir)
            node = GameNode(GameStore(dirs[i], g.game_id), keys[i], bot_decider(i), ("127.0.0.1", 0), {},
                            mail=transport)
            if nodes is not None:
                nodes[i], nodes["token"] = node, trio.lowlevel.current_trio_token()
            await node.run(task_status=task_status)
            await transport.push()
            assert await box.flush(scaled(10)), f"seat {i}: the broker did not acknowledge what it published"
    return lambda nursery, i: nursery.start(one, i)
