"""Nomads of Arabia in words: each event as sentences for one viewer, and the legal moves.

Pure functions of views (`engine.view`) and public event data, so a sentence can never tell
more than the viewer's own view holds: a yellow tile's face is named only when the viewer's
view shows it (its owner's `my_tiles`) or once it is revealed. Dice values are mapped to faces
with the engine's own die tables (`protocol.games.nomads.data`). The vocabulary (field, tile
and count words) is shared with the board picture, `clients.render.nomads`.
"""

from __future__ import annotations


from clients.narrate import seat_name
from protocol.games.nomads import data as D
from protocol.games.nomads.engine import throw_counts   # animals two animal dice bring (N.3.1)

SPECIES = D.SPECIES
LANDSCAPES = D.LANDSCAPES
TILE_NAMES = {"dinar4": "4-dinar tile", "dinar5": "5-dinar tile", "dinar6": "6-dinar tile",
              "abdul": "Abdul the Trader", "expert": "Expert Handler", "winds": "Ride the Winds",
              "sands": "Sands of Time", "silver": "Silver Tongue"}
"""The yellow tiles' names as every picture and sentence says them (a test searches for them)."""
BLUE_NAMES = {t["key"]: t["en"] for t in D.BLUE}
PHASE_WAIT = {"move": "to move", "hire": "to hire traders", "dest": "to choose where to go",
              "winds": "to choose where the winds take them", "action": "to take an action or end the turn",
              "catch_pick": "to pick one animal (all dice blank)", "expert": "to pick an animal (Expert Handler)",
              "tie": "to choose a box for the animals (yellow dot)", "keep": "to choose two animals to keep",
              "window": "to take an extra turn with a yellow tile, or pass"}


# ----------------------------------------------------------------------------- vocabulary

def count_words(n: int, sp: int) -> str:
    """"1 camel", "3 goats"."""
    return f"{n} {SPECIES[sp]}{'' if n == 1 else 's'}"


def counts_words(counts: list[int]) -> str:
    """Animals per species as words ("2 camels and 1 goat"); "nothing" when all are zero."""
    parts = [count_words(n, sp) for sp, n in enumerate(counts) if n]
    if not parts:
        return "nothing"
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def trader_words(traders: list[int]) -> str:
    """A player's trader dice by species: "camel, camel, goat"."""
    return ", ".join(SPECIES[sp] for sp in range(len(SPECIES)) for _ in range(traders[sp])) or "none"


def pair_words(x: int, y: int) -> str:
    """The two animals kept: "two goats", "a donkey and a camel"."""
    return f"two {SPECIES[x]}s" if x == y else f"a {SPECIES[x]} and a {SPECIES[y]}"


def card_name(card: int) -> str:
    """Board cards by kind and number: "desert card 3", "city card 5" (1-based within the pile)."""
    return f"desert card {card + 1}" if card < D.N_DESERT else f"city card {card - D.N_DESERT + 1}"


def field_kind(view: dict, r: int, c: int) -> str:
    row = view["rows"][r]
    return row["fields"][c] if row else "?"


def field_words(view: dict, r: int, c: int) -> str:
    """"the green field 2,4", "the city 3,1"."""
    kind = field_kind(view, r, c)
    noun = "city" if kind == "city" else f"{kind} field"
    return f"the {noun} {r},{c}"


def field_id(r: int, c: int) -> str:
    """The data-target of a board field in the picture."""
    return f"field-{r}-{c}"


def place_words(view: dict, seat: int) -> str:
    pos = view["players"][seat]["position"]
    if pos == "pilgrim":
        return "with the pilgrim"
    if pos == "lost":
        return "lost in the desert"
    return "on " + field_words(view, pos[0], pos[1])


def tile_name(key: str) -> str:
    return TILE_NAMES.get(key, key)


def own_tiles(view: dict) -> dict[int, str]:
    """handle -> tile key of the viewer's own known tiles (empty for a spectator)."""
    seat = view.get("you")
    if seat is None:
        return {}
    return {t["handle"]: t["tile"] for t in view["players"][seat].get("my_tiles", [])}


