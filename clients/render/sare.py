"""Sa-Rê board pictures: every building site, the Season cards in play, the reserve, whose turn.

Pure functions of a view (protocol/games/sare/view.py): a face-down card is drawn as a back
unless the view itself resolves its face (the viewer's own Temple cards, a card it put back,
the set-aside card it consulted). Click targets (`data-target`) use the ids of
clients.narrate.sare: `p{seat}-s{space}` a site space, `p{seat}-pc{index}` a building or project,
`p{seat}-revolt` a revolt gauge, `p{seat}-warehouse` a warehouse, `temple-{handle}` a Temple card.
"""

from __future__ import annotations

from typing import Any

from clients.narrate.sare import BUILDING, PHASE, SCENARIO, card_name, piece_name, piece_target, space_target
from clients.render.common import SEAT_MARKS, Svg, seat_label
from protocol.games.sare.data import CARAVAN_MAX, COLS, NILE, N_SPACES, RED, WH_CAP

WIDTH = 1200
CODE = {"warehouse": "Wh", "master_builder": "MB", "carpenter": "Ca", "stonemason": "St", "goldsmith": "Go"}
TOKEN_FILL = {"W": "#a0522d", "G": "#e6b422", "S": "#8f99a3", "J": "#8e6cc0"}
CARD_SHORT = {"W": "Wood", "G": "Gold", "S": "Stone", "horus": "Horus", "hoshekh": "Hoshekh",
              "troubles1": "Troubles", "troubles2": "Troubles"}
WAITING = {"order": "the seat order draw", "setup": "placing the Warehouse and Master Builder",
           "p1": "projects", "dbl": "the double-resource card", "shuffle": "the Season cards shuffle",
           "dark_shuffle": "the darkness shuffle", "draw": "a Season card draw",
           "poll": "the poll: buildings, then continue or stop", "market": "a Market exchange",
           "palace": "the Palace window (requisition the card?)", "tw": "the Troubles window (Gardens/Library?)",
           "temple_show": "a private Temple draw", "oracle_show": "a private look at the set-aside card",
           "temple_pos": "the Temple: top or bottom of the shoe", "temple_ret": "the Temple: card to put back",
           "market_final": "the last Market exchanges", "p3": "construction", "store": "storage",
           "over": "nobody: the game is over"}
GOAL = {"scribe": 13, "priest": 5, "pharaoh": 8}

EXTRA_STYLE = """
.space { fill: var(--bg); stroke: var(--line); }
.nile { fill: #3b8fd4; fill-opacity: .22; stroke: var(--line); }
.built { fill-opacity: .45; stroke-width: 2; }
.project { fill: none; stroke-width: 2; stroke-dasharray: 5 3; }
.turn { stroke: var(--hi); stroke-width: 3; }
.cube { fill: var(--fg); }
.redspace { fill: var(--hi); fill-opacity: .3; stroke: var(--hi); }
.gauge, .frame { fill: none; stroke: var(--line); }
.frame { fill: var(--bg); fill-opacity: .01; }
text, circle, .gauge, .redspace, .cube, .nohit { pointer-events: none; }
.back { fill: var(--line); fill-opacity: .55; stroke: var(--fg); stroke-width: .6; }
.face { fill: var(--bg); stroke: var(--fg); stroke-width: .8; }
.hot { fill: var(--hi); fill-opacity: .18; stroke: var(--hi); stroke-width: 1; }
text.tok { fill: #111; font-size: 10px; font-weight: 700; text-anchor: middle; }
text.c { text-anchor: middle; }
text.b { font-weight: 600; }
"""


def _seat_names(view: dict, names: list[str]) -> list[str]:
    n = len(view["players"])
    return [names[s] if s < len(names) and names[s] else f"seat {s}" for s in range(n)]


# ------------------------------------------------------------------ SVG

