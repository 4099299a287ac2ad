"""The games the home runs in its own process: each is one of the CLI's own operations
(node/app/operations.py: host, join, resume, rematch, watch) with the seat played on its table page
(node/pages/web.py); what the node says (lobby lines, the invite, errors) is kept for the home's
lobby view."""

from __future__ import annotations

import secrets
import socket
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import trio

from ..app import operations as app
from ..cli.common import main_exception
from ..app.lobby import LobbyError, advert_pace
from ..app.output import Status
from ..app.runner import Seat
from ..app.watch import WatchError


class TableStatus(Status):
    """The node's status lines, kept for the page instead of printed."""

    def __init__(self, table: "Table"):
        super().__init__(json_lines=False, quiet=True)
        self.table = table

    def __call__(self, text: str, kind: str = "status", **fields: Any) -> None:
        super().__call__(text, kind, **fields)
        self.table.on_line(text, kind, fields)


@dataclass
class Table:
    """One game the home hosts, joins or continues."""
    key: str
    title: str
    state: str = "starting"           # starting | lobby | playing | over | stopped | paused | failed | cancelled
    lines: list[str] = field(default_factory=list)
    invite: str = ""
    url: str = ""                     # the table page
    game_id: str = ""
    error: str = ""
    result: Any = None
    scope: trio.CancelScope | None = None
    again_of: str = ""                # Play again: the game it repeats
    seat: Any = None                  # its Seat (node/app/runner.py; whose `bots` Continue revives)
    stopped: str = ""
    """The node stopped without an end of the game (it gave up: nobody answered, or no abandon
    record could be made; or its store failed): the table is "stopped", not "over"."""
    hosted: bool = False
    """This home hosts it (New table, Play again): its lobby may be cancelled here."""
    joined: bool = False
    """This home joined someone's lobby: it may leave it before the game starts."""
    declined: list[str] = field(default_factory=list)
    """Play again: the friends who said "not this time", by name."""
    cancelled: bool = False
    wait_here: bool = True
    """Show the lobby on the home (invite, who joined, a failure); False: only this person's bots
    are to come on this LAN, so the page goes to the table (it shows the lobby too) at once."""

    def on_line(self, text: str, kind: str, fields: dict[str, Any]) -> None:
        if kind == "web":
            self.url = fields.get("url", "")
            return
        if kind == "invite":
            self.invite = fields.get("invite", "")
        elif kind == "lobby" and fields.get("port"):
            key = f"/{fields['host_key']}" if fields.get("host_key") else ""    # joiners refuse any other host
            self.invite = f"{lan_address()}:{fields['port']}{key}"
            self.state = "lobby"
        elif kind in ("genesis", "start"):
            self.game_id = fields.get("game_id", self.game_id)
            self.state = "playing"
        elif kind == "watching":                      # a spectator (node/app/watch.py) got the game
            self.state = "playing"
        elif kind == "status" and fields.get("lobby") and self.state == "starting":
            self.state = "lobby"                      # a spectator waits in the lobby
        elif kind == "ended":
            self.game_id, self.state = fields.get("game_id", self.game_id), "over"
        elif kind in ("gave-up", "store-failed"):
            self.stopped = text
        elif kind == "status" and " declined to play again " in text:   # node/app/lobby.py's line
            self.declined.append(text.split(" declined to play again ")[0].split(" (key ")[0])
        if kind not in ("event",):
            self.lines = (self.lines + [text])[-20:]

    def finish(self, result: Any) -> None:
        """Its node returned: the table is over, or "stopped" (with the node's line) when the
        node only gave up or its store failed, the game unfinished."""
        self.state = "over"
        if self.stopped and result is None:
            self.state, self.error = "stopped", self.stopped

    def lobby_json(self) -> dict[str, Any] | None:
        """The lobby this home hosts, as a friend waiting there wants it: the game, its options
        and each seat (who, a friend or a bot, taken or empty); None when it hosts none."""
        advert = getattr(self.seat, "advert", None)
        if self.joined and isinstance(advert, dict):      # someone else's lobby: what its advert says
            options = advert.get("options") if isinstance(advert.get("options"), dict) else {}
            seats = [{"seat": s["seat"], "name": s["name"], "taken": s["taken"],
                      "kind": "you" if s["you"] else "host" if s["seat"] == 0 else "player"}
                     for s in getattr(self.seat, "lobby_seats", None) or []]      # as its host last said
            return {"game": str(advert.get("title", "")), "players": advert.get("players"), "seats": seats,
                    "hosted": False, "seated": advert.get("seated", 0) + 1,
                    "options": [[str(k), v] for k, v in sorted(options.items())], "pace": advert_pace(advert)}
        the_lobby = getattr(self.seat, "lobby", None)
        if the_lobby is None or not self.hosted:
            return None
        bots = dict(zip(getattr(self.seat, "bot_seats", None) or [], getattr(self.seat, "bot_kinds", None) or []))
        seats = [{"seat": 0, "name": the_lobby.name or "seat 0", "kind": "you", "taken": True}]
        keys = getattr(self.seat, "bot_keys", None) or {}
        for i, joiner in enumerate(the_lobby.seating(), start=1):
            kind = bots.get(i, "") or (keys.get(joiner.key, "") if joiner else "")
            seats.append({"seat": i, "name": (joiner.name or f"seat {i}") if joiner else "",
                          "kind": f"{kind.partition('@')[0]} bot" if kind else "friend", "taken": joiner is not None})
        return {"game": the_lobby.title, "players": the_lobby.players, "seats": seats,
                "options": [[k, v] for k, v in sorted(the_lobby.options.items())], "hosted": True,
                "spectators": the_lobby.spectators, "spectators_chat": the_lobby.spectators_chat,
                "pace": advert_pace({"pace": the_lobby.pace, "time_limit": the_lobby.time_limit})}

    def to_json(self) -> dict[str, Any]:
        advert = getattr(self.seat, "advert", None)
        title = self.title
        if self.joined and isinstance(advert, dict) and advert.get("title"):
            title = str(advert["title"])[:80]              # "Sa-Rê", no longer "joining HOST:PORT"
        state = self.state
        if self.joined and isinstance(advert, dict) and state == "starting":
            state = "lobby"                                # seated in its lobby, waiting for the others
        return {"key": self.key, "title": title, "state": state, "lines": self.lines,
                "lobby": self.lobby_json() if self.state in ("starting", "lobby") else None,
                "wait_here": self.wait_here, "hosted": self.hosted, "joined": self.joined,
                "declined": self.declined,
                "invite": self.invite, "url": self.url, "game_id": self.game_id, "error": self.error}


