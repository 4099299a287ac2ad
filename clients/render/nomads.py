"""Nomads of Arabia as a picture: the desert map, boxes, markets, dice and every player's things.

`svg` and `text` are pure functions of one view (`engine.view`), so a picture shows only what
its viewer may see: the viewer's own yellow tiles face up, everyone else's as backs.
Clickable places carry `data-target` ids shared with `clients.narrate.nomads.moves`:
`field-R-C` (a board field), `box-B` and `box-B-S` (a landscape box, one species in it).
"""

from __future__ import annotations

import textwrap
from typing import Any

from clients.narrate import nomads as N
from clients.render.common import SEAT_MARKS, Svg, seat_label
from protocol.games.nomads import data as D

WIDTH, HEIGHT = 1240, 820
CELL_W, CELL_H, GAP = 84, 66, 4
MAP_X, MAP_Y = 150, 96
SIDE_X = 790

# Field colours are the game's own and stay the same in both themes; the words on them are
# always dark (light on mountains), so they read on either page background.
_FIELD_STYLE = """
.f-green { fill: #8cc084; } .f-red { fill: #dc9583; } .f-purple { fill: #b9a3dc; }
.f-blue { fill: #86bde3; } .f-grey { fill: #b7b6ad; } .f-desert { fill: #ecdcab; }
.f-city { fill: #f7f3ea; } .f-mountain { fill: #4b4b4b; }
.fld { stroke: #5b5346; stroke-width: 1; }
text.onf { fill: #1b1b1b; font-size: 11px; } text.onm { fill: #eeeeee; font-size: 11px; }
text.city { fill: #1b1b1b; font-size: 12px; font-weight: 700; }
.ytile { fill: #f2c230; stroke: #6b5200; stroke-width: 1; } text.ytxt { fill: #3a2c00; font-size: 11px; font-weight: 700; }
.btile { fill: #2f5d9e; stroke: #10233f; stroke-width: 1; } text.btxt { fill: #ffffff; font-size: 10px; font-weight: 600; }
.nomad { stroke: #1b1b1b; stroke-width: 1.2; } text.mark { fill: #ffffff; font-size: 11px; font-weight: 700; }
.turnring { fill: none; stroke: var(--hi); stroke-width: 3; }
.covered { fill: var(--line); opacity: 0.55; } .free { fill: var(--bg); stroke: var(--line); }
.pricecell { fill: none; stroke: var(--fg); stroke-width: 2.5; }   /* red means "to play" only */
.die { fill: var(--bg); stroke: var(--fg); stroke-width: 1.2; }
.waiting { fill: none; stroke: var(--hi); stroke-width: 2.5; }
"""
SPECIES_SHORT = ("donk", "goat", "horse", "camel")
YELLOW_SPACES, BLUE_SPACES = D.YELLOW_BOARD_SPACES, len(D.BLUE)      # the board's tile spaces (N.2)


def svg(view: dict[str, Any], names: list[str]) -> str:
    """The whole table as one standalone SVG document."""
    names = _names(view, names)
    s = Svg(WIDTH, HEIGHT, "Nomads of Arabia")
    s.raw(f"<style>{_FIELD_STYLE}</style>")
    wait_seat, wait_words = waiting(view, names)
    _header(s, view, names, wait_words)
    _map(s, view, wait_seat)
    _boxes(s, view, SIDE_X, MAP_Y - 14)
    _markets(s, view, SIDE_X, MAP_Y + 150)
    _dice(s, view, names, SIDE_X, MAP_Y + 396)
    _players(s, view, names, wait_seat, 20, 566)
    _legend(s, 20, HEIGHT - 22)
    return str(s)


def _names(view: dict, names: list[str]) -> list[str]:
    n = len(view["players"])
    return [names[i] if i < len(names) and names[i] else f"seat {i}" for i in range(n)]


# ----------------------------------------------------------------------------- what the game waits for

