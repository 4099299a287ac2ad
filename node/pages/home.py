"""`caravan` (or `caravan app`): the home page, served by this one process on 127.0.0.1.

It lists the stored games (Continue, Replay, Transcript, Forget), opens new tables (game,
players, each option as a control of its kind with its help and the game's presets, the
typed values checked by the engine; each seat a friend or a bot, LAN or an MQTT broker), shows
open LAN lobbies and joins them or a pasted invite, and keeps the person's settings. Every
game runs in this process with the CLI's own operations (node/app/operations.py, node/pages/home_tables.py) and is played
on its own table page (node/pages/web.py). Every URL carries the per-install token; Host and
Origin are checked (node/pages/web_guard.py); anything else gets 403."""

from __future__ import annotations

import argparse
import json
import logging
import secrets
from functools import partial
from pathlib import Path
from typing import Any, Callable

import trio
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from clients import games as presentations
from protocol import games, genesis as G

from ..app import operations as app
from ..cli import checks as check
from ..net import discovery
from ..storage import seat_memory
from .home_tables import Network, Tables, one_line
from .notify import desktop_notify
from ..storage.store import GameStore, write_private
from ..storage.stored import stored_games
from .web import STATIC
from .web_guard import LocalOnly

log = logging.getLogger(__name__)

SETTINGS_FILE = "home.json"
PICTURES = STATIC.parent.parent / "docs" / "img"
BOT_KINDS = ("random", "heuristic", "search")
_STATIC = {"home.html": "text/html", "home.js": "text/javascript", "home.css": "text/css",
           "record.js": "text/javascript", "record.css": "text/css"}


def load_settings(data_dir: Path) -> dict[str, Any]:
    """The person's settings and the per-install token (created on first use; 0600)."""
    try:
        data = json.loads((data_dir / SETTINGS_FILE).read_text())
        data = data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        data = {}
    if not isinstance(data.get("token"), str) or len(data["token"]) < 16:
        data["token"] = secrets.token_urlsafe(18)
        save_settings(data_dir, data)
    return data


def save_settings(data_dir: Path, data: dict[str, Any]) -> None:
    data_dir.mkdir(parents=True, exist_ok=True)
    write_private(data_dir / SETTINGS_FILE, json.dumps(data).encode())


def catalog(players: dict[str, int] | None = None) -> list[dict[str, Any]]:
    """Every installed game with its player counts and options (help and default), as
    `caravan options` prints them."""
    from ..cli.tools import option_help, option_kinds, option_presets

    out = []
    for name in games.names():
        engine = games.get(name)
        n = (players or {}).get(name) or engine.min_players
        helps, kinds = option_help(name), option_kinds(name)
        defaults = engine.default_options(n)
        out.append({"game": name, "title": engine.title, "min": engine.min_players, "max": engine.max_players,
                    "picture": (PICTURES / f"{name}.png").exists() or _drawn(name),   # else drawn (installed)
                    "options": [{"key": k, "default": v, "values": (helps.get(k) or {}).get("values", ""),
                                 "help": (helps.get(k) or {}).get("help", "(no description)"),
                                 **(kinds[k].to_json() if k in kinds else {"kind": "text"})}
                                for k, v in sorted(defaults.items())],
                    # a preset fills the controls: every option, the defaults overridden by the preset
                    "presets": [{"name": p, "options": {**defaults, **o}} for p, o in option_presets(name).items()]})
    return out


