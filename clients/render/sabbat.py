"""Sabbat Magica pictures: the regions ring with its drawbridge, the manor with its mirrors, the
time card, the gardens and every player board, as SVG (browser) or plain text (terminal).

Pure functions of one view: a seat's POWER card is drawn face up only when the view shows it
(`my_power` to its owner, `players[s]["power"]` once revealed); otherwise as a card back.
Clickable places carry the data-target ids of clients.narrate.sabbat (location ids,
"drawbridge", "square-Q", "mirror-M", "bonus-I").
"""

from __future__ import annotations

from typing import Any

from clients.narrate import sabbat as N
from clients.render.common import SEAT_MARKS, Svg, seat_label
from protocol.games.sabbat import data as D

WIDTH, HEIGHT = 1240, 880
RES_SHORT = ["spider", "rat", "gem", "mask"]
GARDEN_BONUS = {      # (major, minor) in a few words; the full texts are in the rulebook, 6 Gardens
    "glass_factory": ("+1 terror per mirror", "+1 terror on a break"),
    "crystal_ball": ("+1 VP, regions of 2-3", "+1 VP, regions of 2"),
    "canteen": ("feed 2 fewer, order +2", "feed 1 fewer, order +1"),
    "training_ground": ("+1 VP per fight", "+1 VP, region fights"),
    "alchemist": ("keep 2 per batch", "keep 1 per batch"),
    "zen": ("+1 terror to drawbridge", "nothing"),
}
WHITE = "fill:#fff"          # marks drawn on a seat-coloured disc (same in both themes)
HI = "stroke:var(--hi);stroke-width:3"


def _mark(s: int) -> str:
    return SEAT_MARKS[s % len(SEAT_MARKS)]


def _fee_short(gate: str) -> str:
    return "+".join(RES_SHORT[D.RES_NAMES.index(x)] for x in gate.split("+"))


def _ordinal(k: int) -> str:
    return {1: "1st", 2: "2nd", 3: "3rd"}.get(k, f"{k}th")


def _action_no(view: dict[str, Any]) -> str:
    if view["stage"] != "turn":
        return ""
    st = view["state"]
    return f" · action {st['turn'] // st['n'] + 1} of {view['actions']}"


def _waiting(view: dict[str, Any], names: list[str], scores: bool = True) -> str:
    stage = view["stage"]
    if stage == "end":
        res = view["result"]
        win = ", ".join(seat_label(names, s) for s in res["winners"])
        table = ", ".join(f"{seat_label(names, s)} {x}" for s, x in enumerate(res["scores"]))
        return (f"Game over — {'winner' if len(res['winners']) == 1 else 'shared victory'}: {win}"
                + (f" · scores (VP + 5 per chimaera): {table}" if scores else ""))
    if stage in ("invoke", "commit"):
        return f"All players: {N.stage_words(view)}"
    if stage in ("setup", "time"):
        return N.stage_words(view)
    return f"{seat_label(names, view['actor'])} — {N.stage_words(view)}"


# ------------------------------------------------------------------ SVG
def svg(view: dict[str, Any], names: list[str]) -> str:
    n = len(view["players"])
    pic = Svg(WIDTH, HEIGHT, f"Sabbat Magica, round {view['round']}")
    # what is drawn over a clickable place lets the click through to the place itself
    pic.raw("<style>svg text, svg .ghost, svg .magician, svg .deco { pointer-events: none; }</style>")
    pic.text(14, 26, f"Sabbat Magica — round {view['round']} of {D.ROUNDS} · time card: {view['time_card']} "
                     f"({view['actions']} actions each){_action_no(view)}", class_="title")
    pic.text(14, 48, "Now: " + _waiting(view, names), style="fill:var(--hi);font-weight:600")
    caps = D.capacities(n)
    _regions(pic, view, caps)
    _manor(pic, view)
    _time_card(pic, view)
    _gardens(pic, view, caps)
    _players(pic, view, names)
    _legend(pic, view, names)
    return str(pic)