def waiting(view: dict, names: list[str]) -> tuple[int | None, str]:
    """(the seat the game waits for, or None; the words for it)."""
    ph = view["phase"]
    active = view["active"]
    if view["result"]:
        return None, "Game over: " + " ".join(N.final_words(view, names)[1:])
    if ph in N.PHASE_WAIT:
        seat = active
        if ph == "keep":
            seat = _keep_seat(view)
        if ph == "window":
            return None, "Between turns: each holder of yellow tiles may take an extra turn with one, or pass"
        whom = "you" if seat == view.get("you") else N.seat_name(names, seat)
        return seat, f"Waiting for {whom} {N.PHASE_WAIT[ph]}"
    if ph == "show":
        return active, f"{N.seat_name(names, active)} looks at the yellow tile just taken"
    if ph == "final":
        return None, "The game has ended: the held yellow tiles are being turned up"
    if ph.startswith("s_"):
        return None, "Setting up: waiting for the joint dice and draws"
    return None, "Waiting for the joint dice / card draw (everyone together)"


def _keep_seat(view: dict) -> int:
    """Who chooses the two animals to keep: the active player travelling with the pilgrim
    (the layout is whole), else the first lost nomad clockwise from the active player that
    still holds more than two (a walk is under way: row 0 is empty)."""
    players = view["players"]
    n = len(players)
    active = view["active"]
    if view["rows"][0] is not None:
        return active
    for k in range(n):
        p = players[(active + k) % n]
        if p["status"] == "lost" and sum(p["animals"]) > 2:
            return p["seat"]
    return active


_ROLL_WORDS = {
    # last_roll_kind -> (what was rolled, the die of each value: "land" or "animal")
    "first_animals": ("landscape die: the first animals (setup)", ("land",)),
    "landscape_roll": ("landscape roll: two animal dice", ("animal", "animal")),
    "animal_roll": ("animal roll: the landscape die", ("land",)),
    "random_roll": ("random roll: two animal dice and the landscape die", ("animal", "animal", "land")),
    "reroll": ("landscape die rolled again (setup random roll)", ("land",)),
}
_TRADER_ROLL_WORDS = {"catch": "capture", "lure": "lure"}


def dice_faces(view: dict, names: list[str]) -> tuple[str, list[str]] | None:
    """The last roll as (what was rolled, each die's face); None before the first roll.
    Trader dice are the thrower's, one per trader in species order (`last_roll_traders`)."""
    v = view["last_roll"]
    if not v:
        return None
    kind = view["last_roll_kind"]
    if kind in _TRADER_ROLL_WORDS:
        who = _names(view, names)[view["last_roll_seat"]]
        return (f"{who}'s trader dice ({_TRADER_ROLL_WORDS[kind]})",
                N.trader_faces(view["last_roll_traders"], v))
    what, dice = _ROLL_WORDS[kind]
    return what, [N.land_face(x) if die == "land" else N.animal_face(x) for die, x in zip(dice, v)]


# ----------------------------------------------------------------------------- svg parts

def _header(s: Svg, view: dict, names: list[str], wait_words: str) -> None:
    you = view.get("you")
    who = "spectator" if you is None else "you are " + seat_label(names, you)
    s.text(20, 28, f"Nomads of Arabia — turn {view['turn']}", class_="title")
    s.text(330, 28, f"({who})", class_="muted")
    s.rect(16, 38, WIDTH - 32, 26, rx=5, class_="panel")
    s.text(26, 56, wait_words, style="font-weight:600")


def _cell_xy(r: int, c: int) -> tuple[int, int]:
    return MAP_X + c * (CELL_W + GAP), MAP_Y + (4 - r) * (CELL_H + GAP)


def _map(s: Svg, view: dict, wait_seat: int | None) -> None:
    for c in range(D.WIDTH):
        x, _ = _cell_xy(0, c)
        s.text(x + CELL_W / 2, MAP_Y - 6, f"col {c}", class_="small muted", text_anchor="middle")
    here: dict[tuple[int, int], list[int]] = {}
    for p in view["players"]:
        if isinstance(p["position"], list):
            here.setdefault(tuple(p["position"]), []).append(p["seat"])
    for r in range(5):
        row = view["rows"][r]
        _, y = _cell_xy(r, 0)
        label = "farthest" if r == 4 else "next to pilgrim" if r == 0 else ""
        s.text(20, y + 26, f"row {r}", class_="title")
        s.text(20, y + 42, N.card_name(row["card"]) if row else "(being drawn)", class_="small muted")
        if label:
            s.text(20, y + 56, label, class_="small muted")
        if row is None:
            s.rect(MAP_X, y, 7 * (CELL_W + GAP) - GAP, CELL_H, rx=6, class_="panel", stroke_dasharray="5 4")
            continue
        for c, kind in enumerate(row["fields"]):
            _field(s, row, r, c, kind, here.get((r, c), []), wait_seat)
    _pilgrim_and_lost(s, view, wait_seat)


