"""The worker's ops for one seat of a game (tab_seat.TabSeat) whose frames the page carries:
the page (or a test through it) hands in the frames other seats sent and takes back the
frames this seat sends, so any transport can sit between (the relay link, a test's shuttle).

Ops (msgpack in, a JSON-able dict out; a frame goes out as the hex of its msgpack encoding):
"seat_start" {genesis, key (its 32-byte seed), secret, seed (the bot's), sync?} starts the
seat, with a random bot; "seat_feed" {frames: [[peer, frame bytes], ...], wait?} gives it
those frames and answers, once it has sent something (or after `wait` seconds), what it sent
{out: [[peer, hex]], running, outcome, refused, bad_frames (frames it could not take: junk,
or from no other seat)}; "seat_result" the transcript and what it refused. "seat_relay" (as
seat_start, plus {within?}) runs the seat over relay links through the broker the tab is
connected to (tab_net), as a desktop node's; "seat_state" says where it stands.

The key and the per-game secret come in the op for now: a table made in the tab (its key
from tab_store, the genesis signed in a lobby) is the next step (issue 32, item 3). The bot
is a seeded random choice: the bots of clients/ are not in the bundle."""

from __future__ import annotations

import asyncio
import random
import time
from typing import Any

from protocol import games, genesis as G
from protocol.identity import SigningKey, fingerprint
from protocol.link.framing import FrameError, decode, encode

from tab_requests import request
from tab_seat import TabSeat

WAIT = 0.05
"""How long `seat_feed` waits, at most, for the seat to send something."""
REDIAL = 0.5
"""`seat_relay`: the pause before dialling again a seat whose inbox did not answer."""


class PageLink:
    """A link whose frames the page carries: what the seat sends waits in `outbox` for the
    next `seat_feed`; what the page hands in goes to `inbox`."""

    def __init__(self, peer: int, outbox: list[list[Any]]):
        self.peer, self.outbox = peer, outbox
        self.inbox: asyncio.Queue = asyncio.Queue()

    async def send(self, frame: dict) -> None:
        self.outbox.append([self.peer, encode(frame)])


class RandomDecider:
    """A seeded uniform choice among the legal actions (no view needed)."""
    wants_view = False

    def __init__(self, seed: int):
        self.rng = random.Random(seed)

    async def __call__(self, view: Any, legal: list[Any], kind: str) -> Any:
        return legal[self.rng.randrange(len(legal))]


class _State:
    seat: TabSeat | None = None
    task: asyncio.Future | None = None
    outbox: list[list[Any]] = []
    bad_frames: int = 0


_state = _State()


def _seat() -> TabSeat:
    if _state.seat is None:
        raise ValueError("no seat: call seat_start first")
    return _state.seat


def _status() -> dict[str, Any]:
    seat, task = _seat(), _state.task
    outcome = seat.outcome
    return {"seat": seat.seat, "running": task is not None and not task.done(),
            "outcome": None if outcome is None else {"kind": outcome.kind, "text": outcome.text},
            "refused": [str(r) for r in seat.refused], "bad_frames": _state.bad_frames,
            "messages": len(seat.session.log)}


def _seat_args(data: bytes | None, op: str) -> tuple[dict[str, Any], SigningKey, G.Genesis, int]:
    """(the op's arguments, the key, the genesis, the key's seat in it)."""
    args = request(data, op, "genesis", "key", "secret", "seed")
    if _state.task is not None and not _state.task.done():
        raise ValueError("a seat is already running in this tab")
    key = SigningKey.from_seed(args["key"])
    genesis = G.parse(args["genesis"])
    if genesis.game not in games.names():          # refused before any link is dialled
        raise ValueError(f"this tab cannot play this table: {games.UnknownGame(genesis.game)}")
    if key.public not in genesis.seats:
        raise ValueError(f"the key {fingerprint(key.public)} holds no seat in this genesis")
    return args, key, genesis, genesis.seats.index(key.public)


def _run(args: dict[str, Any], key: SigningKey, links: dict[int, Any], outbox: list[list[Any]]) -> dict[str, Any]:
    seat = TabSeat(args["genesis"], key, args["secret"], RandomDecider(int(args["seed"])), links, time.monotonic,
                   sync_interval=float(args.get("sync", 0.25)))
    _state.seat, _state.outbox, _state.bad_frames = seat, outbox, 0
    _state.task = asyncio.ensure_future(seat.run())
    return {"key": fingerprint(key.public), **_status()}