def svg(view: dict[str, Any], names: list[str]) -> str:
    names = _seat_names(view, names)
    n = len(view["players"])
    rows = (n + 1) // 2
    height = 262 + rows * 262 + 58
    d = Svg(WIDTH, height, "Sa-Rê")
    d.raw(f"<style>{EXTRA_STYLE}</style>")
    _header(d, view, names)
    _season(d, view, 8, 62)
    _supply(d, view, 812, 62)
    for p in range(n):
        _player(d, view, names, p, 8 + (p % 2) * 596, 262 + (p // 2) * 262)
    _legend(d, names, height - 52)
    return str(d)


def _header(d: Svg, view: dict, names: list[str]) -> None:
    phase = PHASE.get(view["phase"], view["phase"])
    d.text(12, 24, f"Sa-Rê — turn {view['turn']} of {view['turn_limit']} · {SCENARIO[view['scenario']]} scenario"
           f"{' · Architect variant' if view['architect'] else ''} · {phase}", class_="title")
    who = view["to_act"]
    wait = WAITING.get(view["stage"], view["stage"])
    whom = "you" if who is not None and who == view.get("seat") else seat_label(names, who) if who is not None else ""
    line = (f"Waiting for {whom}: {wait}" if who is not None and view["phase"] != "over"
            else f"Waiting for {wait}")
    if "result" in view:
        r = view["result"]
        line = ("Game over — winner" + ("s" if len(r["winners"]) > 1 else "") + ": "
                + ", ".join(seat_label(names, s) for s in r["winners"])
                + " · scores " + ", ".join(f"{SEAT_MARKS[s]} {sc}" for s, sc in enumerate(r["scores"])))
    d.text(12, 46, line, class_="b")
    if view["order"]:
        order = " › ".join(f"{SEAT_MARKS[s]} {names[s]}" for s in _turn_order(view))
        d.text(WIDTH - 12, 24, f"Turn order from the first player: {order}", class_="small", text_anchor="end")


def _turn_order(view: dict) -> list[int]:
    order = view["order"]
    i = order.index(view["first_player"]) if view["first_player"] in order else 0
    return order[i:] + order[:i]


def _card(d: Svg, x: float, y: float, card: dict | None, w: int = 44, h: int = 60, label: str = "",
          target: str | None = None, handle: int | None = None) -> None:
    """A Season card: its face if known (`card` given), else a back. `handle`: a face-down card's public handle."""
    if card is None:
        d.rect(x, y, w, h, rx=4, class_="back", data_target=target, data_handle=handle)
        d.text(x + w / 2, y + h / 2 + 4, "?", class_="c b")
    else:
        kind = card["kind"]
        d.rect(x, y, w, h, rx=4, class_="face", data_target=target, data_card=kind, data_handle=handle)
        if kind in TOKEN_FILL:
            d.circle(x + w / 2, y + h / 2 - 4, min(w, h) / 4, fill=TOKEN_FILL[kind])
            d.text(x + w / 2, y + h / 2, kind, class_="tok")
        elif kind.startswith("troubles"):
            d.text(x + w / 2, y + h / 2, "⚠" * (2 if kind == "troubles2" else 1), class_="c b")
        else:
            d.text(x + w / 2, y + h / 2, "☀" if kind == "horus" else "☾", class_="c b")
        d.text(x + w / 2, y + h - 5, CARD_SHORT[kind], class_="c small")
    if label:
        d.text(x + w / 2, y - 4, label, class_="c small muted")


def _token(d: Svg, x: float, y: float, t: str, count: int | None = None) -> float:
    """A resource token (colour and letter) with its count; returns the x after it."""
    d.circle(x + 8, y, 8, fill=TOKEN_FILL[t], stroke="#333", stroke_width=0.5)
    d.text(x + 8, y + 3.5, t, class_="tok")
    if count is None:
        return x + 20
    d.text(x + 19, y + 4, f"×{count}")
    return x + 19 + 8 * len(f"×{count}") + 4


def _tokens(d: Svg, x: float, y: float, counts: dict[str, int], skip_zero: bool = True) -> float:
    any_ = False
    for t in "WGSJ":
        c = counts.get(t, 0)
        if c or not skip_zero:
            x = _token(d, x, y, t, c)
            any_ = True
    if not any_:
        d.text(x, y + 4, "—", class_="muted")
    return x


def _season(d: Svg, view: dict, x0: float, y0: float) -> None:
    d.rect(x0, y0, 796, 192, rx=6, class_="panel")
    d.text(x0 + 10, y0 + 18, "Season cards", class_="b")
    top = y0 + 42
    cur = view["current_card"]
    _card(d, x0 + 12, top, cur, 64, 88, "current card") if cur else d.text(x0 + 12, top + 40, "no card", class_="muted")
    dbl = view["double_card"]
    d.text(x0 + 92, top - 4, "double card", class_="small muted")
    d.rect(x0 + 92, top, 64, 88, rx=4, class_="face")
    if dbl:
        for i, t in enumerate(dbl):
            _token(d, x0 + 96 + i * 28, top + 34, t)
        d.text(x0 + 124, top + 80, "→ last down" if "G" in dbl else "→ first down", class_="c small")
    else:
        d.text(x0 + 124, top + 48, "—", class_="c muted")
    # Production of the turn
    d.text(x0 + 172, top - 4, "Production of the turn", class_="small muted")
    d.rect(x0 + 172, top, 150, 40, rx=4, class_="face")
    _tokens(d, x0 + 178, top + 20, view["display"])
    if view["horus_pending"]:
        d.text(x0 + 172, top + 56, f"Horus: {view['horus_pending']} more to draw", class_="small b")
    # shoe and set-aside card
    shoe = view["shoe"]
    sx = x0 + 336
    d.text(sx, top - 4, f"Shoe ({len(shoe)})", class_="small muted")
    for i in range(min(len(shoe), 6)):
        d.rect(sx + i * 3, top + i * 2, 44, 60, rx=4, class_="back")
    face_up = view.get("shoe_top")          # a face-up shoe (option shoe=up): everyone sees its top card
    if face_up:
        _card(d, sx + 15, top + 10, face_up)
        d.text(sx, top + 84, f"top, face up: {card_name(face_up)}", class_="small")
    known = [(i, c["card"]) for i, c in enumerate(shoe) if "card" in c and not (i == 0 and face_up)]
    if shoe and not face_up:
        d.text(sx + 32, top + 46, str(len(shoe)), class_="c b")
    for j, (i, c) in enumerate(known[:2 - bool(face_up)], start=bool(face_up)):
        where = "top" if i == 0 else ("bottom" if i == len(shoe) - 1 else f"#{i + 1}")
        d.text(sx, top + 84 + 12 * j, f"you know {where}: {card_name(c)}", class_="small")
    aside = view["set_aside"]
    ax = x0 + 430
    d.text(ax, top - 4, "set aside", class_="small muted")
    if aside:
        _card(d, ax, top, aside.get("card"), handle=aside["handle"])
    # Temple hand (private draw in progress)
    hand = view["temple_hand"]
    tx = x0 + 490
    d.text(tx, top - 4, "Temple draw", class_="small muted")
    for i, c in enumerate(hand):
        _card(d, tx + i * 50, top, c.get("card"), target=f"temple-{c['handle']}", handle=c["handle"])
    if not hand:
        d.text(tx, top + 30, "—", class_="muted")
    # piles
    py = top + 100
    _pile(d, x0 + 12, py, "Discard", view["discard"])            # up to 3 lines of names below it
    d.text(x0 + 200, py, f"Darkness pile: {view['darkness']} face down", class_="small")
    _pile(d, x0 + 200, py + 22, "Hoshekh", view["hoshekh"])
    _pile(d, x0 + 400, py + 22, "Removed (darkness)", view["removed"])
    if view.get("market"):
        m = view["market"]
        d.text(x0 + 590, top + 10, f"Market: {SEAT_MARKS[m['user']]} seat {m['user']} ↔ "
               f"{SEAT_MARKS[m['target']]} seat {m['target']}", class_="small b")
        d.text(x0 + 590, top + 24, f"{m['swaps_left']} exchange(s) left", class_="small")
    if view["laid_down"] and view["phase"] in ("p2", "p3"):
        d.text(x0 + 590, top + 50, "Laid down, in order:", class_="small muted")
        d.text(x0 + 590, top + 64, "  ".join(f"{SEAT_MARKS[s]}{s}" for s in view["laid_down"]), class_="small")


def _pile(d: Svg, x: float, y: float, title: str, cards: list[dict]) -> None:
    """A pile's title and its cards, at most 3 lines of names (34 characters each)."""
    d.text(x, y, f"{title} ({len(cards)}):", class_="small muted")
    names = [CARD_SHORT[c["kind"]] + ("×2" if c["kind"] == "troubles2" else "") for c in cards]
    line, lines = "", []
    for nm in names:
        if len(line) + len(nm) > 34:
            lines.append(line)
            line = ""
        line += ("" if not line else ", ") + nm
    if line:
        lines.append(line)
    for i, ln in enumerate(lines[:3]):
        d.text(x, y + 13 + 12 * i, ln, class_="small")


def _supply(d: Svg, view: dict, x0: float, y0: float) -> None:
    d.rect(x0, y0, 380, 192, rx=6, class_="panel")
    d.text(x0 + 10, y0 + 18, "General reserve", class_="b")
    _tokens(d, x0 + 140, y0 + 14, view["reserve"], skip_zero=False)
    d.text(x0 + 10, y0 + 44, "Reference Board: building tiles left", class_="b")
    for i, (k, c) in enumerate(view["board"].items()):
        x = x0 + 10 + (i % 3) * 124
        y = y0 + 62 + (i // 3) * 18
        d.text(x, y, f"{BUILDING[k]}{' (' + CODE[k] + ')' if k in CODE else ''}: {c}",
               class_="small" + (" muted" if not c else ""))
    pyr = view["pyramids_available"]
    d.text(x0 + 10, y0 + 148, "Pyramids left: " + (", ".join(str(p) for p in pyr) if pyr else "none"),
           class_="small")
    d.text(x0 + 10, y0 + 170, f"Goal ({SCENARIO[view['scenario']]}): progress {GOAL[view['scenario']]} wins",
           class_="small muted")


def _player(d: Svg, view: dict, names: list[str], p: int, x0: float, y0: float) -> None:
    pl = view["players"][p]
    acting = view["to_act"] == p and view["phase"] != "over"
    d.rect(x0, y0, 588, 254, rx=6, class_="panel" + (" turn" if acting else ""))
    d.rect(x0, y0, 10, 254, class_=f"seat{p}")
    you = " — you" if view["seat"] == p else ""
    d.text(x0 + 18, y0 + 19, f"{seat_label(names, p)}{you}", class_=f"title seat{p}")
    tags = []
    if p == view["first_player"] and view["order"]:
        tags.append("first player")
    if acting:
        tags.append("▶ to act")
    tags.append({"standing": "Obelisk standing", "lying": "Obelisk lying down", "revolt": "REVOLT"}[pl["obelisk"]])
    d.text(x0 + 300, y0 + 19, " · ".join(tags), class_="b")
    _site(d, view, p, x0 + 16, y0 + 30)
    d.text(x0 + 18, y0 + 248, f"Progress toward the {SCENARIO[view['scenario']]} goal: "
           f"{pl['progress']}/{GOAL[view['scenario']]}", class_="small b")
    _gauges(d, pl, p, x0 + 300, y0 + 34)


def _site(d: Svg, view: dict, p: int, x0: float, y0: float) -> None:
    cw, ch = 66, 70
    by_space: dict[int, list[dict]] = {}
    for pc in view["players"][p]["pieces"]:
        by_space.setdefault(pc["space"], []).append(pc)
    for s in range(N_SPACES):
        x, y = x0 + (s % COLS) * cw, y0 + (s // COLS) * ch
        d.rect(x, y, cw - 2, ch - 2, class_="nile" if s in NILE else "space", data_target=space_target(p, s),
               tip=f"space {s}{' (Nile bank)' if s in NILE else ''} of seat {p}: "
                   + (", ".join(piece_name(pc) for pc in by_space.get(s, [])) or "empty"))
        d.text(x + 3, y + 10, str(s), class_="small muted")
        pcs = by_space.get(s, [])
        # a production building takes half a space (a second may join it); any other takes it all
        w = (cw - 10) / (2 if pcs and pcs[0]["kind"] in CODE else 1)
        for i, pc in enumerate(pcs):
            _piece(d, p, pc, x + 4 + i * w, y + 13, w - 2, ch - 18)


def _piece(d: Svg, p: int, pc: dict, x: float, y: float, w: float, h: float) -> None:
    built = pc["built"]
    cls = f"seat{p} seatline{p} built" if built else f"seatline{p} project"
    d.rect(x, y, w, h, rx=3, class_=cls, data_target=piece_target(p, pc["index"]), tip=piece_name(pc))
    kind = pc["kind"]
    cx = x + w / 2
    if kind == "pyramid":
        d.text(cx, y + 13, f"Pyr {pc['pyramid']}", class_="c small b")
        for i in range(pc["steps_total"]):                  # one box per step, filled when built
            d.rect(cx - pc["steps_total"] * 7 + i * 14 + 1, y + 20, 12, 10,
                   class_=f"seat{p} nohit" if i < pc["steps"] else "gauge")
        d.text(cx, y + h - 6, "built" if built else f"{pc['steps']}/{pc['steps_total']} steps", class_="c small")
        return
    label = CODE.get(kind) or BUILDING[kind]
    d.text(cx, y + h / 2, label, class_="c small b")
    d.text(cx, y + h - 5, SEAT_MARKS[p] if built else "proj.", class_="c small")


def _gauges(d: Svg, pl: dict, p: int, x0: float, y0: float) -> None:
    # revolt gauge: spaces 0..RED, black cubes at the bottom, the red space, the player's cube
    d.text(x0, y0 + 14, "Revolt", class_="b")
    gx = x0 + 56
    d.rect(gx - 4, y0, (RED + 1) * 26 + 6, 24, rx=3, class_="frame", data_target=f"p{p}-revolt")
    for s in range(RED + 1):
        x = gx + s * 26
        d.rect(x, y0 + 3, 22, 18, class_="redspace" if s == RED else "gauge")
        if s < pl["revolt_bottom"]:
            d.rect(x + 5, y0 + 6, 12, 12, class_="cube")
    cx = gx + pl["revolt"] * 26 + 11
    d.circle(cx, y0 + 12, 8, class_=f"seat{p}", stroke="#222", stroke_width=1)
    d.text(cx, y0 + 15.5, SEAT_MARKS[p], class_="tok")
    d.text(gx + (RED + 1) * 26 + 8, y0 + 16, f"{pl['revolt']}/{RED}", class_="small")
    # caravans
    y = y0 + 40
    d.text(x0, y + 4, "Caravans", class_="b")
    for i in range(CARAVAN_MAX):
        d.rect(x0 + 66 + i * 22, y - 8, 18, 16, rx=3, class_=f"seat{p}" if i < pl["caravans"] else "gauge")
    use = f" ({pl['caravans_usable']} usable now)" if pl["caravans_usable"] != pl["caravans"] else ""
    d.text(x0 + 136, y + 4, f"{pl['caravans']}/{CARAVAN_MAX}{use}", class_="small")
    # warehouse, gains, production cards
    wh = sum(1 for pc in pl["pieces"] if pc["kind"] == "warehouse" and pc["built"])
    y += 26
    d.rect(x0 - 4, y - 12, 284, 24, rx=3, class_="frame", data_target=f"p{p}-warehouse")
    held = sum(pl["warehouse"].values())
    d.text(x0, y + 4, f"Warehouse ({WH_CAP * wh})", class_="b")
    end = _tokens(d, x0 + 110, y, pl["warehouse"])
    if held > WH_CAP * wh or pl["warehouse"]["J"]:
        if end + 48 <= x0 + 280:                   # after the tokens, inside the frame
            d.text(end + 4, y + 4, "to store", class_="small b")
        else:                                      # four kinds fill the row: under its right end
            d.text(x0 + 278, y + 23, "to store", class_="small b", text_anchor="end")
    y += 26
    d.text(x0, y + 4, "Beside the site", class_="small")
    _tokens(d, x0 + 110, y, pl["gains"])
    y += 24
    d.text(x0, y + 4, "Production cards", class_="small")
    end = _tokens(d, x0 + 110, y, pl["production_cards"])
    spared = {t: c for t, c in pl.get("spared", {}).items() if c}
    if spared:                                 # tokens set apart pay no build this phase
        d.text(end + 8, y + 4, "set apart:", class_="small b")
        _tokens(d, end + 66, y, spared)
    # cards and other tokens
    y += 24
    night = ", ".join(BUILDING[k] for k in pl["night_side"])
    if len(night) > 30:
        d.text(x0, y - 2, "Used this season (night side):", class_="small")
        d.text(x0, y + 10, night, class_="small")
    else:
        d.text(x0, y + 4, f"Used this season (night side): {night or '—'}", class_="small")
    y += 18
    extras = []
    if pl["library_jokers"]:
        extras.append(f"Library Jokers: {pl['library_jokers']}")
    if pl["pyramid_tokens"]:
        extras.append(f"Pyramid step Jokers: {pl['pyramid_tokens']}")
    d.text(x0, y + 4, " · ".join(extras) if extras else "", class_="small")
    y += 12
    x = x0
    if pl["palace_cards"]:
        d.text(x, y + 12, "Palace:", class_="small")
        x += 40
        for c in pl["palace_cards"]:
            _card(d, x, y, c, 38, 40)
            x += 42
    kept = pl["temple_kept"] + [{"card": c} for c in pl["temple_kept_revealed"]]
    if kept:
        d.text(x + 4, y + 12, "Temple kept:", class_="small")
        x += 70
        for c in kept:
            _card(d, x, y, c.get("card"), 38, 40, handle=c.get("handle"))
            x += 42


def _legend(d: Svg, names: list[str], y: float) -> None:
    d.line(8, y - 6, WIDTH - 8, y - 6, class_="line")
    x = 12.0
    for s in range(len(names)):
        d.rect(x, y + 2, 12, 12, class_=f"seat{s}")
        lab = seat_label(names, s)
        d.text(x + 16, y + 12, lab, class_=f"seat{s} b")
        x += 30 + 7 * len(lab)
    d.rect(x, y + 2, 22, 14, class_="seat0 seatline0 built")
    d.text(x + 26, y + 13, "built", class_="small")
    d.rect(x + 60, y + 2, 22, 14, class_="seatline0 project")
    d.text(x + 86, y + 13, "project", class_="small")
    d.rect(x + 134, y + 4, 10, 10, class_="cube")
    d.text(x + 148, y + 13, "black cube (growth)", class_="small")
    d.rect(x + 260, y + 2, 16, 14, class_="back")
    d.text(x + 280, y + 13, "face-down card", class_="small")
    d.rect(x + 366, y + 2, 16, 14, class_="nile")
    d.text(x + 386, y + 13, "Nile bank (Port only there)", class_="small")
    d.text(12, y + 32, "Wh Warehouse · MB Master Builder · Ca Carpenter (Wood) · St Stonemason (Stone) · "
           "Go Goldsmith (Gold) · tokens: W Wood, G Gold, S Stone, J Joker · revolt gauge: red space = revolt",
           class_="small muted")


# ------------------------------------------------------------------ text

def text(view: dict[str, Any], names: list[str]) -> str:
    names = _seat_names(view, names)
    lines = [f"Sa-Rê · turn {view['turn']}/{view['turn_limit']} · {SCENARIO[view['scenario']]}"
             f"{' · Architect' if view['architect'] else ''} · {PHASE.get(view['phase'], view['phase'])}"]
    who = view["to_act"]
    wait = WAITING.get(view["stage"], view["stage"])
    if "result" in view:
        r = view["result"]
        lines.append("GAME OVER · winners: " + ", ".join(seat_label(names, s) for s in r["winners"])
                     + " · scores: " + ", ".join(f"{SEAT_MARKS[s]}{sc}" for s, sc in enumerate(r["scores"])))
    else:
        lines.append(f"waiting for {seat_label(names, who)}: {wait}" if who is not None else f"waiting for {wait}")
    if view["order"]:
        lines.append("order: " + " > ".join(seat_label(names, s) for s in _turn_order(view)) + " (first player first)")
    cur = view["current_card"]
    season = [f"card: {card_name(cur) if cur else '-'}", f"double: {_short_double(view['double_card'])}",
              f"production of the turn: {_short_tokens(view['display'])}"]
    if view["horus_pending"]:
        season.append(f"Horus: {view['horus_pending']} to draw")
    lines.append(" · ".join(season))
    shoe = view["shoe"]
    face_up = view.get("shoe_top")
    known = [f"{'top' if i == 0 else 'bottom' if i == len(shoe) - 1 else '#' + str(i + 1)} {_tcard(c['card'])}"
             for i, c in enumerate(shoe) if "card" in c and not (i == 0 and face_up)]
    aside = view["set_aside"]
    cards = [f"shoe {len(shoe)}" + (f", top face up: {_tcard(face_up)}" if face_up else "")
             + (f" (you know {', '.join(known)})" if known else ""),
             f"set aside {_tcard(aside.get('card'))}" if aside else "set aside -"]
    if view["darkness"] or view["removed"] or view["hoshekh"]:
        cards.append(f"darkness {view['darkness']} · removed {len(view['removed'])} · Hoshekh {len(view['hoshekh'])}")
    if view["temple_hand"]:
        cards.append("Temple draw: " + ", ".join(_tcard(c.get("card")) for c in view["temple_hand"]))
    lines.append(" · ".join(cards))
    lines.append(f"discard: {', '.join(_tcard(c) for c in view['discard']) or '-'}")
    tiles = " ".join(f"{CODE.get(k, BUILDING[k][:3])}{c}" for k, c in view["board"].items())
    lines.append(f"reserve {_short_tokens(view['reserve'])} · tiles {tiles} · "
                 f"Pyr {','.join(map(str, view['pyramids_available'])) or '-'}")
    for p in range(len(view["players"])):
        lines.extend(_text_player(view, names, p))
    lines.append("spaces 0-11 · UPPER built · lower project · Wh MB Ca St Go production · Py pyramid · ~ Nile")
    return "\n".join(line[:100] for line in lines)


def _tcard(card: dict | None) -> str:
    """A card in a few letters for the terminal ("Troubles2"), "?" face down."""
    if not card:
        return "?"
    kind = card["kind"]
    return f"Troubles{kind[-1]}" if kind.startswith("troubles") else CARD_SHORT[kind]


def _short_double(double: list[str] | None) -> str:
    return "+".join(double) if double else "-"


def _short_tokens(counts: dict[str, int]) -> str:
    s = " ".join(f"{t}{c}" for t, c in counts.items() if c)
    return s or "-"


def _text_player(view: dict, names: list[str], p: int) -> list[str]:
    pl = view["players"][p]
    mark = ">" if view["to_act"] == p and view["phase"] != "over" else " "
    head = (f"{mark}{seat_label(names, p)}{' (you)' if view['seat'] == p else ''}"
            f"{' · first' if p == view['first_player'] and view['order'] else ''} · "
            f"{ {'standing': 'Obelisk up', 'lying': 'Obelisk down', 'revolt': 'REVOLT'}[pl['obelisk']]} · "
            f"goal {pl['progress']}/{GOAL[view['scenario']]}"
            + (" · used: " + ",".join(BUILDING[k][:4] for k in pl["night_side"]) if pl["night_side"] else ""))
    cells = [[] for _ in range(N_SPACES)]
    for pc in pl["pieces"]:
        if pc["kind"] == "pyramid":
            c = f"Py{pc['pyramid']}:{pc['steps']}/{pc['steps_total']}"
        else:
            c = CODE.get(pc["kind"]) or BUILDING[pc["kind"]][:3]
        cells[pc["space"]].append(c.upper() if pc["built"] else c.lower())
    rows = []
    for r in range(N_SPACES // COLS):
        row = []
        for s in range(r * COLS, (r + 1) * COLS):
            c = "+".join(cells[s])
            row.append(("~" if s in NILE else " ") + f"{s:>2} {c:<7}")
        rows.append("".join(row))
    gauge = "".join("#" if s < pl["revolt_bottom"] else ("@" if s == pl["revolt"] else
                                                           ("!" if s == RED else "-")) for s in range(RED + 1))
    info = [f"revolt [{gauge}] {pl['revolt']}/{RED} · caravans {pl['caravans']}/{CARAVAN_MAX}",
            f"store {_short_tokens(pl['warehouse'])} · beside {_short_tokens(pl['gains'])} · "
            f"on cards {_short_tokens(pl['production_cards'])}"
            + (f" · set apart {_short_tokens(pl['spared'])}" if any(pl.get("spared", {}).values()) else ""),
            _text_cards(pl)]
    return [head] + [f"  {rows[i]}| {info[i]}" for i in range(3)]


def _text_cards(pl: dict) -> str:
    parts = []
    if pl["palace_cards"]:
        parts.append("Palace: " + ",".join(_tcard(c) for c in pl["palace_cards"]))
    kept = [_tcard(c.get("card")) for c in pl["temple_kept"]]
    kept += [_tcard(c) for c in pl["temple_kept_revealed"]]
    if kept:
        parts.append("Temple: " + ",".join(kept))
    if pl["library_jokers"]:
        parts.append(f"Lib J{pl['library_jokers']}")
    if pl["pyramid_tokens"]:
        parts.append(f"Pyr J{pl['pyramid_tokens']}")
    return " · ".join(parts)
