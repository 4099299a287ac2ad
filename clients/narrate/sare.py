"""Sa-Rê in words: each event as sentences for one viewer, and the legal moves grouped by kind.

The vocabulary follows the rulebook (seeds/sa-re.rules.en.txt): Obelisk, revolt gauge,
"Production of the turn", shoe, Season cards, caravans, Jokers. Card faces are only named where
the viewer's own view shows them, so a Temple draw reads differently to its owner and to the rest.
"""

from __future__ import annotations

from typing import Any

from clients.narrate import seat_name
from protocol.games.sare.data import CARD_KIND, CARD_KIND_NAME, RED

BUILDING = {"warehouse": "Warehouse", "master_builder": "Master Builder", "carpenter": "Carpenter",
            "stonemason": "Stonemason", "goldsmith": "Goldsmith", "temple": "Temple", "library": "Library",
            "barracks": "Barracks", "market": "Market", "palace": "Palace", "gardens": "Gardens",
            "port": "Port", "pyramid": "Pyramid"}
RESOURCE = {"W": "Wood", "G": "Gold", "S": "Stone", "J": "Joker"}
CARD = {"W": "Wood", "G": "Gold", "S": "Stone", "horus": "Horus", "hoshekh": "Hoshekh",
        "troubles1": "Troubles (1 symbol)", "troubles2": "Troubles (2 symbols)"}
SCENARIO = {"scribe": "Scribe", "priest": "Priest", "pharaoh": "Pharaoh"}
PHASE = {"order": "seat order", "setup": "setup", "p1": "phase 1: projects", "p2": "phase 2: production season",
         "p3": "phase 3: construction", "over": "game over"}
STATUS = {"standing": "Obelisk standing", "lying": "Obelisk lying down", "revolt": "in REVOLT"}


def card_name(card: dict | None) -> str:
    """A face-up card's name ("Troubles (2 symbols)"), or "a face-down card"."""
    return CARD.get(card["kind"], card["kind"]) if card else "a face-down card"


def tokens(counts: dict[str, int]) -> str:
    """{"W": 2, "G": 1} -> "2 Wood, 1 Gold" (or "nothing")."""
    parts = [f"{n} {RESOURCE[t]}" for t, n in counts.items() if n]
    return ", ".join(parts) if parts else "nothing"


def piece_name(piece: dict) -> str:
    """"the Palace (space 4)" or "Pyramid 2 (space 4)"."""
    if piece["kind"] == "pyramid":
        return f"Pyramid {piece['pyramid']} (space {piece['space']})"
    return f"the {BUILDING[piece['kind']]} (space {piece['space']})"


def double_name(double: list[str] | None) -> str:
    return " + ".join(RESOURCE[t] for t in double) if double else "none"


# ------------------------------------------------------------------ narration

def narrate(event: dict, before: dict, after: dict, names: list[str]) -> list[str] | None:
    kind = event["kind"]
    if kind == "act":
        lines = _act(event["seat"], event["action"], before, after, names)
    elif kind == "rolled":
        lines = _rolled(before, after, names)
    elif kind == "deck_shuffled":
        lines = _shuffled(event, before, after)
    elif kind == "deck_revealed":
        lines = _revealed(event, before, after, names)
    elif kind == "deck_shown":
        lines = _shown(event, before, after, names)
    elif kind == "deck_returned":
        lines = _returned(event, after, names)
    else:
        return None
    return lines + _drawn(event, before, after, names) + _changes(before, after, names)


def _rolled(before: dict, after: dict, names: list[str]) -> list[str]:
    if before["phase"] == "order":
        order = ", ".join(seat_name(names, s) for s in after["order"])
        return [f"Seat order drawn at random (clockwise): {order}. "
                f"{seat_name(names, after['first_player'])} is the first player."]
    d = after["double_card"]
    rule = ("it shows Gold: the last player to lay down their Obelisk wins it" if "G" in d
            else "no Gold: the first player to lay down their Obelisk wins it")
    return [f"Turn {after['turn']}, production season: {seat_name(names, after['first_player'])} reveals the "
            f"double-resource card {double_name(d)} ({rule})."]


