"""The worker's ops for one seat of a game (tab_seat.TabSeat) whose frames the page carries:
the page (or a test through it) hands in the frames other seats sent and takes back the
frames this seat sends, so any transport can sit between (the relay link, a test's shuttle).

Ops (msgpack in, a JSON-able dict out; a frame goes out as the hex of its msgpack encoding):
"seat_start" {genesis, key (its 32-byte seed), secret, seed (the bot's), sync?, decider?} starts
the seat, with a random bot, or with {"decider": "page", "names"?} decided on the tab's table page
(tab_table); "seat_feed" {frames: [[peer, frame bytes], ...], wait?} gives it
those frames and answers, once it has sent something (or after `wait` seconds), what it sent
{out: [[peer, hex]], running, outcome, refused, bad_frames (frames it could not take: junk,
or from no other seat)}; "seat_result" the transcript and what it refused. "seat_relay" (as
seat_start, plus {within?}) runs the seat over relay links through the broker the tab is
connected to (tab_net), as a desktop node's; "seat_state" says where it stands.

Over relay links the tab's links last (tab_relay.SeatLinks): one that fails or closes is
dialled again with a bounded backoff, and links the peers open are taken again, so a seat
reconnects after a broker hiccup or a reload. With {"store": true} `seat_relay` first keeps
the game in the tab's store (tab_games, IndexedDB; {names?} the seats' names) and the seat
keeps every message there; "game_resume" {game_id, seed, within?, key?} runs a stored game's
seat again after a reload, its log replayed, through the broker the tab is connected to;
"games_list" lists the stored games (nothing secret).

A stored game whose genesis is turn-based and that has a broker plays through the seat's
postbox on it (tab_postbox, tab_mail_links: store and forward, never live links), in
`play_stored` and `game_resume` as in "seat_mail" (as seat_relay with {"store": true}, plus
{url}: the broker's ws:// URL), which keeps a turn-based game given its key seed and secret.
Such a seat's state has {mail: {refused, log}}: the envelopes it refused and its last lines.

Here the key seed and the per-game secret come in the op (tests, benchmarks); a game the tab
joins or hosts (tab_lobby) has the tab's own key and is played from its store (`play_stored`).
The decider is the table page ({"decider": "page"}) or a seeded random choice (the bots of
clients/ are not in the bundle)."""

from __future__ import annotations

import asyncio
import random
import time
from typing import Any

from protocol import games, genesis as G
from protocol.identity import SigningKey, fingerprint
from protocol.link.framing import FrameError, decode, encode
from protocol.mail.postbox_names import session_expiry

from tab_requests import request
from tab_seat import TabSeat

WAIT = 0.05
"""How long `seat_feed` waits, at most, for the seat to send something."""


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
            "messages": len(seat.session.log),
            **({"mail": {"refused": seat.mail.courier.refused, "log": list(seat.mail.notes)}} if seat.mail else {})}


def _seat_args(data: bytes | None, op: str) -> tuple[dict[str, Any], SigningKey, G.Genesis, int]:
    """(the op's arguments, the key, the genesis, the key's seat in it)."""
    args = request(data, op, "genesis", "key", "secret", "seed")
    key = SigningKey.from_seed(args["key"])
    return (args, key, *_seat_of(args, key))


def _seat_of(args: dict[str, Any], key: SigningKey) -> tuple[G.Genesis, int]:
    """(the genesis, the key's seat in it), when no seat runs in this tab yet."""
    if _state.task is not None and not _state.task.done():
        raise ValueError("a seat is already running in this tab")
    genesis = G.parse(args["genesis"])
    if genesis.game not in games.names():          # refused before any link is dialled
        raise ValueError(f"this tab cannot play this table: {games.UnknownGame(genesis.game)}")
    if key.public not in genesis.seats:
        raise ValueError(f"the key {fingerprint(key.public)} holds no seat in this genesis")
    return genesis, genesis.seats.index(key.public)


def _decider(args: dict[str, Any]) -> Any:
    """{"decider": "page"}: the tab's table page decides (tab_table); else the seeded random bot."""
    if args.get("decider") == "page":
        import tab_table
        return tab_table.decider(args)
    if args.get("decider") is not None:
        raise ValueError(f'decider must be "page" or left out (a random bot), not {args["decider"]!r}')
    return RandomDecider(int(args["seed"]))


def _run(args: dict[str, Any], key: SigningKey, links: dict[int, Any], outbox: list[list[Any]],
         store: Any = None, closing: Any = None, mail: Any = None) -> dict[str, Any]:
    decider, sync = _decider(args), float(args.get("sync", 0.25))
    seat = (TabSeat.resume(store, key, decider, links, time.monotonic, sync_interval=sync, mail=mail)
            if store is not None
            else TabSeat(args["genesis"], key, args["secret"], decider, links, time.monotonic, sync_interval=sync))
    _state.seat, _state.outbox, _state.bad_frames = seat, outbox, 0
    _state.task = asyncio.ensure_future(_played(seat, closing))
    if hasattr(decider, "attach"):
        decider.attach(seat, _state.task)
    return {"key": fingerprint(key.public), **_status()}


async def _played(seat: TabSeat, closing: Any) -> Any:
    """The seat's run; then its links closed (`closing`: they would be dialled again; a
    postbox's closing is awaited)."""
    try:
        return await seat.run()
    finally:
        if closing is not None:
            done = closing()
            if done is not None:
                await done