# the peoples' printed colours (RB Content of the Box): a ring round each piece, while the fill
# and the letter mark stay the seat's colour-blind-safe ones
PEOPLE_COLOURS = {"blue": "#1f4fd1", "red": "#c62828", "yellow": "#f2c200", "green": "#2e7d32"}


def people_colour(view: dict, s: int) -> str:
    """The printed colour word of seat s's people ("blue")."""
    return D.PEOPLES[D.PEOPLE_NAMES.index(view["players"][s]["people"])]["colour"]


def _ghost(pic: Svg, x: float, y: float, s: int, view: dict, r: float = 10) -> None:
    colour = people_colour(view, s)
    pic.circle(x, y, r, class_=f"seat{s} ghost people-{colour}", stroke=PEOPLE_COLOURS[colour], stroke_width=3,
               tip=f"a ghost of seat {s} ({view['players'][s]['people']}, {colour})")
    pic.text(x, y + 4, _mark(s), class_="small", text_anchor="middle", style=WHITE)


def _protected(view: dict, l: int) -> list[bool]:
    """Which ghosts of location l are protected by Secret area this round (engine flag bit 8)."""
    return [bool(e & 8) for e in view["state"]["locs"][l]]


def _slots(pic: Svg, view: dict, x: float, y: float, owners: list[int], cap: int, numbered: bool = False,
           protected: list[bool] | None = None) -> None:
    """The spaces of a location, position 1 first; ghosts in their owner's colour and mark."""
    for p in range(cap):
        cx = x + 13 + p * 27
        if p < len(owners):
            if protected and protected[p]:
                pic.rect(cx - 13, y - 13, 26, 26, rx=3, class_="line deco", style=HI)
            _ghost(pic, cx, y, owners[p], view)
        else:
            pic.circle(cx, y, 10, class_="line deco", stroke_dasharray="3 2")
        if numbered:
            pic.text(cx, y + 22, str(p + 1), class_="small muted", text_anchor="middle")


def _location(pic: Svg, view: dict, l: int, x: float, y: float, w: float, h: float, cap: int) -> None:
    lid = D.LOC_IDS[l]
    pic.rect(x, y, w, h, rx=8, class_="panel", data_target=lid, tip=D.LOC_NAMES[l])
    if l < D.NREG:
        pic.text(x + 7, y + 16, f"{D.LOC_NAMES[l]}  {D.REGION_VP[l]} VP", style="font-weight:600")
        gate = view["gates"].get(lid)
        pic.text(x + 7, y + 31, f"gate: {_fee_short(gate)}" if gate else "gate: —", class_="small muted")
        _slots(pic, view, x + 2, y + 50, view["locations"][lid], cap, protected=_protected(view, l))
    else:
        pic.text(x + 7, y + 16, D.LOC_NAMES[l], style="font-weight:600")
        major, minor = GARDEN_BONUS[lid]
        pic.text(x + 7, y + 30, f"1 major: {major}", class_="small muted")
        pic.text(x + 7, y + 42, f"2 minor: {minor}", class_="small muted")
        _slots(pic, view, x + 2, y + 58, view["locations"][lid], cap, numbered=True, protected=_protected(view, l))


# the regions ring as a rectangle of boxes, clockwise from the top left: 3 on top, 1 on the right,
# 3 at the bottom (right to left), 1 on the left; each box touches its ring neighbours
_REGION_CELLS = [(0, 0), (1, 0), (2, 0), (2, 1), (2, 2), (1, 2), (0, 2), (0, 1)]