def _shuffled(event: dict, before: dict, after: dict) -> list[str]:
    if event["deck"] == "season":
        return [f"The Season cards are shuffled face down into the shoe ({len(after['shoe'])} cards); "
                "one card is set aside unseen."]
    return [f"Darkness: the discard pile ({_count(after['darkness'], 'card')}) is shuffled face down; each draw from "
            "the shoe will first remove its top card."]


def _revealed(event: dict, before: dict, after: dict, names: list[str]) -> list[str]:
    """A reveal: Temple cards kept, a face-up shoe's new top card (SR-14), the darkness loss
    (5.7). A draw is told by `_drawn`, for every kind of event (a face-up top is drawn without one)."""
    handles, faces = event["handles"], [_face(c) for c in event["cards"]]
    face_of = dict(zip(handles, faces))
    kept = {h["handle"]: p["seat"] for p in before["players"] for h in p["temple_kept"]}
    out = [f"{seat_name(names, kept[h])} reveals the card kept with the Temple: {f}."
           for h, f in face_of.items() if h in kept]
    top = after["shoe"][0]["handle"] if after["shoe"] else None
    if top in face_of:
        out.append(f"The shoe's new top card is turned face up: {face_of[top]} (drawn at the next draw).")
    if after["darkness"] < before["darkness"] and handles:
        t = next((t for t, w in RESOURCE.items() if w == faces[0] and t != "J"), None)
        loss = "" if t is None else (f"; 1 {faces[0]} leaves the Production of the turn" if before["display"][t]
                                     else f"; the Production of the turn holds no {faces[0]} to lose")
        out.append(f"Darkness removes the top dark card from the game: {faces[0]}{loss}.")
    return out


def _drawn(event: dict, before: dict, after: dict, names: list[str]) -> list[str]:
    """The Season card drawn in this event, if one was: the shoe's top left the shoe and went
    neither to a Temple hand nor back (5.4); its face is the reveal's, or the face-up top's."""
    if event["kind"] not in ("act", "deck_revealed") or before["phase"] != "p2" or not before["shoe"]:
        return []
    h = before["shoe"][0]["handle"]
    elsewhere = [c["handle"] for c in after["shoe"] + after["temple_hand"]]
    elsewhere += [c["handle"] for p in after["players"] for c in p["temple_kept"]]
    if after["turn"] != before["turn"] or h in elsewhere:
        return []
    revealed = dict(zip(event.get("handles", ()), event.get("cards", ())))
    face = card_name(before["shoe_top"]) if before["shoe_top"] else (
        _face(revealed[h]) if h in revealed else None)
    if face is None:
        return []
    out = [f"{seat_name(names, after['first_player'])} draws a Season card: {face}."]
    if face == "Horus" and after["horus_pending"] > before["horus_pending"]:
        out.append("Horus: the next 2 cards of the shoe are drawn at once.")
    if face == "Hoshekh":
        out.append("Hoshekh: darkness falls.")
    return out


def _count(n: int, what: str) -> str:
    return f"{n} {what}{'' if n == 1 else 's'}"


def _face(card_id: int) -> str:
    """A revealed card's name, from its public id (component data, as the engine maps it)."""
    return CARD[CARD_KIND_NAME[CARD_KIND[card_id]]]


def _shown(event: dict, before: dict, after: dict, names: list[str]) -> list[str]:
    who = seat_name(names, event["seat"])
    aside = before["set_aside"]
    if aside and event["handles"] == [aside["handle"]]:
        seen = after["set_aside"] or {}
        if "card" in seen and after["seat"] == event["seat"]:
            return [f"You see the set-aside card: {card_name(seen['card'])} (nobody else learns it)."]
        return [f"{who} looks at the set-aside card in secret."]
    hand = after["temple_hand"] or next((p["temple_kept"] for p in after["players"]
                                         if p["seat"] == event["seat"]), [])
    faces = [card_name(c["card"]) for c in hand if "card" in c]
    if faces and after["seat"] == event["seat"]:
        return [f"{who} draws {_count(len(event['handles']), 'card')} with the Temple, in secret: you see "
                + " and ".join(faces) + "."]
    return [f"{who} draws {_count(len(event['handles']), 'card')} from the shoe with the Temple, in secret."]