def lan_address() -> str:
    """This machine's address on the LAN, as friends reach it (no packet is sent)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.connect(("192.0.2.1", 9))               # TEST-NET: only picks the outgoing interface
            return s.getsockname()[0]
        except OSError:
            return "127.0.0.1"


@dataclass
class Network:
    """Where the home's games meet: the LAN (and how it announces/listens), or a broker."""
    bind: str = "0.0.0.0"
    discovery_addr: str | None = None
    discovery_port: int = 47474
    discovery_bind: str = "0.0.0.0"


class Tables:
    """The running tables, started in the home's nursery."""

    def __init__(self, data_dir: Path, network: Network, nursery: trio.Nursery):
        self.data_dir, self.network, self.nursery = data_dir, network, nursery
        self.tables: dict[str, Table] = {}
        self.home_url: str | None = None
        self.notify: Callable[[str, str], None] | None = None
        """(title, table URL) when a decision waits for the person and no page of it is open
        (`caravan app --background`)."""

    def _seat(self, table: Table, name: str | None) -> Seat:
        seat = Seat(self.data_dir, self.network.bind, client="web", status=TableStatus(table))
        table.seat = seat
        seat.no_browser, seat.name, seat.home_url = True, name or None, self.home_url
        if self.notify is not None:
            notify = self.notify
            seat.notify = lambda url: notify(table.title, url)
        return seat

    @staticmethod
    def revive(table: Table) -> None:
        """Continue on a running table: the bots seated with it that are gone start again."""
        keeper = getattr(table.seat, "bots", None)
        if keeper is not None:
            keeper.revive()

    def running(self, game_id: str) -> Table | None:
        return next((t for t in self.tables.values() if t.game_id == game_id and t.state in
                     ("starting", "lobby", "playing")), None)

    def cancel(self, key: str) -> Table:
        """Close a lobby this home hosts before its game starts: its node stops, which closes
        every joiner's link (each is told the host closed the lobby); or leave one it joined
        (the host frees the seat). The table is "cancelled"."""
        table = self.tables.get(key)
        if table is None:
            raise LookupError("no such table")
        if not (table.hosted or table.joined) or table.state not in ("starting", "lobby"):
            raise ValueError("only a lobby this home hosts or joined can be left, before its game starts")
        table.cancelled = True
        if table.scope is not None:
            table.scope.cancel()
        return table

    def _start(self, title: str, run) -> Table:
        table = Table(secrets.token_hex(6), title)
        self.tables[table.key] = table

        async def go() -> None:
            with trio.CancelScope() as scope:
                table.scope = scope
                if table.cancelled:                   # cancelled before it began
                    scope.cancel()
                try:
                    table.result = await run(table)
                    table.finish(table.result)
                except Exception as exc:              # noqa: BLE001 - a table's failure must not stop the home
                    table.state, table.error = "failed", describe_failure(exc)
            if scope.cancelled_caught:
                table.state = "cancelled" if table.cancelled else "paused"
        self.nursery.start_soon(go)
        return table

    def host(self, game: str, title: str, players: int, options: dict[str, Any], bots: list[str],
             time_limit: int, name: str | None, relay: Any = None, spectators: bool | None = None,
             bot_seats: list[int] | None = None, spectators_chat: bool = True, pace: str = "live") -> Table:
        def run(table: Table):
            seat = self._seat(table, name)
            seat.relay, seat.spectators, seat.bot_seats = relay, spectators, bot_seats
            seat.spectators_chat = spectators_chat
            return app.host(game, players, options, seat, announce=True, time_limit=time_limit, bots=bots,
                            discovery_target=self.network.discovery_addr,
                            discovery_port=self.network.discovery_port, pace=pace)
        table = self._start(title, run)
        table.hosted = True
        table.wait_here = len(bots) + 1 < players or relay is not None    # a broker may be unreachable
        return table

    def join(self, target: str, name: str | None) -> Table:
        def run(table: Table):
            seat = self._seat(table, name)
            return app.join(target, seat, self.network.discovery_port, self.network.discovery_bind, 3.0)
        table = self._start(f"joining {target}", run)
        table.joined = True                           # Leave: its link closes, the host frees the seat
        return table

    def watch(self, target: str, title: str) -> Table:
        """`caravan watch TARGET --client web` in this process: its page, its verifying replica."""
        async def run(table: Table) -> int:
            def say(text: str, kind: str = "status", **fields: Any) -> None:
                table.on_line(text, kind, fields)
            return await app.watch(target, self.data_dir, say)
        return self._start(f"watching {title}", run)

    def resume(self, game_id: str, title: str) -> Table:
        def run(table: Table):
            table.game_id = game_id
            memory = app.recall(self.data_dir, game_id)[1]
            seat = self._seat(table, memory.get("name"))
            if memory.get("bind"):
                seat.bind = memory["bind"]
            return app.resume(game_id, seat)
        return self._start(title, run)

    def rematch(self, game_id: str, title: str, decline: bool = False) -> Table:
        def run(table: Table):
            memory = app.recall(self.data_dir, game_id)[1]
            seat = self._seat(table, memory.get("name"))
            return app.rematch(game_id, seat, discovery_target=self.network.discovery_addr,
                               discovery_port=self.network.discovery_port, decline=decline)
        table = self._start(f"not this time: {title}" if decline else f"Play again: {title}", run)
        table.hosted = not decline
        return table


def one_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]


def describe_failure(exc: BaseException) -> str:
    """One line for the page: the failure inside trio's exception groups, named as the CLI
    names it (a known kind by its message, anything else with its type: a bug)."""
    leaf = main_exception(exc)
    known = (LobbyError, WatchError, LookupError, ValueError, OSError, ConnectionError)
    return one_line(leaf) if isinstance(leaf, known) else f"{type(leaf).__name__}: {one_line(leaf)}"