class Home:
    """The home's routes; `tables` runs the games."""

    def __init__(self, data_dir: Path, network: Network):
        self.data_dir, self.network = data_dir, network
        self.settings = load_settings(data_dir)
        self.token: str = self.settings["token"]
        self.tables: Tables | None = None
        self.url = ""
        self._games_cache: dict[tuple, dict[str, Any]] = {}
        self._pictures: dict[str, str] = {}
        api = [("state", self.state, "GET"), ("options", self.options, "GET"), ("open", self.open_tables, "GET"),
               ("host", self.host, "POST"), ("join", self.join, "POST"), ("continue", self.resume, "POST"),
               ("forget", self.forget, "POST"), ("settings", self.save, "POST"), ("rematch", self.rematch, "POST"),
               ("watch", self.watch, "POST"), ("cancel", self.cancel, "POST"), ("record", self.record, "GET")]
        routes = [Route("/{token}/", self._page), Route("/{token}/record", self._record_page),
                  Route("/{token}/static/{name}", self._static),
                  Route("/{token}/transcript/{game_id}", self._transcript),
                  Route("/{token}/replay/{game_id}", self._replay), Route("/{token}/img/{game}.png", self._picture)]
        routes += [Route(f"/{{token}}/api/{name}", partial(self._api, handler), methods=[method])
                   for name, handler, method in api]
        routes.append(Route("/{path:path}", self._refuse, methods=["GET", "POST", "PUT", "DELETE"]))
        self.app = LocalOnly(Starlette(routes=routes))

    async def serve(self, port: int = 0, task_status=trio.TASK_STATUS_IGNORED) -> None:
        """Serve on 127.0.0.1:port and run the tables until cancelled; task_status gets the URL."""
        from hypercorn.config import Config
        from hypercorn.trio import serve

        config = Config()
        config.bind = [f"127.0.0.1:{port}"]
        config.accesslog = config.errorlog = None
        config.graceful_timeout = 0.5
        async with trio.open_nursery() as nursery:
            self.tables = Tables(self.data_dir, self.network, nursery)
            binds = await nursery.start(partial(serve, self.app, config))
            self.url = f"{binds[0].rstrip('/')}/{self.token}/"
            self.tables.home_url = self.url
            task_status.started(self.url)

    # ------------------------------------------------------------------ guards
    def _ok(self, request: Request) -> bool:
        return secrets.compare_digest(request.path_params.get("token", "").encode(), self.token.encode())

    async def _refuse(self, request: Request) -> Response:
        return PlainTextResponse("forbidden: this page needs the link caravan printed\n", 403)

    async def _page(self, request: Request) -> Response:
        if not self._ok(request):
            return await self._refuse(request)
        return FileResponse(STATIC / "home.html", headers={"Cache-Control": "no-store"})

    async def _record_page(self, request: Request) -> Response:
        if not self._ok(request):
            return await self._refuse(request)
        return FileResponse(STATIC / "record.html", headers={"Cache-Control": "no-store"})

    async def _static(self, request: Request) -> Response:
        name = request.path_params["name"]
        if not self._ok(request) or name not in _STATIC:
            return await self._refuse(request)
        return FileResponse(STATIC / name, media_type=_STATIC[name], headers={"Cache-Control": "no-store"})

    async def _api(self, handler, request: Request) -> Response:
        if not self._ok(request):
            return await self._refuse(request)
        body: dict[str, Any] = {}
        if request.method == "POST":
            try:
                body = await request.json()
            except ValueError:
                body = None
            if not isinstance(body, dict):
                return JSONResponse({"error": "expected a JSON object"}, 400)
        try:
            return JSONResponse(await handler(body, request))
        except (check.UsageError, LookupError, ValueError, OSError) as exc:
            return JSONResponse({"error": one_line(exc)}, 400)

    def _game_dir(self, game_id: str) -> Path:
        if not isinstance(game_id, str) or not game_id.isalnum():
            raise LookupError(f"no stored game {str(game_id)[:16]!r}")
        path = self.data_dir / "games" / game_id
        if not path.is_dir():
            raise LookupError(f"no stored game {game_id[:16]}")
        return path

    def _title(self, game_id: str) -> str:
        """A stored game's title ("Sa-Rê"), as its table is named (never its raw id)."""
        from protocol import genesis as G

        try:
            game = G.parse((self._game_dir(game_id) / "genesis.bin").read_bytes()).game
            return games.get(game).title
        except Exception:                              # noqa: BLE001 - an unreadable genesis: its own line says so
            return "a stored game"

    # ------------------------------------------------------------------ your games
    async def state(self, body: dict[str, Any], request: Request) -> dict[str, Any]:
        listed = await trio.to_thread.run_sync(stored_games, self.data_dir)
        running = {t.game_id: t for t in self.tables.tables.values() if t.game_id}
        out = []
        for g in reversed(listed):
            row = g.to_json()
            directory = Path(g.directory)
            row["last"] = max((p.stat().st_mtime for p in directory.iterdir()), default=0)
            table = running.get(g.game_id)
            row["table"] = table.to_json() if table else None
            row["title"] = games.get(g.game).title if g.game in games.names() else g.game
            row["role"] = seat_memory.recall(directory).get("role")
            out.append(row)
        return {"games": out, "tables": [t.to_json() for t in self.tables.tables.values()],
                "settings": {k: v for k, v in self.settings.items() if k in ("name", "theme", "sound")},
                "relay": self.settings.get("relay_shown", ""), "catalog": catalog()}

    async def record(self, body: dict[str, Any], request: Request) -> dict[str, Any]:
        """Your record (node/cli/records.py, clients/record.py), for record.html: the files named
        under the data directory, and whether the home can replay each game."""
        from ..cli.records import IdentityError, record_of

        try:
            rec = await trio.to_thread.run_sync(record_of, self.data_dir)
        except IdentityError as exc:
            raise ValueError(str(exc)) from None
        for item in rec["games"] + rec["skipped"]:
            path = Path(item["file"])
            if path.is_relative_to(self.data_dir):
                item["file"] = str(path.relative_to(self.data_dir))
        for g in rec["games"]:
            g["replay"] = g["file"] == f"games/{g['game_id']}/transcript.caravan"
        return {"record": rec, "settings": {"theme": self.settings.get("theme") or "auto"}}

    async def options(self, body: dict[str, Any], request: Request) -> dict[str, Any]:
        game, players = request.query_params.get("game", ""), request.query_params.get("players", "0")
        engine = check.engine(game)
        n = check.players(engine, int(players) if players.isdigit() else engine.min_players)
        return {"catalog": catalog({game: n})}

    async def open_tables(self, body: dict[str, Any], request: Request) -> dict[str, Any]:
        found = await discovery.discover(1.5, self.network.discovery_port, self.network.discovery_bind, via="udp")
        mine = {t.invite.rsplit(":", 1)[-1] for t in self.tables.tables.values() if t.state == "lobby"}
        return {"lobbies": [{"lobby": a.lobby, "title": a.title, "game": a.game, "players": a.players,
                             "seated": a.seated, "address": f"{a.host}:{a.port}", "name": a.name,
                             "mine": str(a.port) in mine, "spectators": a.spectators,
                             "player": a.player} for a in found]}

    # ------------------------------------------------------------------ actions
    async def host(self, body: dict[str, Any], request: Request) -> dict[str, Any]:
        engine = check.engine(str(body.get("game", "")))
        seats = body.get("seats")
        if not isinstance(seats, list) or not all(isinstance(s, str) for s in seats):
            raise ValueError("seats must be a list: friend, or bot:KIND[@SECONDS]")
        players = check.players(engine, len(seats) + 1)
        raw = body.get("options") or {}
        if not isinstance(raw, dict):
            raise ValueError("options must be an object of KEY: VALUE")
        options = check.typed_options(engine, raw, players)     # typed values, checked by the engine
        bots = [self._bot(s) for s in seats if s != "friend"]
        friends = len(seats) - len(bots)
        pace, limit = self._pace(body)
        if not friends:
            pace, limit = "live", 0                   # only your own bots: never abandoned, nothing to wait days for
        relay = None
        if body.get("network") == "broker":
            relay = self._relay(body)
        spectators = None if body.get("spectators") is None else body.get("spectators") is True
        spectators_chat = body.get("spectators_chat") is not False          # default: they read it
        bot_seats = [i for i, s in enumerate(seats, start=1) if s != "friend"]     # each bot where it was put
        table = self.tables.host(engine.name, engine.title, players, options, bots, limit,
                                 self.settings.get("name"), relay, spectators, bot_seats, spectators_chat, pace)
        return {"table": table.to_json()}

    @staticmethod
    def _pace(body: dict[str, Any]) -> tuple[str, int]:
        """(pace, time limit) from New table: live with its time limit (default 300 s), or
        turn-based with its time per move ("24h", "3d": 1h to 14d, as `caravan host --move-time`)."""
        pace = body.get("pace") or "live"
        if pace == "live":
            limit = int(body.get("time_limit") or 300)
            if not 0 <= limit <= 86400:
                raise ValueError(f"a live table's time limit must be 0 to 86400 s, not {limit}; "
                                 "for a slower table choose the pace turn-based")
            return "live", limit
        if pace != "turn-based":
            raise ValueError(f"pace must be live or turn-based, not {str(pace)[:20]!r}")
        try:
            return "turn-based", check.move_time(str(body.get("move_time") or "24h"))
        except argparse.ArgumentTypeError as exc:
            raise ValueError(str(exc)) from None

    @staticmethod
    def _bot(seat: str) -> str:
        kind, _, think = seat.removeprefix("bot:").partition("@")
        if kind not in BOT_KINDS or (think and check.seconds(think) <= 0):
            raise ValueError(f"unknown seat {seat!r}: friend, or bot:random|heuristic|search[@SECONDS]")
        return seat.removeprefix("bot:")

    def _relay(self, body: dict[str, Any]) -> Any:
        """The broker (its login remembered in home.json, 0600, never sent back to the page)."""
        from dataclasses import replace

        from ..net.relay_url import parse_relay_url

        text = str(body.get("relay") or self.settings.get("relay") or "")
        url = parse_relay_url(text)
        user, password = body.get("relay_user"), body.get("relay_password")
        if user:
            url = replace(url, username=str(user), password=str(password or ""))
        elif self.settings.get("relay") and url.username is None:
            saved = parse_relay_url(self.settings["relay"])
            if (saved.host, saved.port) == (url.host, url.port):
                url = saved
        self.settings["relay"], self.settings["relay_shown"] = url.with_credentials(), str(url)
        save_settings(self.data_dir, self.settings)
        return url

    async def join(self, body: dict[str, Any], request: Request) -> dict[str, Any]:
        target = str(body.get("invite", "")).strip()
        if not target or (":" not in target and not target.startswith("caravan+")):
            raise ValueError(f"{target[:80]!r} is not an invite: paste HOST:PORT/KEY, or caravan+mqtt://HOST:PORT/LOBBY_ID/KEY")
        target = check.join_target(target)             # the CLI's own check (a ValueError): HOST:PORT[/KEY] or an invite
        return {"table": self.tables.join(target, self.settings.get("name")).to_json()}

    async def watch(self, body: dict[str, Any], request: Request) -> dict[str, Any]:
        """Watch a LAN table from Open tables (its HOST:PORT) as a spectator."""
        target = str(body.get("address", "")).strip()
        check.host_port(target)                       # the CLI's check (a UsageError): HOST:PORT
        return {"table": self.tables.watch(target, str(body.get("title") or target)[:80]).to_json()}

    async def resume(self, body: dict[str, Any], request: Request) -> dict[str, Any]:
        game_id = str(body.get("game_id", ""))
        self._game_dir(game_id)
        table = self.tables.running(game_id)
        if table is None:
            table = self.tables.resume(game_id, self._title(game_id))
        else:
            self.tables.revive(table)                 # a bot of it that is gone comes back
        return {"table": table.to_json()}

    async def rematch(self, body: dict[str, Any], request: Request) -> dict[str, Any]:
        game_id = str(body.get("game_id", ""))
        self._game_dir(game_id)
        decline = body.get("decline") is True          # a friend's "Not this time"
        asked = game_id + (" decline" if decline else "")
        again = next((t for t in self.tables.tables.values() if t.again_of == asked), None)
        if again is None:                             # one new table (or one decline) per game, however often asked
            again = self.tables.rematch(game_id, self._title(game_id), decline)
            again.again_of = asked
        return {"table": again.to_json()}

    async def cancel(self, body: dict[str, Any], request: Request) -> dict[str, Any]:
        """Cancel: close a lobby this home hosts (its joiners are told), before the game starts."""
        table = self.tables.cancel(str(body.get("key", "")))
        with trio.move_on_after(5):                   # the node's task ends at once: its lobby closed
            while table.state in ("starting", "lobby"):
                await trio.sleep(0.02)
        return {"table": table.to_json()}

    async def forget(self, body: dict[str, Any], request: Request) -> dict[str, Any]:
        game_id = str(body.get("game_id", ""))
        self._game_dir(game_id)
        if self.tables.running(game_id):
            raise ValueError("this game is running here; it can be forgotten once it is paused or over")
        return {"trash": str(app.forget(self.data_dir, game_id))}

    async def save(self, body: dict[str, Any], request: Request) -> dict[str, Any]:
        from ..app.lobby import clean_name

        if "name" in body:
            self.settings["name"] = clean_name(str(body["name"])) or ""
        if body.get("theme") in ("light", "dark", "auto"):
            self.settings["theme"] = body["theme"]
        if "sound" in body:
            self.settings["sound"] = bool(body["sound"])
        save_settings(self.data_dir, self.settings)
        return {"settings": {k: self.settings.get(k) for k in ("name", "theme", "sound")}}

    # ------------------------------------------------------------------ files
    async def _transcript(self, request: Request) -> Response:
        if not self._ok(request):
            return await self._refuse(request)
        try:
            path = self._game_dir(request.path_params["game_id"]) / "transcript.caravan"
        except LookupError:
            return PlainTextResponse("no such game\n", 404)
        if not path.exists():
            return PlainTextResponse("no transcript yet: the game is not over\n", 404)
        return FileResponse(path, media_type="application/octet-stream",
                            filename=f"caravan-{request.path_params['game_id'][:16]}.caravan")

    async def _picture(self, request: Request) -> Response:
        """A game's picture for New table: docs/img's where the source tree has it, else (an
        installed home has no docs/) the same board drawn by the renderer, as SVG."""
        game = request.path_params["game"]
        if not self._ok(request) or game not in games.names():
            return await self._refuse(request)
        path = PICTURES / f"{game}.png"
        if path.exists():
            return FileResponse(path, media_type="image/png")
        if game not in self._pictures:
            self._pictures[game] = await trio.to_thread.run_sync(_drawn_picture, game)
        if not self._pictures[game]:
            return PlainTextResponse("no picture\n", 404)
        return Response(self._pictures[game], media_type="image/svg+xml", headers={"Cache-Control": "max-age=3600"})

    async def _replay(self, request: Request) -> Response:
        from clients import replay
        from protocol.verify import verify_bytes

        if not self._ok(request):
            return await self._refuse(request)
        try:
            path = self._game_dir(request.path_params["game_id"]) / "transcript.caravan"
            data = path.read_bytes()
        except (LookupError, OSError):
            return PlainTextResponse("no transcript yet: the game is not over\n", 404)

        def build() -> str:
            report = verify_bytes(data)
            title = games.get(report.game).title if report.game else "Caravan"
            return replay.html(report, replay.frames(data, report), title)
        return HTMLResponse(await trio.to_thread.run_sync(build), headers={"Cache-Control": "no-store"})