def _returned(event: dict, after: dict, names: list[str]) -> list[str]:
    seat, pos = event["seat"], event["position"]
    who = seat_name(names, seat)
    if after["seat"] == seat:
        shoe = after["shoe"]
        back = (shoe[0] if pos == "top" else shoe[-1]) if shoe else {}
        kept = [card_name(c.get("card")) for c in after["players"][seat]["temple_kept"]]
        return [f"{who} puts {card_name(back.get('card'))} back face down on the {pos} of the shoe and keeps "
                f"{' and '.join(kept)} (revealed when the production season ends)."]
    return [f"{who} puts one card back face down on the {pos} of the shoe and keeps the other in secret "
            "(revealed when the production season ends)."]


def _act(seat: int, a: Any, before: dict, after: dict, names: list[str]) -> list[str]:
    who = seat_name(names, seat)
    if isinstance(a, int):                                   # DeckReturn: which Temple card goes back
        return []                                            # said by the deck_returned event
    op = a[0]
    me = before["players"][seat]
    pieces = me["pieces"]
    if op == "place":
        return [f"{who} places the Warehouse on space {a[1]} and the Master Builder on space {a[2]}."]
    if op == "project":
        what = "Pyramid" if a[1] == "pyramid" else BUILDING[a[1]]
        return [f"{who} launches a {what} project on space {a[2]}."]
    if op == "move":
        return [f"{who} moves the {_short(pieces[a[1]])} project from space {pieces[a[1]]['space']} to space {a[2]}."]
    if op == "cancel":
        return [f"{who} gives up the {_short(pieces[a[1]])} project on space {pieces[a[1]]['space']}; the tile "
                "returns to the Reference Board."]
    if op == "demolish":
        return [f"{who} demolishes {piece_name(pieces[a[1]])}; the tile returns to the Reference Board."]
    if op == "done":
        return [{"p1": f"{who} has finished choosing projects.",
                 "market": f"{who} ends the Market exchange.",
                 "p3": f"{who} has finished building."}.get(before["stage"], f"{who} is done.")]
    if op == "continue":
        return [f"{who} continues (Obelisk stays standing)."]
    if op == "stop":
        return []                                            # said by _changes, with what was collected
    if op == "gold":
        return [f"{who} discards 1 Gold to lower their revolt gauge."]
    if op == "barracks":
        return [f"{who} uses the Barracks against {seat_name(names, a[1])} (own gauge −1, theirs +1)."]
    if op == "market":
        return [f"{who} uses the Market to exchange warehouse resources with {seat_name(names, a[1])}."]
    if op == "swap":
        other = before.get("market", {}).get("target")
        return [f"{who} gives 1 {RESOURCE[a[1]]} to {seat_name(names, other)} for 1 {RESOURCE[a[2]]}."]
    if op == "temple":
        return [f"{who} declares the Temple."]
    if op == "oracle":
        return [f"{who} uses the Temple to consult the oracle."]
    if op == "return":
        return [f"{who} will put one Temple card back on the {a[1]} of the shoe."]
    if op == "palace":
        return [f"{who} requisitions the {card_name(before['current_card'])} card with the Palace: it has no "
                "other effect."]
    if op == "gardens":
        return [f"{who} uses the Gardens: the double Troubles raises their gauge by only 1."]
    if op == "library":
        return [f"{who} uses the Library: no rise; a Joker instead (paid on laying down)."]
    if op == "pass":
        return [_pass(who, before)]
    if op == "build":
        return [_build(who, a, me, before, after["players"][seat])]
    if op == "cash":
        return [f"{who} cashes a caravan into 1 {RESOURCE[a[1]]} (caravans now {after['players'][seat]['caravans']})."]
    if op == "spare":
        kept = after["players"][seat]["spared"][a[1]]
        return [f"{who} keeps 1 {RESOURCE[a[1]]} out of this phase's builds ({kept} kept)."]
    if op == "charter":
        return [f"{who} charters a caravan for {RESOURCE[a[1]]} + {RESOURCE[a[2]]} "
                f"(now {after['players'][seat]['caravans']})."]
    if op == "joker":
        return [f"{who} turns a Joker into {RESOURCE[a[1]]} to store it."]
    if op == "discard":
        return [f"{who} discards 1 {RESOURCE[a[1]]} (no room in the warehouses)."]
    return [f"{who}: {' '.join(str(x) for x in a)}"]


