"""The table page's lines (specs/client-api.md, plus `board`): what a seat's page is sent, as
pure functions of the seat's own view and session state, with no transport.

The desktop node's page server (node/pages/web.py, over a WebSocket) and the browser tab's
worker (clients/tab/py/tab_table.py, over the worker's message port) both build their
messages here, so the two pages get the very same lines: hello, board (the seat's picture as
SVG, with a status line), decide (the offered actions, grouped and placed), event, result;
and the page's answer, act, is checked here. Every view given is the seat's own: nothing in
these lines holds more than that seat may see.
"""

from __future__ import annotations

import json
from typing import Any

from protocol import games

from . import games as presentations
from . import narrate, render
from .api_json import to_json


def hello(info: dict[str, Any]) -> dict[str, Any]:
    """{"type": "hello", "game", "title", "seat", "seats", "names", "options", "game_id", ...}."""
    return {"type": "hello", **to_json(info)}


def board(game: str, view: dict[str, Any], names: list[str], status: str, applied_at: float | None = None,
          table: dict[str, Any] | None = None) -> dict[str, Any]:
    """The seat's picture of its view; `applied_at` (Unix time of the event it shows) and
    `table` (waiting, chosen, since: see `table_state`) feed the page's clock."""
    return board_svg(render.svg(game, view, names), status, applied_at, table)


def board_svg(svg: str, status: str, applied_at: float | None = None,
              table: dict[str, Any] | None = None) -> dict[str, Any]:
    """A board line around a picture already drawn (the lobby's, a spectator's)."""
    return {"type": "board", "svg": svg, "status": status, "at": applied_at, **(table or {})}


def actions(game: str, view: Any, legal: list[Any], kind: str, seat: int) -> list[dict[str, Any]]:
    """The offered actions: {"id", "action", "text", "group", "target"} each, in `legal`'s order."""
    return offered(legal, narrate.moves(game, view, legal, seat))


def offered(legal: list[Any], moves: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """`legal` with each action's words (a presenter's answer), numbered by id."""
    return [{"id": i, "action": to_json(a), **m} for i, (a, m) in enumerate(zip(legal, moves))]


def decide(decision: int, kind: str, view: Any, offered_actions: list[dict[str, Any]]) -> dict[str, Any]:
    """A decision the page answers with {"type": "act", "decision", "action": id}."""
    return {"type": "decide", "decision": decision, "kind": kind, "view": to_json(view), "actions": offered_actions}


def event(info: dict[str, Any], lines: list[str]) -> dict[str, Any]:
    """An applied event in words for the seat (`info`: narrate.event_dict's public content)."""
    return to_json({"type": "event", "seat": narrate.acting_seat(info), "text": "\n".join(lines), "event": info})


def result(value: Any, extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """The game's result (None: it ended without one), with the game-over box's links."""
    return {"type": "result", "result": to_json(value), **(extra or {})}


def error(message: str) -> dict[str, Any]:
    return {"type": "error", "message": message}


def act_error(msg: Any, decision: int | None, offered_count: int) -> str | None:
    """Why the page's answer `msg` cannot be taken for the open `decision` (None: no decision
    is open) with `offered_count` actions; None when it can (its "action" is the id)."""
    if not isinstance(msg, dict) or msg.get("type") != "act":
        return 'expected {"type": "act", "decision": n, "action": id}'
    if decision is None or msg.get("decision") != decision:
        return "that decision is not open (the game has moved on)"
    choice = msg.get("action")
    if type(choice) is not int or not 0 <= choice < offered_count:
        return f"action must be one of the offered ids 0..{offered_count - 1}"
    return None


def table_state(session: Any) -> dict[str, Any]:
    """Whom the game waits for, who has already made the secret choice it waits on, what for,
    whether a person decides it, and their `key` (a change of the key is worth a new picture)."""
    waiting = session.waiting_for()
    need = session.need
    chosen = [s for s in need.seats if s not in waiting] if need is not None and need.kind == "commit" else []
    what, person = session.need_words(), session.needs_a_person()
    return {"waiting": waiting, "chosen": chosen, "what": what, "person": person,
            "key": (tuple(waiting), tuple(chosen), what)}


def waiting_text(names: list[str], seat: int, table: dict[str, Any]) -> str:
    """The board's status line: "your decision", or whom the game waits for and for what."""
    waiting, chosen = table["waiting"], table["chosen"]
    if not waiting:
        return "the game is over"
    if waiting == [seat] and table["person"]:
        return "your decision"
    done = "".join(f"{'you have' if s == seat else narrate.seat_name(names, s) + ' has'} chosen; " for s in chosen)
    return f"{done}waiting for {narrate.awaited(names, waiting, table['what'], table['person'], seat)}"


def games_js(names: list[str] | None = None) -> str:
    """The page's games.js: each game's bits of the table page (how to play, the result's
    captions, the tie-break) from its presentation, so the page lists no game itself. `names`:
    those games (default: every registered one)."""
    bits = {game: presentations.page(game) for game in (games.names() if names is None else names)}
    return f"export const GAMES = {json.dumps(bits, ensure_ascii=False)};\n"