async def seat_start(data: bytes | None) -> dict[str, Any]:
    args, key, genesis, me = _seat_args(data, "seat_start")
    outbox: list[list[Any]] = []
    links = {peer: PageLink(peer, outbox) for peer in range(len(genesis.seats)) if peer != me}
    return _run(args, key, links, outbox)


async def seat_relay(data: bytes | None) -> dict[str, Any]:
    """As seat_start, the seat linked to every other seat's node through the broker the tab is
    connected to (broker_connect), as desktop nodes link in a game: it dials the seats after
    it and takes the links the seats before it open, each proving its key; then it plays.
    {within?}: seconds to wait for those links. {store?, names?}: keep the game in the tab."""
    import tab_games
    import tab_net

    args, key, genesis, me = _seat_args(data, "seat_relay")
    store = None
    if args.get("store"):                  # stored before anything is signed here (the genesis is, already)
        names = args.get("names") or [f"seat {i}" for i in range(len(genesis.seats))]
        store = tab_games.create(args["genesis"], me, args["secret"], [str(n) for n in names], tab_net.broker().url)
        await store.flush()
    return await _relay(args, key, genesis, store, None, wait=True)


async def _relay(args: dict[str, Any], key: SigningKey, genesis: G.Genesis, store: Any, endpoint: Any,
                 wait: bool) -> dict[str, Any]:
    """The seat over lasting relay links (tab_relay.SeatLinks); with `wait`, once all are up."""
    import tab_net
    from tab_relay import SeatLinks

    links = SeatLinks(tab_net.broker(), key, genesis.game_id, genesis.seats, float(args.get("within", 30.0)),
                      endpoint)
    await links.start(wait=wait)
    return _run(args, key, links.links, [], store=store, closing=links.close)


async def seat_mail(data: bytes | None) -> dict[str, Any]:
    """As seat_relay with {"store": true}, for a turn-based genesis, plus {url}: the broker's
    ws:// URL. The game is kept in the tab's store, then its seat plays through its postbox
    on that broker (as `play_stored`)."""
    import tab_games

    args, key, genesis, me = _seat_args(data, "seat_mail")
    if type(args.get("url")) is not str:
        raise ValueError("seat_mail needs {url}: the broker's ws:// URL")
    if not genesis.turn_based:
        raise ValueError("seat_mail is for a turn-based table (this genesis is live: seat_relay)")
    names = args.get("names") or [f"seat {i}" for i in range(len(genesis.seats))]
    store = tab_games.create(args["genesis"], me, args["secret"], [str(n) for n in names], str(args["url"]))
    await store.flush()
    return await _mailed({"names": names, **args}, key, genesis, store, str(args["url"]))


async def _mailed(args: dict[str, Any], key: SigningKey, genesis: G.Genesis, store: Any, url: str) -> dict[str, Any]:
    """The stored seat through its postbox on the broker at `url` (tab_mail_links), kept open
    while it plays and closed after (the broker keeps its session)."""
    from tab_mail_links import MailTransport, load_mailbox
    from tab_postbox import TabPostbox

    box = TabPostbox(genesis.game_id, key.public, session_expiry(genesis.time_limit))
    await box.open(url, float(args.get("within", 30.0)))

    async def closing() -> None:
        box.closing = True
        await box.broker.close()
    try:
        mailbox = load_mailbox(store, genesis.game_id, list(genesis.seats), genesis.seats.index(key.public), key)
        mail = MailTransport(box, mailbox, store)
        return _run(args, key, mail.links, [], store=store, closing=closing, mail=mail)
    except BaseException:
        await closing()
        raise


async def game_resume(data: bytes | None) -> dict[str, Any]:
    """{game_id (hex, or a unique prefix), seed, within?, key?, decider?}: the stored game's
    seat runs again (its log replayed, its committed values restored) over relay links through
    the game's broker, dialling and taking links as they come. `key`: the seat's key seed
    (default: the tab's own key)."""
    args = request(data, "game_resume", "game_id", "seed")
    return await play_stored(args)


async def play_stored(args: dict[str, Any], endpoint: Any = None) -> dict[str, Any]:
    """Play the stored game `args["game_id"]` (see `game_resume`): the tab connects to the
    broker the game was made through (kept with it) unless it is connected there; the table
    page's names are the stored ones unless given. `endpoint`: the game's inbox already
    listened on (a lobby listens before it signs, tab_lobby)."""
    import tab_games
    import tab_net
    import tab_store

    store = tab_games.load(args["game_id"])
    meta = store.meta()
    key = SigningKey.from_seed(args["key"]) if args.get("key") is not None else tab_store.identity()
    genesis, me = _seat_of({**args, "genesis": store.genesis()}, key)
    if me != meta["seat"]:
        raise ValueError(f"the key {fingerprint(key.public)} is not seat {meta['seat']} of stored game "
                         f"{genesis.game_id.hex()[:16]}")
    if genesis.turn_based and meta.get("broker"):          # store and forward: never live links
        answer = await _mailed({"names": meta["names"], **args}, key, genesis, store, meta["broker"])
    else:
        if meta.get("broker"):
            await tab_net.connected(meta["broker"])
        answer = await _relay({"names": meta["names"], **args}, key, genesis, store, endpoint, wait=False)
    return {**answer, "game_id": genesis.game_id.hex(), "replayed": _seat().replayed}


async def games_list(_: bytes | None) -> dict[str, Any]:
    import tab_games
    return {"games": tab_games.games()}


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
       "seat_state": seat_state, "game_resume": game_resume, "games_list": games_list, "seat_mail": seat_mail}