def _pass(who: str, before: dict) -> str:
    stage = before["stage"]
    if stage == "palace":
        return f"{who} does not requisition the card."
    if stage == "tw":
        return f"{who} does not use the Gardens or Library."
    return f"{who} does not use the Market."


def _build(who: str, a: list, me: dict, before: dict, mine_after: dict) -> str:
    pc = me["pieces"][a[1]]
    paid = {t: me["warehouse"][t] + me["production_cards"][t] - mine_after["warehouse"][t]
            - mine_after["production_cards"][t] for t in "WGSJ"}
    pay = tokens(paid)
    if a[4]:
        pay += f", {a[4]} caravan{'s' if a[4] > 1 else ''}"
    port = f", the Port saving 1 {RESOURCE[a[2]]}" if a[2] != "-" else ""
    if pc["kind"] == "pyramid":
        return (f"{who} builds step {pc['steps'] + 1} of {pc['steps_total']} of {piece_name(pc)}, paying "
                f"{pay}{port}.")
    return f"{who} builds {piece_name(pc)}, paying {pay}{port}."


def _changes(before: dict, after: dict, names: list[str]) -> list[str]:
    """What an event changed that its own sentence does not say: gauges, Obelisks, gains, the end."""
    out: list[str] = []
    if after["turn"] > before["turn"]:
        out.append(f"Turn {after['turn']} begins: the shoe passes to {seat_name(names, after['first_player'])}, "
                   "the new first player. Obelisks stand again; revolt gauges return to the bottom.")
        for b, a in zip(before["players"], after["players"]):
            made = {t: a["production_cards"][t] - b["production_cards"][t] for t in "WGSJ"}
            if any(v > 0 for v in made.values()):
                out.append(f"{seat_name(names, a['seat'])}: production buildings put "
                           f"{tokens({t: max(0, v) for t, v in made.items()})} on their cards.")
    grumble = " (Master Builder grumbling)" if before["phase"] == "p1" else ""
    season_over = before["phase"] == "p2" and after["phase"] == "p3"
    gold_double = bool(season_over and after["double_card"] and "G" in after["double_card"] and after["laid_down"])
    double_told = False
    for b, a in zip(before["players"], after["players"]):
        who = seat_name(names, a["seat"])
        gained = tokens(_collected(b, a, season_over))
        # the last to lie down wins a Gold double card (5.1): its tokens are in what they collect now,
        # so it is said there, once, not given again in a line of its own (issue 35)
        last = gold_double and after["laid_down"][-1] == a["seat"] and gained != "nothing"
        with_double = (f", including the double card {double_name(after['double_card'])} won as the last to "
                       "lie down") if last else ""
        double_told = double_told or last
        if a["obelisk"] != b["obelisk"] and a["obelisk"] == "revolt":
            out.append(f"{who} REVOLTS: the revolt gauge reached red. No building this turn; "
                       "1 Wood, 1 Gold and 1 Stone instead.")
            continue
        if a["revolt_bottom"] > b["revolt_bottom"]:
            out.append(f"{who} places a black cube at the bottom of the revolt gauge (growth): it now starts at "
                       f"{a['revolt_bottom']}.")
        elif a["revolt"] != b["revolt"] and after["phase"] in ("p2", "p3"):
            verb = "rises" if a["revolt"] > b["revolt"] else "falls"
            out.append(f"{who}: revolt gauge {verb} to {a['revolt']} of {RED}{grumble}.")
        if a["obelisk"] != b["obelisk"] and a["obelisk"] == "lying":
            first = (after["laid_down"][:1] == [a["seat"]] and after["double_card"]
                     and "G" not in after["double_card"])
            extra = ", with the double card as the first to lie down" if first else with_double
            kept = "" if gained == "nothing" or season_over else " (kept beside the site until construction)"
            out.append(f"{who} lays down their Obelisk and collects {gained}{extra}{kept}.")
        elif gained != "nothing" and a["obelisk"] == "lying":
            out.append(f"{who} collects {gained}{with_double}.")
    if before["phase"] == "p2" and after["phase"] == "p3":
        out.append("Nobody is standing: the production season is over; construction begins.")
        if gold_double and not double_told:            # its tokens were not in a "collects" line above
            why = " (the reserve has none of its tokens left)" if _reserve_short(after) else ""
            out.append(f"The double card {double_name(after['double_card'])} goes to "
                       f"{seat_name(names, after['laid_down'][-1])}, the last to lie down{why}.")
    if after["display"] != before["display"] and after["phase"] == "p2":
        out.append(f"Production of the turn: {tokens(after['display'])}.")
    if "result" in after and "result" not in before:
        out.extend(_result(after, names))
    return out