def animal_face(value: int) -> str:
    sp = D.ANIMAL_DIE[value]
    return "blank" if sp < 0 else SPECIES[sp]


def land_face(value: int) -> str:
    box = D.LAND_DIE[value]
    return "yellow dot" if box < 0 else LANDSCAPES[box]


def trader_faces(traders: list[int], values: list[int]) -> list[str]:
    """Each trader die's face: the dice are the player's traders in species order (as the engine rolls them)."""
    species = [sp for sp in range(len(SPECIES)) for _ in range(traders[sp])]
    return [SPECIES[sp] if v < D.TRADER_ANIMAL_FACES else "blank" for sp, v in zip(species, values)]


def _diff(a: list[int], b: list[int]) -> list[int]:
    return [y - x for x, y in zip(a, b)]


def _box_gains(before: dict, after: dict) -> list[tuple[int, list[int]]]:
    out = []
    for box, (x, y) in enumerate(zip(before["boxes"], after["boxes"])):
        d = _diff(x, y)
        if any(v > 0 for v in d):
            out.append((box, [max(v, 0) for v in d]))
    return out


def _gains_words(gains: list[tuple[int, list[int]]], source: str = "") -> str:
    """"2 camels to the red box" per box that gained; the market may have run out."""
    return ("; ".join(f"{counts_words(c)} to the {LANDSCAPES[b]} box{source}" for b, c in gains)
            or "none: the market has no such animals left")


def _go(counts: list[int]) -> str:
    return "goes" if sum(counts) == 1 else "go"


# ----------------------------------------------------------------------------- narration

def narrate(event: dict, before: dict, after: dict, names: list[str]) -> list[str] | None:
    """Sentences for the viewer of `before`/`after` about `event`; None = the generic ones."""
    kind = event["kind"]
    if kind == "act":
        lines = _act(event["seat"], list(event["action"]), before, after, names)
    elif kind == "rolled":
        lines = _rolled(list(event["values"]), before, after, names)
    elif kind == "deck_shuffled":
        lines = [f"The {len(event['handles'])} yellow city tiles are shuffled face down: "
                 f"{after['yellow_on_board_spaces']} wait on the board's tile spaces, one lies on the city "
                 "nearest the pilgrim, the rest are set aside unseen."]
    elif kind == "deck_shown":
        lines = _shown(event["seat"], before, after, names)
    elif kind == "deck_revealed":
        lines = _revealed(list(event["cards"]), before, names)
    else:
        return None
    return lines + _consequences(before, after, names)