def _field(s: Svg, row: dict, r: int, c: int, kind: str, seats: list[int], wait_seat: int | None) -> None:
    x, y = _cell_xy(r, c)
    s.rect(x, y, CELL_W, CELL_H, rx=5, class_=f"fld f-{kind}", data_target=N.field_id(r, c),
           tip=f"{kind} field, row {r}, column {c}")
    on = "onm" if kind == "mountain" else "onf"
    s.text(x + CELL_W - 4, y + 13, f"{r},{c}", class_=f"small {on}", text_anchor="end")
    top = y + 30
    if kind == "city":
        s.text(x + 5, y + 15, "CITY", class_="city")
        if row["yellow_tile"]:
            s.rect(x + 42, y + 3, 17, 17, rx=3, class_="ytile")
            s.text(x + 50.5, y + 16, "?", class_="ytxt", text_anchor="middle")
        if row["blue_tile"]:
            s.rect(x + 4, y + 20, CELL_W - 8, 15, rx=3, class_="btile")
            s.text(x + CELL_W / 2, y + 31.5, _blue_short(row["blue_tile"]), class_="btxt", text_anchor="middle")
            top = y + 45
    else:
        s.text(x + 5, y + 15, kind, class_=on)
    _nomads(s, seats, x + 12, top, wait_seat, per_row=4)


def _blue_short(key: str) -> str:
    return "MECCA" if key == "mecca" else N.BLUE_NAMES[key]