def _reserve_short(view: dict) -> bool:
    """True when the reserve lacks a token of the double card (so the card gave nothing)."""
    reserve = view.get("reserve")
    return isinstance(reserve, dict) and any(not reserve.get(t) for t in view["double_card"])


def _collected(before: dict, after: dict, season_over: bool) -> dict[str, int]:
    """What a player gained beside the site in one event; when the event also ended the season the
    gains already joined the warehouse, so the warehouse's growth counts too."""
    def held(p: dict, t: str) -> int:
        return p["gains"][t] + (p["warehouse"][t] if season_over else 0)
    return {t: max(0, held(after, t) - held(before, t)) for t in "WGSJ"}


def _result(view: dict, names: list[str]) -> list[str]:
    r = view["result"]
    why = (f"the {SCENARIO[r['scenario']]} goal is reached" if r["reason"] == "goal"
           else f"the turn limit ({r['turns']}) is reached")
    won = ", ".join(seat_name(names, s) for s in r["winners"])
    scores = ", ".join(f"{seat_name(names, s)} {sc}" for s, sc in enumerate(r["scores"]))
    return [f"Game over after turn {r['turns']}: {why}. Winner{'s' if len(r['winners']) > 1 else ''}: {won}.",
            f"Scores (progress toward the {SCENARIO[r['scenario']]} goal): {scores}."]


# ------------------------------------------------------------------ moves

def space_target(seat: int, space: int) -> str:
    return f"p{seat}-s{space}"


def piece_target(seat: int, index: int) -> str:
    return f"p{seat}-pc{index}"


def moves(view: dict, legal: list, seat: int) -> list[dict]:
    return [_move(view, a, seat) for a in legal]


def _m(text: str, group: str, target: str | None = None) -> dict:
    return {"text": text, "group": group, "target": target}