def _act(seat: int, a: list, before: dict, after: dict, names: list[str]) -> list[str]:
    who = seat_name(names, seat)
    k = a[0]
    ph = before["phase"]
    me_b, me_a = before["players"][seat], after["players"][seat]
    paid = me_b["money"] - me_a["money"]
    if k in ("move", "goto", "place"):
        r, c = a[1], a[2]
        verb = {"move": "moves to", "goto": "rides the winds to",
                "place": "comes back from the pilgrim and is placed on"}[k]
        s = f"{who} {verb} {field_words(after, r, c)}"
        if k != "place" and paid > 0:
            s += f", paying {paid} dinar{'s' if paid != 1 else ''} for provisions (two fields)"
        s += "."
        lines = [s]
        if field_kind(after, r, c) == "city" and any(me_b["traders"]):
            lines.append(f"Arriving in the city, {who} puts all traders back in the reserve.")
        if after["phase"] == "show":
            lines.append(f"{who} takes the city's yellow tile and keeps it face down.")
        return lines
    if k == "stay":
        return [f"{who} stays {place_words(before, seat)}."]
    if k == "depart":
        return [f"{who} leaves the city and first hires traders."]
    if k == "pilgrim":
        lines = [f"{who} travels with the pilgrim: all traders go back to the reserve."]
        if after["phase"] == "keep":
            lines.append(f"{who} may keep only two animals and chooses which.")
        else:
            lost = _diff(me_a["animals"], me_b["animals"])
            if any(lost):
                lines.append(f"{counts_words(lost)} {_go(lost)} back to the market.")
        return lines
    if k == "hire":
        s = f"{who} hires a {SPECIES[a[1]]} trader"
        return [s + (f" for {paid} dinars (the third trader)." if paid > 0 else ".")]
    if k == "done" and ph == "hire":
        n = sum(me_a["traders"])
        if not n:
            return [f"{who} sets out without traders (none left in the reserve)."]
        return [f"{who} sets out with {n} trader{'s' if n != 1 else ''} ({trader_words(me_a['traders'])})."]
    if k == "done" and ph == "abdul":
        back = _diff(before["market"]["animals"], after["market"]["animals"])
        s = f"{who} ends the sale with Abdul the Trader"
        s += f" ({counts_words(back)} {_go(back)} back to the market)" if any(v > 0 for v in back) else ""
        return [s + " and now moves (the turn goes on)."]
    if k == "done":
        return [f"{who} ends the turn."]
    if k == "sell":
        gained = me_a["money"] - me_b["money"]
        each = gained // a[2] if a[2] else 0
        price = f"{each} dinar{'s' if each != 1 else ''}"
        total = price if a[2] == 1 else f"{price} each ({gained} dinars)"
        return [f"{who} sells {count_words(a[2], a[1])} for {total}; sold animals go back to the market "
                "when the sale ends."]
    if k in ("catch", "lure"):
        pos = before["players"][seat]["position"]
        land = field_kind(before, pos[0], pos[1])
        n = sum(me_b["traders"])
        verb = "tries to catch animals in" if k == "catch" else "lures animals from the market into"
        return [f"{who} {verb} the {land} box and rolls {n} trader {'die' if n == 1 else 'dice'}."]
    if k == "walk":
        return [f"{who} lets the desert move."]
    if k == "take" and ph == "expert":
        return [f"{who} takes a {SPECIES[a[2]]} from the {LANDSCAPES[a[1]]} box (Expert Handler)."]
    if k == "take":
        return [f"{who} takes a {SPECIES[a[1]]} of their choice (all dice blank)."]
    if k == "box":
        gains = [(b, c) for b, c in _box_gains(before, after) if b == a[1]]
        return [f"{who} chooses the {LANDSCAPES[a[1]]} box (yellow dot, boxes tied for fewest): "
                f"{_gains_words(gains)}."]
    if k == "keep":
        back = _diff(me_a["animals"], me_b["animals"])
        s = f"{who} keeps {pair_words(a[1], a[2])}"
        return [s + (f"; {counts_words(back)} {_go(back)} back to the market." if any(back) else ".")]
    if k == "pass":
        return [f"{who} passes (no extra turn)."]
    if k == "tile":
        return _tile_played(who, a, me_b, me_a)
    return [f"{who}: {a}"]


def _tile_played(who: str, a: list, me_b: dict, me_a: dict) -> list[str]:
    key = D.YELLOW_KEYS[a[2]] if 0 <= a[2] < D.N_YELLOW else "?"
    s = f"{who} turns up and plays the yellow tile {tile_name(key)}"
    more = {"winds": ": the nomad may go to any field, animals and traders travel free.",
            "abdul": ": animals may be sold here as in a city.",
            "expert": ": one animal of choice from any landscape box.",
            "sands": ": an extra turn, right now.",
            "silver": ": one dinar more for every animal sold this turn."}.get(key, ".")
    lines = [s + more]
    gained = me_a["money"] - me_b["money"]
    if key == "silver" and gained > 0:
        lines.append(f"{who} gets {gained} dinar{'s' if gained != 1 else ''} more for the animals already sold.")
    return lines