def _regions(pic: Svg, view: dict, caps: list[int]) -> None:
    pic.text(14, 78, "Regions (a ring) and the drawbridge", class_="title")
    x0, y0, w, h, gx, gy = 14, 92, 136, 72, 10, 22
    for r in range(D.NREG):
        c, row = _REGION_CELLS[r]
        _location(pic, view, r, x0 + c * (w + gx), y0 + row * (h + gy), w, h, caps[r])
    # the drawbridge in the middle: every seat's ghosts waiting there
    n = len(view["players"])
    bx, by = x0 + w + gx, y0 + h + gy
    pic.rect(bx, by, w, h, rx=8, class_="panel", data_target=N.BRIDGE_ID, stroke_dasharray="6 3")
    pic.text(bx + w / 2, by + 16, "Drawbridge", text_anchor="middle", style="font-weight:600")
    for s in range(n):
        x = bx + 18 + (s % 2) * 62
        y = by + 34 + (s // 2) * 24
        _ghost(pic, x, y, s, view)
        pic.text(x + 15, y + 4, f"× {view['players'][s]['drawbridge']}")
    pic.text(x0, y0 + 3 * h + 2 * gy + 18, "A ghost enters a region from the drawbridge by paying its gate fee,",
             class_="small muted")
    pic.text(x0, y0 + 3 * h + 2 * gy + 31, "or walks to a neighbouring region; gardens are entered freely.",
             class_="small muted")
    if view["gates_aside"]:
        pic.text(x0, y0 + 3 * h + 2 * gy + 50, "Gate tiles set aside (face up): "
                 + ", ".join(_fee_short(g) for g in view["gates_aside"]), class_="small")


def _mirror_box(side: str, q: int, ox: float, oy: float, t: float) -> tuple[float, float, float, float]:
    r, c = divmod(q, D.COLS)
    if side in ("top", "bottom"):
        y = oy - 16 if side == "top" else oy + D.ROWS * t + 4
        return ox + c * t + 10, y, t - 20, 12
    x = ox - 16 if side == "left" else ox + D.COLS * t + 4
    return x, oy + r * t + 10, 12, t - 20


def _manor(pic: Svg, view: dict) -> None:
    ox, oy, t = 506, 112, 66
    pic.text(470, 78, "Manor (magicians) and its 16 mirrors", class_="title")
    mags = {p["magician"]: s for s, p in enumerate(view["players"]) if p["magician"] >= 0}
    for q in range(D.NTILES):
        r, c = divmod(q, D.COLS)
        x, y = ox + c * t, oy + r * t
        pic.rect(x, y, t - 2, t - 2, rx=4, class_="panel", data_target=N.square_target(q))
        pic.text(x + 4, y + 12, str(q), class_="small muted")
        if view["manor"]:
            pic.text(x + t / 2 - 1, y + 27, N.tile_word(view["manor"][q]).replace(" tile", ""),
                     class_="small", text_anchor="middle")
        if q in mags:
            s = mags[q]
            colour = people_colour(view, s)
            pic.circle(x + t / 2 - 1, y + t - 20, 13, class_=f"seat{s} magician people-{colour}",
                       stroke=PEOPLE_COLOURS[colour], stroke_width=4,
                       tip=f"the magician of seat {s} ({view['players'][s]['people']}, {colour})")
            pic.text(x + t / 2 - 1, y + t - 15, _mark(s), text_anchor="middle", style=WHITE)
    for m, spec in enumerate(D.DATA["manor"]["mirrors"]):
        x, y, w, h = _mirror_box(spec["side"], spec["touches"][0], ox, oy, t)
        state = view["mirrors"][m]
        if state >= 2:
            pic.rect(x, y, w, h, class_="line", stroke_dasharray="2 3", data_target=N.mirror_target(m))
            pic.text(x + w / 2, y + h / 2 + 4, "×", class_="small muted", text_anchor="middle")
        else:
            pic.rect(x, y, w, h, rx=2, class_="panel", data_target=N.mirror_target(m),
                     stroke_dasharray="4 2" if state == 1 else None, style="fill:var(--bg)" if state else None)
            pic.text(x + w / 2, y + h / 2 + 4, "3" if state == 0 else "2", class_="small",
                     text_anchor="middle")


def time_pile(view: dict) -> int:
    """Cards in the time pile: the engine keeps one more, the card boxed at set-up (spec set-up 3)."""
    return max(view["time_pile_left"] - 1, 0)


def curse_words(view: dict, curse: int) -> str:
    """A curse costs 5 VP at the next round's A.1; after the last round it costs nothing."""
    if not curse:
        return "none"
    return "yes (−5 VP next round)" if view["round"] < D.ROUNDS else "yes (no next round: no VP lost)"


def _time_card(pic: Svg, view: dict) -> None:
    x, y, w = 470, 420, 300
    pic.rect(x, y, w, 108, rx=8, class_="panel")
    pic.text(x + 10, y + 20, f"Time card: {view['time_card']}", style="font-weight:600")
    pile = time_pile(view)
    pic.text(x + 10, y + 36, f"{view['actions']} actions each · {pile} card{'s' if pile != 1 else ''} in the pile",
             class_="small muted")
    bonuses = D.TIME_BONUSES[N.time_index(view)]
    left = set(view["state"]["bonus_left"]) if view["stage"] == "bonus" else set()
    if not bonuses:
        pic.text(x + 10, y + 62, "no bonuses on this card", class_="small muted")
    for i, b in enumerate(bonuses):
        bx = x + 10 + i * 71
        open_ = i in left
        pic.rect(bx, y + 48, 66, 48, rx=5, class_="panel", data_target=N.bonus_target(i),
                 style="opacity:0.5" if view["stage"] == "bonus" and not open_ else None)
        word = N.bonus_word(b)
        lines = ["1 resource", "of choice"] if b[0] == "any" else [word]
        for k, part in enumerate(lines):
            pic.text(bx + 33, y + 66 + k * 12, part, class_="small", text_anchor="middle")
        if view["stage"] == "bonus" and not open_:
            pic.text(bx + 33, y + 91, "taken", class_="small muted", text_anchor="middle")


def _gardens(pic: Svg, view: dict, caps: list[int]) -> None:
    pic.text(800, 78, "Gardens (position 1 = major, 2 = minor bonus)", class_="title")
    w, h = 200, 84
    for g in range(D.NGAR):
        l = D.NREG + g
        # the ring order goes down the left column and up the right one
        col, row = (0, g) if g < 3 else (1, 5 - g)
        x, y = 800 + col * (w + 16), 96 + row * (h + 44)
        _location(pic, view, l, x, y, w, h + 12, caps[l])


def _players(pic: Svg, view: dict, names: list[str]) -> None:
    n = len(view["players"])
    y0, gap = 548, 10
    w = (WIDTH - 28 - gap * (n - 1)) / n
    powers = view["state"]["powers"]
    order = view["order"]
    for s, p in enumerate(view["players"]):
        x = 14 + s * (w + gap)
        acting = view["stage"] not in ("end", "setup", "time") and (
            view["actor"] == s if view["stage"] not in ("invoke", "commit") else True)
        pic.rect(x, y0, w, 264, rx=8, class_="panel", style=HI if acting and view["actor"] == s else None)
        _ghost(pic, x + 18, y0 + 20, s, view, r=12)
        pic.text(x + 36, y0 + 18, seat_label(names, s), style="font-weight:600")
        people = D.PEOPLES[D.PEOPLE_NAMES.index(p["people"])]
        pic.text(x + 36, y0 + 32, f"{p['people']} ({people['colour']}): {people['magician']} and {people['ghosts']}",
                 class_="small muted")
        if "result" in view and s in view["result"]["winners"]:
            pic.text(x + w - 10, y0 + 18, f"★ winner, {view['result']['scores'][s]}", text_anchor="end",
                     style="fill:var(--hi);font-weight:600")
        if view["actor"] == s and view["stage"] not in ("end", "invoke", "commit", "time", "setup"):
            pic.text(x + w - 10, y0 + 18, "▶ to play", text_anchor="end", style="fill:var(--hi);font-weight:600")
        pic.text(x + 10, y0 + 54, f"VP {p['vp']}   ·   {_ordinal(order.index(s) + 1)} in play order")
        pic.text(x + 10, y0 + 74, f"terror {p['terror']}")
        # the terror track 1-10: one box per point, the held ones in the seat's colour
        tx = x + 74
        pic.rect(tx, y0 + 64, 14 * D.TERROR_MAX, 12, class_="panel", style="fill:var(--bg)")
        if p["terror"]:
            pic.rect(tx, y0 + 64, 14 * p["terror"], 12, class_=f"seat{s}")
        pic.line(tx, y0 + 70, tx + 14 * D.TERROR_MAX, y0 + 70, class_="line", stroke_width=12,
                 stroke_dasharray="1 13", stroke_dashoffset="-13")
        pic.text(x + 10, y0 + 96, f"graveyard {p['graveyard']} · drawbridge {p['drawbridge']} · "
                                  f"magician {'square ' + str(p['magician']) if p['magician'] >= 0 else 'off the manor'}",
                 class_="small")
        # the three squares of the player board
        ty = y0 + 116
        for r, word in enumerate(RES_SHORT):
            pic.text(x + 70 + r * 44, ty, word, class_="small muted", text_anchor="middle")
        for i, (label, counts) in enumerate((("2H store", p["h2"]), ("1H store", p["h1"]),
                                             ("approval", p["approval"]))):
            yy = ty + 17 + i * 17
            pic.text(x + 10, yy, label, class_="small")
            for r, k in enumerate(counts):
                if k:
                    pic.text(x + 70 + r * 44, yy, k, text_anchor="middle")
        pic.text(x + 10, ty + 76, f"curse: {curse_words(view, p['curse'])} · "
                                  f"chimaeras {p['chimaeras']}", class_="small")
        if powers:
            _power_card(pic, view, s, x + 10, ty + 90, w - 20)


def _power_card(pic: Svg, view: dict, s: int, x: float, y: float, w: float) -> None:
    p = view["players"][s]
    mine = view.get("my_power") if view["seat"] == s else None
    shown = p["power"] or mine
    if shown:
        pic.rect(x, y, w, 40, rx=5, class_="panel", style="fill:var(--bg)")
        pic.text(x + 8, y + 16, f"POWER: {N.power_title(shown)}", style="font-weight:600")
        pic.text(x + 8, y + 32, "revealed" if p["power"] else "yours, secret until used", class_="small muted")
    else:
        pic.rect(x, y, w, 40, rx=5, class_=f"seat{s} cardback", style="opacity:0.5")
        pic.text(x + 8, y + 24, "POWER card (face down)", style="font-weight:600")


def _legend(pic: Svg, view: dict, names: list[str]) -> None:
    y = 834
    pic.text(14, y, "Legend:", style="font-weight:600")
    x = 74
    for s in range(len(view["players"])):
        _ghost(pic, x + 10, y - 4, s, view)
        label = seat_label(names, s)
        pic.text(x + 24, y, label)
        x += 34 + 7 * len(label)
    pic.text(x + 10, y, "fill and mark = seat, ring = people's colour · disc on a tile = magician · dashed = free space"
             " · red box = protected this round",
             class_="small")
    pic.text(14, y + 22, "Mirrors: 3 = intact (+3 terror to crack), 2 = cracked (+2 to break), × = broken. "
                         "Gate fees are paid into the approval square; a full set of 4 becomes a chimaera "
                         "(5 VP at the end).", class_="small muted")
    pic.text(14, y + 40, "Resources: 2H goes to 1H at the next round; anything left in 1H then becomes a curse.",
             class_="small muted")


# ------------------------------------------------------------------ text
def text(view: dict[str, Any], names: list[str]) -> str:
    n = len(view["players"])
    caps = D.capacities(n)
    out = [f"Sabbat Magica · round {view['round']}/{D.ROUNDS} · {view['time_card']}: "
           f"{view['actions']} actions each{_action_no(view)}",
           "Now: " + _waiting(view, names, scores=False),
           "Play order: " + " > ".join(seat_label(names, s) for s in view["order"])]
    bonuses = D.TIME_BONUSES[N.time_index(view)]
    if bonuses:
        left = set(view["state"]["bonus_left"]) if view["stage"] == "bonus" else set(range(len(bonuses)))
        out.append("Time-card bonuses: " + "  ".join(
            f"[{i}] " + (N.bonus_word(b).replace("resource of your choice", "any resource") if i in left else "taken")
            for i, b in enumerate(bonuses)))
    out += _text_manor(view)
    out.append(f"{'REGIONS (VP, gate fee; * = protected)':<44} GARDENS (position 1 major, 2 minor)")
    for r in range(D.NREG):
        lid = D.LOC_IDS[r]
        gate = view["gates"].get(lid)
        left = (f"{D.LOC_NAMES[r]:<9}{D.REGION_VP[r]} {_fee_short(gate) if gate else '—':<15} "
                f"{_text_slots(view, r, caps[r])}")
        right = ""
        if r < D.NGAR:
            g = D.NREG + r
            right = f"{D.LOC_NAMES[g]:<19} {_text_slots(view, g, caps[g])}"
        out.append(f"{left:<44} {right}".rstrip())
    out.append("Drawbridge: " + "  ".join(f"{_mark(s)} {p['drawbridge']}" for s, p in enumerate(view["players"])))
    out.append("PLAYERS   (stores: spider/rat tail/gemstone/mask)")
    for s, p in enumerate(view["players"]):
        arrow = "▶" if view["actor"] == s and view["stage"] not in ("end", "invoke", "commit", "time") else " "
        mag = f"sq {p['magician']}" if p["magician"] >= 0 else "off"
        out.append(f"{arrow}{seat_label(names, s)[:24]:<24} {p['people']:<8} VP {p['vp']:<4} terror {p['terror']:<2} "
                   f"grave {p['graveyard']} bridge {p['drawbridge']} magician {mag}")
        power = ""
        if view["state"]["powers"]:
            mine = view.get("my_power") if view["seat"] == s else None
            power = (f" POWER {N.power_title(p['power'])}" if p["power"] else
                     f" POWER {N.power_title(mine)} (yours)" if mine else " POWER: face down")
        out.append(f"   2H {_counts(p['h2'])} 1H {_counts(p['h1'])} approval {_counts(p['approval'])} "
                   f"curse {p['curse']} chim {p['chimaeras']}{power}")
    if "result" in view:
        res = view["result"]
        out.append("Final scores (VP + 5 per chimaera): "
                   + ", ".join(f"{_mark(s)} {names[s] if s < len(names) else s} {x}"
                               for s, x in enumerate(res["scores"])))
    return "\n".join(line[:100] for line in out)       # long player names are cut, never wrapped


def _counts(c: list[int]) -> str:
    return "/".join(map(str, c))


def _text_slots(view: dict, l: int, cap: int) -> str:
    """"[● ▲* . .]": ghosts in position order, * = protected this round, . = free space."""
    owners = view["locations"][D.LOC_IDS[l]]
    prot = _protected(view, l)
    return "[" + " ".join(_mark(o) + ("*" if p else "") for o, p in zip(owners, prot)) + " ." * (cap - len(owners)) + "]"


def _text_manor(view: dict) -> list[str]:
    mirrors = view["mirrors"]
    mark = {0: "o", 1: "c", 2: "x"}
    side = {}
    for m, spec in enumerate(D.DATA["manor"]["mirrors"]):
        side[(spec["side"], spec["touches"][0])] = mark[mirrors[m]]
    mags = {p["magician"]: s for s, p in enumerate(view["players"]) if p["magician"] >= 0}
    cell = 13
    out = ["MANOR (square: tile, magician) mirrors: o intact, c cracked, x broken"]
    out.append("   " + "".join(f"{side[('top', c)]:^{cell}}" for c in range(D.COLS)))
    for r in range(D.ROWS):
        cells = []
        for c in range(D.COLS):
            q = r * D.COLS + c
            tile = N.tile_word(view["manor"][q]).replace(" tile", "") if view["manor"] else "?"
            who = _mark(mags[q]) if q in mags else " "
            cells.append(f"{q:>2} {tile[:9]:<9}{who}")
        out.append(f" {side[('left', r * D.COLS)]} " + "|".join(cells) + f" {side[('right', r * D.COLS + 3)]}")
    out.append("   " + "".join(f"{side[('bottom', 12 + c)]:^{cell}}" for c in range(D.COLS)))
    return out