def _move(view: dict, a: Any, seat: int) -> dict:
    if isinstance(a, int):                                   # DeckReturn: the handle that goes back
        card = next((c for c in view["temple_hand"] if c["handle"] == a), {})
        return _m(f"Put {card_name(card.get('card'))} back in the shoe (keep the other)", "Temple: card to put back",
                  f"temple-{a}")
    op = a[0]
    me = view["players"][seat]
    stage = view["stage"]
    if op == "place":
        # two clicks on the board: the Warehouse's space (the group), then the Master Builder's
        return {**_m(f"Master Builder on space {a[2]}", f"Warehouse on space {a[1]}", space_target(seat, a[2])),
                "group_target": space_target(seat, a[1])}
    if op == "project":
        what = f"Pyramid {view['pyramids_available'][0]}" if a[1] == "pyramid" else BUILDING[a[1]]
        return _m(f"{what} project on space {a[2]}", f"Launch a {what} project", space_target(seat, a[2]))
    if op == "move":
        pc = me["pieces"][a[1]]
        return _m(f"Move {piece_name(pc)} to space {a[2]}", f"Move the {_short(pc)} project (space {pc['space']})",
                  space_target(seat, a[2]))
    if op == "cancel":
        return _m(f"Give up the project {piece_name(me['pieces'][a[1]])}", "Give up a project",
                  piece_target(seat, a[1]))
    if op == "demolish":
        return _m(f"Demolish {piece_name(me['pieces'][a[1]])}", "Demolish a building", piece_target(seat, a[1]))
    if op == "done":
        return _m({"p1": "finish phase 1 (projects)", "market": "end the exchange",
                   "p3": "finish building, then store"}.get(stage, "done"), "Done")
    if op in ("continue", "stop", "gold", "temple", "oracle"):
        return _m({"continue": "Continue (keep the Obelisk standing)",
                   "stop": f"Stop: lay down the Obelisk, collect the Production of the turn "
                           f"({tokens(view['display'])})",
                   "gold": "Discard 1 Gold: revolt gauge −1",
                   "temple": "Temple: draw the top 2 cards of the shoe, keep 1",
                   "oracle": "Oracle: look at the set-aside card"}[op], "Poll: continue or stop", None)
    if op == "barracks":
        return _m(f"Barracks: your gauge −1, {_name(view, a[1])}'s gauge +1", "Barracks", f"p{a[1]}-revolt")
    if op == "market":
        return _m(f"Market: exchange with {_name(view, a[1])}", "Market", f"p{a[1]}-warehouse")
    if op == "swap":
        other = view.get("market", {}).get("target")
        return _m(f"Give 1 {RESOURCE[a[1]]}, take 1 {RESOURCE[a[2]]} from {_name(view, other)}", "Market exchange")
    if op == "return":
        return _m(f"Put one card back on the {a[1]} of the shoe", "Temple")
    window = {"palace": "Palace: requisition the card?", "tw": "Troubles: Gardens or Library?"}
    if op in ("palace", "gardens", "library"):
        return _m({"palace": f"Palace: requisition the {card_name(view['current_card'])} card",
                   "gardens": "Gardens: rise by only 1", "library": "Library: no rise, take a Joker"}[op],
                  window.get(stage, "Buildings"))
    if op == "pass":
        return _m({"palace": "Do not requisition", "tw": "Take the Troubles rise"}.get(stage, "Do not use the Market"),
                  window.get(stage, "Market"))
    if op == "build":
        pc = me["pieces"][a[1]]
        pay = []
        if a[2] != "-":
            pay.append(f"Port saves 1 {RESOURCE[a[2]]}")
        if a[3]:
            pay.append(f"{a[3]} Joker{'s' if a[3] > 1 else ''}")
        if a[4]:
            pay.append(f"{a[4]} caravan{'s' if a[4] > 1 else ''}")
        step = f"step {pc['steps'] + 1}/{pc['steps_total']} of " if pc["kind"] == "pyramid" else ""
        how = "; ".join(pay) if pay else "with your own resources"
        return _m(f"Build {step}{piece_name(pc)} — {how}", "Build", piece_target(seat, a[1]))
    if op == "cash":
        return _m(f"Cash a caravan into 1 {RESOURCE[a[1]]} for your warehouse", "Cash a caravan",
                  f"p{seat}-warehouse")
    if op == "spare":
        return _m(f"Keep 1 {RESOURCE[a[1]]} out of this phase's builds (Jokers and caravans pay instead)",
                  "Keep a token", f"p{seat}-warehouse")
    if op == "charter":
        return _m(f"Charter a caravan for {RESOURCE[a[1]]} + {RESOURCE[a[2]]}", "Charter a caravan")
    if op == "joker":
        return _m(f"Turn a Joker into {RESOURCE[a[1]]}", "Storage")
    if op == "discard":
        return _m(f"Discard 1 {RESOURCE[a[1]]}", "Storage")
    return _m(" ".join(str(x) for x in a), "Other")


def _short(pc: dict) -> str:
    return f"Pyramid {pc['pyramid']}" if pc["kind"] == "pyramid" else BUILDING[pc["kind"]]


def _name(view: dict, seat: int | None) -> str:
    return seat_name([], seat) if seat is not None else "nobody"