def _rolled(v: list, before: dict, after: dict, names: list[str]) -> list[str]:
    ph = before["phase"]
    active = before["active"]
    who = seat_name(names, active)
    gains = _box_gains(before, after)
    if ph == "s_layout":
        cards = [row["card"] for row in after["rows"]]
        return ["The playing area is laid out, from the pilgrim outwards: "
                + ", ".join(card_name(c) for c in cards) + ". Every nomad starts on the farthest city."]
    if ph in ("s_ldie", "s_reroll"):
        face = land_face(v[0])
        if D.LAND_DIE[v[0]] < 0:
            return ["The landscape die shows the yellow dot: it is rolled again."]
        what = "One animal of each kind goes" if ph == "s_ldie" else "The animals go"
        return [f"The landscape die shows {face}. {what} to the {face} box."]
    if ph in ("s_lthrow", "r_land"):
        box = gains[0][0] if gains else None
        lead = "Landscape throw" + (f" for the empty {LANDSCAPES[box]} box" if box is not None else "")
        return [f"{lead}: the animal dice show {animal_face(v[0])} and {animal_face(v[1])}; "
                f"{_gains_words(gains)}."]
    if ph in ("s_rthrow", "r_random"):
        lead = (f"Random throw: the animal dice show {animal_face(v[0])} and {animal_face(v[1])}, "
                f"the landscape die {land_face(v[2])}")
        if D.LAND_DIE[v[2]] < 0:
            if ph == "s_rthrow":
                return [lead + "; the landscape die is rolled again (setup)."]
            if after["phase"] == "tie":
                thrown = throw_counts(v[0], v[1])
                market = before["market"]["animals"]
                got = [min(t, m) for t, m in zip(thrown, market)]
                if not any(got):
                    return [lead + ": the market has none of the thrown animals left, but "
                            f"{who} still chooses one of the boxes tied for the fewest animals."]
                short = " (all the market has left)" if got != thrown else ""
                return [lead + f": {counts_words(got)}{short} {_go(got)} to a box with the fewest "
                        f"animals, which {who} chooses."]
            return [lead + f" (the box with the fewest animals): {_gains_words(gains)}."]
        return [lead + f": {_gains_words(gains)}."]
    if ph == "s_start":
        return [f"{seat_name(names, v[0])} is drawn to start; play goes clockwise (rising seat numbers)."]
    if ph == "r_animal":
        lead = f"Animal throw (a kind was missing from every box): the landscape die shows {land_face(v[0])}"
        if after["phase"] == "tie":
            return [lead + f"; the boxes with the fewest animals tie and {who} chooses one."]
        return [lead + f": {_gains_words(gains)}."]
    if ph in ("roll_catch", "roll_lure"):
        traders = before["players"][active]["traders"]
        faces = trader_faces(traders, v)
        lead = f"{who}'s trader dice show {', '.join(faces)}"
        if ph == "roll_lure":
            return [lead + f": {_gains_words(gains, ' from the market')}."]
        got = _diff(before["players"][active]["animals"], after["players"][active]["animals"])
        if after["phase"] == "catch_pick":
            return [lead + f": all blank, so {who} may take one animal of choice."]
        return [lead + f": {who} catches {counts_words(got)}."]
    if ph in ("draw_card", "draw_blue"):
        return []                       # the new card and tiles: _consequences says them
    return [f"Chance: {v}."]


def _shown(seat: int, before: dict, after: dict, names: list[str]) -> list[str]:
    who = seat_name(names, seat)
    new = [k for h, k in own_tiles(after).items() if h not in own_tiles(before)]
    if after.get("you") == seat and new:
        return [f"You look at your new yellow tile: {tile_name(new[0])}."]
    return [f"{who} looks at the yellow tile in secret (face down to everyone else)."]


def _revealed(cards: list[int], before: dict, names: list[str]) -> list[str]:
    """The end: held tiles are turned up in seat order (the engine reveals held[0] + held[1] + ...)."""
    lines = []
    i = 0
    for p in before["players"]:
        n = p["tiles_held"]
        if n:
            keys = [tile_name(D.YELLOW_KEYS[c]) for c in cards[i:i + n]]
            lines.append(f"{seat_name(names, p['seat'])} turns up {', '.join(keys)}.")
        i += n
    return lines