def _nomads(s: Svg, seats: list[int], x: float, y: float, wait_seat: int | None, per_row: int) -> None:
    for i, seat in enumerate(seats):
        cx, cy = x + (i % per_row) * 20, y + (i // per_row) * 18
        if seat == wait_seat:
            s.circle(cx, cy, 11, class_="turnring")
        s.circle(cx, cy, 8.5, class_=f"nomad seat{seat}", tip=f"the nomad of seat {seat}")
        s.text(cx, cy + 4, SEAT_MARKS[seat % len(SEAT_MARKS)], class_="mark", text_anchor="middle")


def _pilgrim_and_lost(s: Svg, view: dict, wait_seat: int | None) -> None:
    _, y = _cell_xy(-1, 0)
    y += 6
    w = 7 * (CELL_W + GAP) - GAP
    pil = [p["seat"] for p in view["players"] if p["position"] == "pilgrim"]
    lost = [p["seat"] for p in view["players"] if p["position"] == "lost"]
    s.rect(MAP_X, y, w * 0.62, 46, rx=8, class_="panel")
    s.text(MAP_X + 10, y + 18, "Pilgrim's field", style="font-weight:600")
    s.text(MAP_X + 10, y + 36, "(off the board, next to row 0)", class_="small muted")
    _nomads(s, pil, MAP_X + 200, y + 23, wait_seat, per_row=6)
    lx = MAP_X + w * 0.62 + 8
    s.rect(lx, y, w * 0.38 - 8, 46, rx=8, class_="panel")
    s.text(lx + 10, y + 18, "Lost in the desert", style="font-weight:600")
    _nomads(s, lost, lx + 22, y + 34, wait_seat, per_row=6)
    x = _tile_spaces(s, view, MAP_X, y + 68)
    piles = view["piles"]
    s.text(x + 14, y + 68, f"Card piles: {piles['desert']} desert, {piles['city']} city", class_="small")
    revealed = ", ".join(N.tile_name(t["tile"]) for t in view["revealed_tiles"]) or "none"
    s.text(MAP_X, y + 86, f"Yellow tiles played or turned up: {revealed}", class_="small")


def _tile_spaces(s: Svg, view: dict, x: float, y: float) -> float:
    """The board's tile spaces (N.2): the yellow tiles still waiting there and the blue ones, each
    face down (a back), an emptied space dashed; returns the x after them."""
    s.text(x, y, "Tile spaces:", class_="small muted")
    x += 66
    for kind, spaces, waiting in (("yellow", YELLOW_SPACES, view["yellow_on_board_spaces"]),
                                  ("blue", BLUE_SPACES, view["blue_tiles_left"])):
        for i in range(spaces):
            if i >= spaces - waiting:                  # tiles leave from the first space (N.9)
                s.rect(x, y - 12, 15, 15, rx=2, class_=f"{kind[0]}tile tileback {kind}-waiting")
                s.text(x + 7.5, y, "?", class_=f"{kind[0]}txt", text_anchor="middle")
            else:
                s.rect(x, y - 12, 15, 15, rx=2, class_="line tilespace-empty", stroke_dasharray="3 2")
            x += 19
        x += 10
    mecca = any(row and row["blue_tile"] == "mecca" for row in view["rows"])
    s.text(x - 4, y, "(Mecca is placed: the game has ended)" if mecca else "(one blue is Mecca: it ends the game)",
           class_="small")
    return x - 4 + 5.4 * 37


def _boxes(s: Svg, view: dict, x0: int, y0: int) -> None:
    s.text(x0, y0, "Landscape boxes (animals to catch)", class_="title")
    bw = 84
    for b, counts in enumerate(view["boxes"]):
        x = x0 + b * (bw + 4)
        land = N.LANDSCAPES[b]
        s.rect(x, y0 + 8, bw, 112, rx=6, class_=f"fld f-{land}", data_target=N.box_id(b), tip=f"{land} landscape box")
        s.text(x + 6, y0 + 24, land, class_="onf", style="font-weight:700")
        for sp, k in enumerate(counts):
            yy = y0 + 30 + sp * 22
            s.rect(x + 4, yy, bw - 8, 19, rx=3, fill="#ffffff", fill_opacity="0.35", data_target=N.box_id(b, sp))
            s.text(x + 8, yy + 14, SPECIES_SHORT[sp], class_="onf")
            s.text(x + bw - 8, yy + 14, k, class_="onf", text_anchor="end", style="font-weight:700")


def _markets(s: Svg, view: dict, x0: int, y0: int) -> None:
    m = view["market"]
    cap = m["capacity"]
    track = D.price_track(len(view["players"]))
    s.text(x0, y0, "Markets (price = the lowest number still visible)", class_="title")
    cw = min(22, (WIDTH - 20 - x0 - 96) // cap)
    for sp in range(len(N.SPECIES)):
        y = y0 + 12 + sp * 40
        s.text(x0, y + 16, N.SPECIES[sp], style="font-weight:600")
        s.text(x0, y + 31, f"{m['animals'][sp]} here, price {m['prices'][sp]}", class_="small muted")
        k = m["animals"][sp]
        cells = []                       # numbers and fixed classes only, so built as raw markup (fast)
        for i in range(cap):
            x = x0 + 92 + i * cw
            cells.append(f'<rect x="{x}" y="{y + 2}" width="{cw - 2}" height="22" rx="2" '
                         f'class="{"covered" if i < k else "free"}"/><text x="{x + (cw - 2) / 2}" y="{y + 17}" '
                         f'class="small" text-anchor="middle">{int(track[sp][i])}</text>')
        s.raw("".join(cells))
        extra = m.get("overflow", [0] * len(N.SPECIES))[sp]
        if extra:                        # AN-X1: the surplus stays on the market, stacked on the lowest field
            s.text(x0 + 92 + cap * cw + 4, y + 17, f"+{extra} stacked", class_="small b")
        pi = min(k, cap - 1)
        s.rect(x0 + 92 + pi * cw - 1, y + 1, cw, 24, rx=3, class_="pricecell")
    r = view["reserve"]
    s.text(x0, y0 + 182, "Trader dice in the reserve: " +
           ", ".join(f"{N.SPECIES[sp]} {r[sp]}" for sp in range(len(r))), class_="small")


def _dice(s: Svg, view: dict, names: list[str], x0: int, y0: int) -> None:
    s.text(x0, y0, "Last roll", class_="title")
    d = dice_faces(view, names)
    if d is None:
        s.text(x0, y0 + 22, "(none yet)", class_="small muted")
        return
    what, faces = d
    s.text(x0 + 80, y0, what, class_="small muted")
    if view["last_roll_traders"]:            # each trader die is one kind's
        labels = N.trader_words(view["last_roll_traders"]).split(", ")
    else:
        labels = ["landscape" if die == "land" else "animal" for die in _ROLL_WORDS[view["last_roll_kind"]][1]]
    for i, f in enumerate(faces):
        x = x0 + i * 66
        s.rect(x, y0 + 8, 60, 30, rx=6, class_="die")
        s.text(x + 30, y0 + 28, f, class_="small", text_anchor="middle", style="font-weight:600")
        if i < len(labels):
            s.text(x + 30, y0 + 52, f"{labels[i]} die", class_="small muted", text_anchor="middle")


def _players(s: Svg, view: dict, names: list[str], wait_seat: int | None, x0: int, y0: int) -> None:
    s.text(x0, y0, "Players", class_="title")
    cols = [("player", 0), ("dinars", 230), ("animals (donkey goat horse camel)", 290),
            ("trader dice", 520), ("yellow tiles", 650), ("where", 1010)]
    for label, dx in cols:
        s.text(x0 + dx + 8, y0 + 18, label, class_="small muted")
    own = N.own_tiles(view)
    for i, p in enumerate(view["players"]):
        seat = p["seat"]
        y = y0 + 24 + i * 30
        s.rect(x0, y, WIDTH - 2 * x0, 27, rx=5, class_="panel")
        if seat == wait_seat:
            s.rect(x0, y, WIDTH - 2 * x0, 27, rx=5, class_="waiting")
        s.circle(x0 + 16, y + 13.5, 9.5, class_=f"nomad seat{seat}", tip=f"seat {seat}'s nomad")
        s.text(x0 + 16, y + 17.5, SEAT_MARKS[seat % len(SEAT_MARKS)], class_="mark", text_anchor="middle")
        me = " (you)" if seat == view.get("you") else ""
        s.text(x0 + 32, y + 18, N.seat_name(names, seat) + me, style="font-weight:600")
        s.text(x0 + 238, y + 18, p["money"], style="font-weight:600")
        s.text(x0 + 298, y + 18, "   ".join(f"{SPECIES_SHORT[sp]} {k}" for sp, k in enumerate(p["animals"])))
        s.text(x0 + 528, y + 18, N.trader_words(p["traders"]), class_="small")
        _tiles(s, view, p, own, x0 + 658, y + 4)
        if view["result"] and view["result"]["tile_dinars"][seat]:
            s.text(x0 + 1000, y + 18, f"+{view['result']['tile_dinars'][seat]} from tiles", class_="small",
                   text_anchor="end")
        s.text(x0 + 1018, y + 18, _where(view, p), class_="small")


def _tiles(s: Svg, view: dict, p: dict, own: dict[int, str], x: float, y: float) -> None:
    """The player's unused yellow tiles: the viewer's own face up, all others as backs."""
    faces = [N.tile_name(k) for k in own.values()] if p["seat"] == view.get("you") else []
    if view["result"]:          # the end (N.11): every held tile was turned up, in seat order, last
        held = [q["tiles_held"] for q in view["players"]]
        ends = view["revealed_tiles"][len(view["revealed_tiles"]) - sum(held):]
        start = sum(held[:p["seat"]])
        faces = [N.tile_name(t["tile"]) for t in ends[start:start + p["tiles_held"]]]
    backs = p["tiles_held"] - len(faces)
    for f in faces:
        w = 9 + 6.2 * len(f)
        s.rect(x, y, w, 19, rx=3, class_="ytile")
        s.text(x + 4, y + 14, f, class_="ytxt")
        x += w + 4
    for _ in range(max(backs, 0)):
        s.rect(x, y, 19, 19, rx=3, class_="ytile")
        s.text(x + 9.5, y + 14, "?", class_="ytxt", text_anchor="middle")
        x += 23


def _where(view: dict, p: dict) -> str:
    pos = p["position"]
    if pos == "pilgrim":
        return "with the pilgrim"
    if pos == "lost":
        return "lost in the desert"
    return f"{N.field_kind(view, pos[0], pos[1])} {pos[0]},{pos[1]}"


def _legend(s: Svg, x: float, y: float) -> None:
    s.text(x, y, "Legend:", class_="small muted")
    x += 50
    for kind in ("green", "red", "purple", "blue", "grey", "desert", "city", "mountain"):
        s.rect(x, y - 11, 14, 14, rx=2, class_=f"fld f-{kind}")
        s.text(x + 18, y, kind, class_="small")
        x += 26 + 6.5 * len(kind)
    s.rect(x, y - 12, 15, 15, rx=2, class_="ytile")
    s.text(x + 7.5, y, "?", class_="ytxt", text_anchor="middle")
    s.text(x + 20, y, "yellow tile face down", class_="small")
    x += 150
    s.rect(x, y - 11, 26, 14, rx=2, class_="btile")
    s.text(x + 32, y, "blue tile (face up)", class_="small")
    x += 140
    s.rect(x, y - 11, 14, 14, class_="covered")
    s.text(x + 18, y, "market field covered by an animal", class_="small")
    x += 215
    s.rect(x, y - 11, 14, 14, class_="pricecell")
    s.text(x + 18, y, "price", class_="small")


# ----------------------------------------------------------------------------- text

_KIND3 = {"green": "grn", "red": "red", "purple": "pur", "blue": "blu", "grey": "gry", "desert": "...",
          "city": "CITY", "mountain": "###"}


def text(view: dict[str, Any], names: list[str]) -> str:
    """The table in plain text: about 25 lines for 4 players, at most 100 columns."""
    names = _names(view, names)
    you = view.get("you")
    out = [f"Nomads of Arabia — turn {view['turn']} — "
           + ("spectator" if you is None else "you are " + seat_label(names, you))]
    out.append(waiting(view, names)[1])
    out.append("Map, row 4 farthest from the pilgrim: ... desert, ### mountain, digits = nomads (seats)")
    out.append("col      " + "".join(f"{c:<13}" for c in range(D.WIDTH)).rstrip())
    for r in range(4, -1, -1):
        row = view["rows"][r]
        if row is None:
            out.append(f"row {r}    (a new card is being drawn)")
            continue
        cells = []
        for c, kind in enumerate(row["fields"]):
            cell = _KIND3[kind]
            if kind == "city":
                cell += "Y" if row["yellow_tile"] else ""
                if row["blue_tile"]:
                    cell += "+M" if row["blue_tile"] == "mecca" else "+" + row["blue_tile"][0]
            seats = "".join(str(p["seat"]) for p in view["players"] if p["position"] == [r, c])
            cells.append(f"{cell} {seats}".strip().ljust(13))       # at most CITY+h + 6 seats
        out.append(f"row {r}    " + "".join(cells).rstrip())
    pil = " ".join(str(p["seat"]) for p in view["players"] if p["position"] == "pilgrim") or "-"
    lost = " ".join(str(p["seat"]) for p in view["players"] if p["position"] == "lost") or "-"
    out.append(f"pilgrim: {pil}   lost: {lost}   piles: {view['piles']['desert']} desert, "
               f"{view['piles']['city']} city   yellow to come: {view['yellow_on_board_spaces']}   "
               f"blue to come: {view['blue_tiles_left']}")
    out.append("CITY: Y = yellow tile face down, +d/+g/+h/+c = blue tile (that kind sells +1 here), +M = Mecca")
    out.append("kind     market  price  reserve |  " + "  ".join(f"{b:<6}" for b in N.LANDSCAPES))
    m = view["market"]
    for sp, name in enumerate(N.SPECIES):
        boxes = "  ".join(f"{view['boxes'][b][sp]:<6}" for b in range(len(N.LANDSCAPES)))
        extra = m.get("overflow", [0] * len(N.SPECIES))[sp]
        stacked = f" +{extra} stacked" if extra else ""
        out.append(f"{name:<8} {m['animals'][sp]:>2}/{m['capacity']:<3} {m['prices'][sp]:>5}  {view['reserve'][sp]:>7} |  "
                   f"{boxes}{stacked}")
    d = dice_faces(view, names)
    if d:
        out.append(f"last roll, {d[0]}: {', '.join(d[1])}")
    own = N.own_tiles(view)
    out.append("seat               dinars  animals d/g/h/c  traders d/g/h/c  tiles  where")
    wait_seat = waiting(view, names)[0]
    for p in view["players"]:
        seat = p["seat"]
        flag = ">" if seat == wait_seat else " "
        label = seat_label(names, seat)[:18]
        out.append(f"{flag}{label:<18} {p['money']:>5}   {' '.join(str(a) for a in p['animals']):<16} "
                   f"{' '.join(str(t) for t in p['traders']):<16} {p['tiles_held']:>5}  {_where(view, p)}")
    if you is not None:
        mine = ", ".join(N.tile_name(k) for k in own.values()) or "none"
        out.append(f"your yellow tiles: {mine}")
    revealed = ", ".join(N.tile_name(t["tile"]) for t in view["revealed_tiles"])
    if revealed:
        out.extend(textwrap.wrap(f"tiles played/turned up: {revealed}", 100))
    if view["result"]:
        for line in N.final_words(view, names):
            out.extend(textwrap.wrap(line, 100))
    return "\n".join(line[:100] for line in out)