def _drawn(game: str) -> bool:
    """The game's board is one `make screenshots` draws (its presentation's screenshot): New
    table can draw its picture itself."""
    return presentations.get(game).screenshot is not None


def _drawn_picture(game: str) -> str:
    """The board `make screenshots` photographs for docs/img (a game well under way)."""
    from clients.screenshots import board_svg

    try:
        players, steps = presentations.get(game).screenshot or (games.get(game).min_players, 0)
        return board_svg(game, players, steps)[0]
    except Exception as exc:                          # noqa: BLE001 - New table goes on without it
        log.warning("could not draw %s's picture: %s", game, exc)
        return ""


async def run_home(data_dir: Path, network: Network, port: int, status, open_browser: bool,
                   background: Callable[[list[str]], None] | None = None) -> None:
    """Serve the home until cancelled; `status(url)` is told where. With `background`, the
    turn-based games are continued at once and it is told their titles (see answer_for)."""
    home = Home(data_dir, network)
    async with trio.open_nursery() as nursery:
        try:
            url = await nursery.start(home.serve, port)
        except OSError as exc:
            raise OSError(f"cannot serve the home on 127.0.0.1:{port}: {exc.strerror or exc}") from None
        status(url)
        if background is not None:
            background(await answer_for(home, nursery))
        if open_browser:
            from .browser import open_page
            await trio.to_thread.run_sync(open_page, url, data_dir)


async def answer_for(home: Home, nursery: trio.Nursery) -> list[str]:
    """`caravan app --background`: continue every unfinished turn-based game this person holds
    a seat in (its node takes every step it can without them: shares, reveals, its bots) and
    tell them on the desktop when one waits for their move with no page open. Returns the
    games' titles. A game another process runs is left to it."""
    assert home.tables is not None

    def _tell(title: str, url: str) -> None:
        nursery.start_soon(partial(trio.to_thread.run_sync, desktop_notify, f"Your move: {title}",
                                   f"Caravan: a decision waits for you. Open {url}", abandon_on_cancel=True))
    home.tables.notify = _tell
    listed = await trio.to_thread.run_sync(stored_games, home.data_dir)
    titles = []
    for g in listed:
        if (g.state != "playing" or g.pace != G.TURN_BASED or g.my_seat is None or home.tables.running(g.game_id)
                or GameStore(home.data_dir, bytes.fromhex(g.game_id)).running_in() is not None):
            continue
        title = games.get(g.game).title if g.game in games.names() else g.game
        home.tables.resume(g.game_id, title)
        titles.append(title)
    return titles