def _consequences(before: dict, after: dict, names: list[str]) -> list[str]:
    """What any event may set off: the desert moving, a new card and its tiles, nomads lost,
    the game's end, the next turn."""
    lines = []
    b_rows, a_rows = before["rows"], after["rows"]
    shifted = (b_rows[0] is not None and a_rows[1] is not None and b_rows[0]["card"] == a_rows[1]["card"])
    if shifted:
        gone = b_rows[4]
        s = f"The desert moves: {card_name(gone['card'])}, the farthest from the pilgrim, is removed"
        if gone["yellow_tile"]:
            s += " with its unseen yellow tile"
        lines.append(s + "; the other cards shift one row away from the pilgrim.")
    for b, a in zip(before["players"], after["players"]):
        if b["status"] != "lost" and a["status"] == "lost":
            lines.append(f"{seat_name(names, a['seat'])}'s nomad is lost in the desert: its traders go back "
                         "and only two animals may be kept; next turn it travels with the pilgrim.")
        elif shifted and b["status"] == "normal" and a["status"] == "pilgrim":     # option lost_turns 1
            lines.append(f"{seat_name(names, a['seat'])}'s nomad is lost in the desert: its traders go back "
                         "and only two animals may be kept; it is already with the pilgrim and is placed "
                         "next turn.")
    new = a_rows[0]
    drawn = shifted or (b_rows[0] is None and b_rows[1] is not None)      # not the first layout
    if new is not None and drawn:
        s = f"A new card is laid next to the pilgrim: {card_name(new['card'])}"
        if new["yellow_tile"]:
            s += ", with a yellow tile face down on its city"
        lines.append(s + ".")
    if new is not None and new["blue_tile"] and (drawn or not (b_rows[0] or {}).get("blue_tile")):
        if new["blue_tile"] == "mecca":
            lines.append("The blue tile laid face up on its city is Mecca: the game ends at once.")
        else:
            lines.append(f"A blue tile is laid face up on its city: {BLUE_NAMES[new['blue_tile']]} "
                         "(one dinar more for that kind sold there).")
    if after["result"] and not before["result"]:
        lines.extend(final_words(after, names))
    elif after["turn"] > before["turn"] and after["phase"] == "move":
        lines.append(f"Turn {after['turn']}: {seat_name(names, after['active'])}'s turn.")
    return lines


def final_words(view: dict, names: list[str]) -> list[str]:
    """The final scores and the winners."""
    res = view["result"]
    parts = []
    for s, score in enumerate(res["scores"]):
        tiles = res["tile_dinars"][s]
        extra = f" ({tiles} from tiles)" if tiles else ""
        n = res["animals"][s]
        parts.append(f"{seat_name(names, s)} {score} dinar{'s' if score != 1 else ''}{extra}, {n} animal{'s' if n != 1 else ''}")
    winners = " and ".join(seat_name(names, w) for w in res["winners"])
    verb = "wins" if len(res["winners"]) == 1 else "share the win"
    best = res["scores"][res["winners"][0]]
    tied = sum(1 for x in res["scores"] if x == best) > len(res["winners"])
    why = " (equal dinars: the most animals breaks the tie)" if tied else ""
    return ["Game over. Final scores: " + "; ".join(parts) + ".", f"{winners} {verb}{why}."]


# ----------------------------------------------------------------------------- moves in words

def moves(view: dict, legal: list, seat: int) -> list[dict]:
    """Each legal action as {"text", "group", "target"}; fields are chosen by clicking them."""
    return [_move(view, list(a), seat) for a in legal]


def _two_fields_cost(view: dict, seat: int, r: int, c: int) -> int | None:
    """None for a move to a neighbour (free); else the provisions of a two-field move (N.6.2):
    1 per animal, + 3 with three traders."""
    pos = view["players"][seat]["position"]
    if not isinstance(pos, list) or abs(pos[0] - r) + abs(pos[1] - c) == 1:
        return None
    me = view["players"][seat]
    three = sum(me["traders"]) >= 3
    return sum(me["animals"]) * D.PROVISIONS_PER_ANIMAL + (D.PROVISIONS_THREE_TRADERS if three else 0)