async def seat_start(data: bytes | None) -> dict[str, Any]:
    args, key, genesis, me = _seat_args(data, "seat_start")
    outbox: list[list[Any]] = []
    links = {peer: PageLink(peer, outbox) for peer in range(len(genesis.seats)) if peer != me}
    return _run(args, key, links, outbox)


class RelayLink:
    """A TabSeat's link over a sealed relay link (tab_relay.TabRelayLink): a task moves what
    the link receives into `inbox` (None once it closed or failed)."""

    def __init__(self, link: Any):
        self.link = link
        self.inbox: asyncio.Queue = asyncio.Queue()
        self.task = asyncio.ensure_future(self._read())

    async def _read(self) -> None:
        try:
            while (frame := await self.link.recv()) is not None:
                await self.inbox.put(frame)
        except FrameError:
            pass
        await self.inbox.put(None)

    async def send(self, frame: dict) -> None:
        await self.link.send(frame)


async def _dial_until(broker: Any, key: SigningKey, scope: bytes, inbox: str, until: float) -> Any:
    """A link to `inbox`, dialled again while nobody answers there until the loop's time
    `until` (its node or tab may not listen yet: an open nobody took is lost), as a desktop
    node dials a seat again and again; the last failure once the time is up."""
    from tab_relay import dial
    loop = asyncio.get_running_loop()
    while True:
        try:
            return await dial(broker, key, scope, inbox, timeout=max(1.0, until - loop.time()))
        except FrameError:                            # nobody answered (a refused handshake is final)
            if loop.time() + REDIAL >= until:
                raise
            await asyncio.sleep(REDIAL)


async def seat_relay(data: bytes | None) -> dict[str, Any]:
    """As seat_start, the seat linked to every other seat's node through the broker the tab is
    connected to (broker_connect), as desktop nodes link in a game: it dials the seats after
    it (again while one does not answer yet) and takes the links the seats before it open,
    each proving its key; then it plays.
    {within?}: seconds to wait for those links."""
    import tab_net
    from protocol.link.handshake import inbox_of
    from tab_relay import TabEndpoint, handshake

    args, key, genesis, me = _seat_args(data, "seat_relay")
    broker, scope, seats = tab_net.broker(), genesis.game_id, genesis.seats
    within = float(args.get("within", 30.0))
    endpoint = TabEndpoint(broker, key, scope)
    if me > 0:
        await endpoint.listen()
    links: dict[int, Any] = {}
    until = asyncio.get_running_loop().time() + within
    for peer in range(me + 1, len(seats)):
        link = await _dial_until(broker, key, scope, inbox_of(seats[peer]), until)
        if link.peer_key != seats[peer]:
            link.close()
            raise ValueError(f"the node at seat {peer}'s inbox proved another key ({fingerprint(link.peer_key)})")
        links[peer] = RelayLink(link)
    while len(links) < len(seats) - 1:
        link = await endpoint.next_link(within)
        if link is None:
            raise ValueError(f"seats {sorted(set(range(me)) - set(links))} opened no link within {within:g} s")
        link = await handshake(link, key, scope, dialer=False, timeout=within)
        if link.peer_key in seats[:me] and seats.index(link.peer_key) not in links:
            links[seats.index(link.peer_key)] = RelayLink(link)
        else:
            link.close()
    return _run(args, key, links, [])


async def seat_state(_: bytes | None) -> dict[str, Any]:
    return _status()


async def seat_feed(data: bytes | None) -> dict[str, Any]:
    args = request(data, "seat_feed", "frames")
    seat = _seat()
    for peer, raw in args["frames"]:
        link = seat.links.get(peer) if type(peer) is int else None
        try:
            if link is None or type(raw) is not bytes:
                raise FrameError(f"not a frame of another seat: {peer!r}")
            link.inbox.put_nowait(decode(raw))
        except FrameError:
            _state.bad_frames += 1
    loop = asyncio.get_running_loop()
    until = loop.time() + float(args.get("wait", WAIT))
    await asyncio.sleep(0)
    while not _state.outbox and not _state.task.done() and loop.time() < until:
        await asyncio.sleep(0.005)
    out, _state.outbox[:] = list(_state.outbox), []
    return {"out": [[peer, frame.hex()] for peer, frame in out], **_status()}


async def seat_result(_: bytes | None) -> dict[str, Any]:
    return {"transcript": _seat().transcript().hex(), **_status()}


OPS = {"seat_start": seat_start, "seat_feed": seat_feed, "seat_result": seat_result, "seat_relay": seat_relay,
       "seat_state": seat_state}