def _move(view: dict, a: list, seat: int) -> dict:
    k = a[0]
    ph = view["phase"]
    me = view["players"][seat]
    if k in ("move", "goto", "place"):
        r, c = a[1], a[2]
        text = f"{field_kind(view, r, c)} {r},{c}"
        row = view["rows"][r]
        if row and row["fields"][c] == "city" and row["yellow_tile"] and k != "place":
            text += " (take its yellow tile)"
        if k == "move":
            cost = _two_fields_cost(view, seat, r, c)
            if cost is not None:
                text += f" — 2 fields, {cost} dinar{'s' if cost != 1 else ''}" if cost else " — 2 fields, free"
        group = {"move": "Move the nomad", "goto": "Ride the Winds to", "place": "Place the nomad"}[k]
        return {"text": text, "group": group, "target": field_id(r, c)}
    if k == "stay":
        return {"text": "Stay where you are", "group": "Stay", "target": None}
    if k == "depart":
        return {"text": "Leave the city (hire traders first)", "group": "Leave the city", "target": None}
    if k == "pilgrim":
        return {"text": "Travel with the pilgrim (traders back, keep two animals)", "group": "Travel with the pilgrim",
                "target": None}
    if k == "hire":
        third = sum(me["traders"]) == 2
        return {"text": f"{SPECIES[a[1]]} trader" + (f" ({D.HIRE_THIRD_COST} dinars)" if third else ""),
                "group": "Hire a trader", "target": None}
    if k == "done" and ph == "hire":
        return {"text": "Done hiring: choose where to go", "group": "Done hiring", "target": None}
    if k == "done" and ph == "abdul":
        return {"text": "End the sale, then move", "group": "End the sale", "target": None}
    if k == "done":
        return {"text": "End the turn", "group": "End the turn", "target": None}
    if k == "sell":
        each = sale_price(view, seat, a[1])
        return {"text": f"{count_words(a[2], a[1])} for {each * a[2]} dinars",
                "group": f"Sell {SPECIES[a[1]]}s ({each} dinar{'s' if each != 1 else ''} each)", "target": None}
    if k in ("catch", "lure"):
        pos = me["position"]
        box = f"the {field_kind(view, pos[0], pos[1])} box"
        n = sum(me["traders"])
        dice = f"{n} trader {'die' if n == 1 else 'dice'}"
        text = (f"Catch animals in {box} (roll your {dice})" if k == "catch"
                else f"Lure animals from the market into {box} (roll your {dice})")
        return {"text": text, "group": "Catch or lure", "target": None}
    if k == "walk":
        return {"text": "Let the desert move", "group": "Let the desert move", "target": None}
    if k == "take" and len(a) == 3:
        return {"text": f"a {SPECIES[a[2]]} from the {LANDSCAPES[a[1]]} box", "group": "Take an animal (Expert Handler)",
                "target": box_id(a[1], a[2])}
    if k == "take":
        pos = me["position"]
        box = LANDSCAPES.index(field_kind(view, pos[0], pos[1])) if isinstance(pos, list) else None
        return {"text": f"a {SPECIES[a[1]]}", "group": "Take one animal of your choice",
                "target": box_id(box, a[1]) if box is not None else None}
    if k == "box":
        return {"text": f"the {LANDSCAPES[a[1]]} box", "group": "Choose the box", "target": box_id(a[1])}
    if k == "keep":
        return {"text": pair_words(a[1], a[2]), "group": "Keep two animals", "target": None}
    if k == "pass":
        return {"text": "Pass (keep your tiles)", "group": "Pass", "target": None}
    if k == "tile":
        key = D.YELLOW_KEYS[a[2]] if 0 <= a[2] < D.N_YELLOW else "?"
        return {"text": f"Play {tile_name(key)}", "group": "Play a yellow tile", "target": None}
    return {"text": str(a), "group": "Other", "target": None}


def sale_price(view: dict, seat: int, sp: int) -> int:
    """What one animal sells for now (N.7.4): the market price, +1 for the city's blue tile of
    that kind (not with Abdul), +1 with Silver Tongue."""
    price = view["market"]["prices"][sp]
    ts = view["turn_state"]
    pos = view["players"][seat]["position"]
    if ts["selling"] != "abdul" and isinstance(pos, list):
        blue = (view["rows"][pos[0]] or {}).get("blue_tile")
        if blue and blue != "mecca" and blue.split("+")[0] == SPECIES[sp]:
            price += 1
    return price + (1 if ts["silver_tongue"] else 0)


def box_id(box: int, sp: int | None = None) -> str:
    """The data-target of a landscape box, or of one species' count in it."""
    return f"box-{box}" if sp is None else f"box-{box}-{sp}"
