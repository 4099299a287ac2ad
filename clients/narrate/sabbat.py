"""Sabbat Magica in words: each event as sentences for one viewer, and the legal moves grouped.

Pure functions of views (engine.view) and public component data (protocol.games.sabbat.data):
a seat's POWER card is named only where that viewer's view shows it (`my_power` for its owner,
`players[s]["power"]` once revealed by its first use). The words follow the rulebook (specs/
sabbat-magica.md): regions, gardens, drawbridge, manor squares, mirrors, 1H/2H stores.
"""

from __future__ import annotations

from typing import Any

from clients.narrate import seat_name
from protocol import engine as E
from protocol.games.sabbat import data as D
from protocol.games.sabbat.engine import SabbatEngine

# ------------------------------------------------------------------ shared words (also used by the renderer)
RES_WORDS = [r.replace("_", " ") for r in D.RES_NAMES]          # spider, rat tail, gemstone, mask
LOC_INDEX = {lid: i for i, lid in enumerate(D.LOC_IDS)}
BRIDGE_ID = "drawbridge"
TILE_WORDS = {D.STANDARD: None, D.GRIMOIRE: "Grimoire", D.CLOCK: "Clock", D.TERRORISER: "Terroriser",
              D.TEST_TUBE: "Test tube"}
_TILE_BY_NAME = {name: i for i, name in enumerate(D.TILE_NAMES)}
_POWER_BY_ID = {pid: i for i, pid in enumerate(D.POWER_IDS)}


def loc_target(l: int) -> str:
    """The data-target id of a location index (regions, gardens, the drawbridge)."""
    return BRIDGE_ID if l == D.BRIDGE else D.LOC_IDS[l]


def loc_word(l: int) -> str:
    return "the drawbridge" if l == D.BRIDGE else D.LOC_NAMES[l]


def square_target(q: int) -> str:
    return f"square-{q}"


def mirror_target(m: int) -> str:
    return f"mirror-{m}"


def bonus_target(i: int) -> str:
    return f"bonus-{i}"


def tile_word(name: str) -> str:
    """A manor tile by its id: "spider tile", "Grimoire"."""
    t = _TILE_BY_NAME.get(name)
    if t is None:
        return name
    kind = D.TILE_KIND[t]
    return TILE_WORDS[kind] or f"{RES_WORDS[D.TILE_RES[t]]} tile"


def gate_word(name: str) -> str:
    """A gate tile id ("spider+rat_tail") as its fee: "spider + rat tail"."""
    return " + ".join(x.replace("_", " ") for x in name.split("+"))


def power_title(pid: str | None) -> str:
    return D.POWER_TITLES[_POWER_BY_ID[pid]] if pid in _POWER_BY_ID else "?"


def power_text(c: int) -> str:
    return D.DATA["power_cards"][c]["text"]


def bonus_word(b: list | tuple, resource: int | None = None) -> str:
    kind, amount = b[0], b[1]
    if kind == "vp":
        return f"+{amount} VP"
    if kind == "terror":
        return f"+{amount} terror"
    if kind == "res":
        return f"1 {RES_WORDS[amount]}"
    return "1 resource of your choice" if resource is None else f"1 {RES_WORDS[resource]} (chosen)"


def time_index(view: dict[str, Any]) -> int:
    return D.TIME_NAMES.index(view["time_card"])


def res_list(counts: list[int]) -> str:
    """[2, 0, 1, 0] -> "2 spider, 1 gemstone" ("nothing" when empty)."""
    parts = [f"{k} {RES_WORDS[r]}" for r, k in enumerate(counts) if k]
    return ", ".join(parts) or "nothing"


def fight_cost(view: dict[str, Any], seat: int, l: int) -> tuple[int, int]:
    """(terror cost, opposing ghosts) of fighting into location l (The Fight)."""
    order = view["order"]
    mine = order.index(seat)
    cost = beaten = 0
    for o in view["locations"][D.LOC_IDS[l]]:
        if o != seat:
            beaten += 1
            cost += 2 if order.index(o) < mine else 1
    return cost, beaten


def stage_words(view: dict[str, Any]) -> str:
    """What the game waits for, in the rulebook's phase names."""
    stage, sub = view["stage"], view["sub"]
    if stage == "setup":
        return "set-up: play order, manor tiles and gates are drawn"
    if stage == "commit":
        return "everyone chooses a POWER card in secret"
    if stage == "secret":
        return "start of round: a will-o'-the-wisp may be protected (POWER)"
    if stage == "time":
        return "the next time card is drawn"
    if stage == "invoke":
        return "A.2 invocation: everyone chooses in secret how many ghosts go to the drawbridge"
    if stage == "bonus":
        return "A.3 bonus: take one bonus from the time card"
    if stage == "canteen":
        return "A.2 play order: take the canteen's order bonus or not"
    if stage == "food":
        return "C.1 food: choose which ghosts go unfed"
    if stage == "alch":
        return "C.3 approval: the Alchemist's office keeps resources"
    if stage == "end":
        return "the game is over"
    return {"": "B skulduggery: move the magician, move ghosts, or pass",
            "b1": "B.1: use the tile's effect or work a mirror",
            "b2": "B.2: move more ghosts, or finish",
            "pay": "B.2: choose which store pays the gate fee",
            "tt": "B.1 Test tube: give and take resources",
            "b1end": "end of B.1: a POWER may be used",
            "victims": "B.1 POWER: choose for each adjacent adversary",
            "immortal": "a displaced minion: its owner decides where it goes"}.get(sub, sub)


# ------------------------------------------------------------------ narration
def _pl(view: dict[str, Any], s: int) -> dict[str, Any]:
    return view["players"][s]


def _delta(a: int, b: int, what: str) -> str:
    d = b - a
    return f"{'+' if d > 0 else '−'}{abs(d)} {what} (now {b})" if d else ""


def _gain(pb: dict, pa: dict, gain: int, before: dict, after: dict) -> str:
    """A terror gain by the rules (capped at 10), with the new total when this event did nothing
    else to it (when the round's stewardship followed, the total is told there)."""
    got = min(gain, D.TERROR_MAX - pb["terror"])
    if not got:
        return "terror stays at 10"
    ended = after["stage"] != before["stage"] or after["round"] != before["round"]
    return f"+{got} terror" + ("" if ended else f" (now {pa['terror']})")


def garden_level(view: dict[str, Any], garden: str, s: int) -> int:
    """2 if seat s holds the garden's major bonus (position 1), 1 the minor (position 2, when
    position 1 is another seat's), else 0 (6 Gardens)."""
    L = view["locations"][garden]
    if L and L[0] == s:
        return 2
    return 1 if len(L) > 1 and L[1] == s and L[0] != s else 0


def _joined(parts: list[str]) -> str:
    parts = [p for p in parts if p]
    return ", ".join(parts)


def narrate(event: dict[str, Any], before: dict[str, Any], after: dict[str, Any],
            names: list[str]) -> list[str] | None:
    kind = event["kind"]
    if kind == "rolled":
        out = _rolled(event, before, after, names)
    elif kind == "committed":
        out = _committed(event, before, after, names)
    elif kind == "choices":
        out = _invoked(event, before, after, names)
    elif kind == "act":
        own = _own_effect(event["seat"], event["action"], before)
        mid = after                     # the action's line tells its own numbers, not the stewardship's
        if own is not None:
            mid = dict(after, players=[dict(p, **o) for p, o in zip(after["players"], own["players"])])
        out = _act(event["seat"], event["action"], before, mid, names)
        return out + _phase_changes(before, after, names, own)
    else:
        return None
    return out + _phase_changes(before, after, names)


class _ActOnly(SabbatEngine):
    """The engine stopped where stewardship (C.1 food, C.2 region VPs, C.3 approval, the next round)
    would begin: applying an action with it gives the action's own effect and nothing after it."""

    def _food(self, st) -> None:
        pass

    def _approval(self, st) -> None:
        pass


_ACT_ONLY = _ActOnly()


def _own_effect(s: int, a: Any, before: dict) -> dict | None:
    """The players' numbers right after the action itself, before the stewardship it may set off
    (a pure function of the public state in the view); None if it cannot be computed."""
    try:
        st = _ACT_ONLY.decode(before["state"])
        _ACT_ONLY.apply(st, E.Act(s, a))
    except (E.IllegalAction, KeyError, ValueError, TypeError, IndexError):
        return None
    return {"players": [{"vp": st.vp[o], "terror": st.terror[o], "chimaeras": st.chim[o], "curse": st.curse[o]}
                        for o in range(st.n)]}


def _rolled(event: dict, before: dict, after: dict, names: list[str]) -> list[str]:
    if before["stage"] == "setup":
        order = ", ".join(seat_name(names, s) for s in after["order"])
        gates = "; ".join(f"{D.LOC_NAMES[LOC_INDEX[r]]} {gate_word(g)}" for r, g in after["gates"].items())
        manor = ", ".join(tile_word(t) for t in after["manor"])
        return [f"Set-up draw: the play order is {order}.",
                f"The manor tiles fall, row by row: {manor}.",
                f"Gate fees: {gates}; set aside: {', '.join(gate_word(g) for g in after['gates_aside'])}."]
    bon = ", ".join(bonus_word(b) for b in D.TIME_BONUSES[time_index(after)]) or "none"
    return [f"Round {after['round']}: the time card drawn is {after['time_card']} — "
            f"{after['actions']} actions each; bonuses: {bon}."]


def _committed(event: dict, before: dict, after: dict, names: list[str]) -> list[str]:
    who = ", ".join(seat_name(names, s) for s in event["seats"])
    if event["tag"] != "power":
        return [f"{who} chose in secret (revealed later)."]
    out = [f"{who} each chose a POWER card in secret (revealed at its first use)."]
    if after.get("my_power"):
        c = _POWER_BY_ID[after["my_power"]]
        out.append(f"Your POWER card is {D.POWER_TITLES[c]}: {power_text(c)}.")
    return out


def _invoked(event: dict, before: dict, after: dict, names: list[str]) -> list[str]:
    picks = ", ".join(f"{seat_name(names, s)} {k}" for s, k in zip(event["seats"], event["values"]))
    out = [f"Invocation revealed — ghosts put on the drawbridge: {picks}."]
    if after["stage"] == "canteen":            # the order waits for the holder's choice (register R-1)
        return out + [f"{seat_name(names, after['actor'])} holds the canteen and decides whether to add its "
                      "bonus to the play-order tally."]
    order = ", ".join(seat_name(names, s) for s in after["order"])
    return out + [f"Play order this round: {order}."]


def _act(s: int, a: Any, before: dict, after: dict, names: list[str]) -> list[str]:
    who = seat_name(names, s)
    stage, sub = before["stage"], before["sub"]
    pb, pa = _pl(before, s), _pl(after, s)
    head = a[0] if isinstance(a, list) and a else a
    if head == "power":
        return _power(s, a, before, after, names)
    if stage == "secret":
        return [f"{who} protects no ghost at the start of this round."]
    if stage == "canteen":
        level = 2 if before["locations"]["canteen"][:1] == [s] else 1
        told = [f"{who} {'takes' if a[1] else 'declines'} the canteen's order bonus (+{D.CANTEEN_ORDER[level]})."]
        if after["stage"] != "canteen":
            told.append("Play order this round: " + ", ".join(seat_name(names, o) for o in after["order"]) + ".")
        return told
    if stage == "bonus":
        bon = D.TIME_BONUSES[time_index(before)][a[1]]
        return [f"{who} takes the time-card bonus {bonus_word(bon, a[2] if len(a) > 2 else None)}"
                + (", to the 2H store." if bon[0] in ("res", "any") else ".")]
    if stage == "food":
        return [f"{who} cannot feed every ghost: the ghost on {loc_word(a[1])} goes to the graveyard (−1 VP)."]
    if stage == "alch":
        if a == "done":
            return [f"{who} finishes at the Alchemist's office."]
        return [f"{who} keeps a {RES_WORDS[a[1]]} at the Alchemist's office (to 2H)."]
    # phase B
    if a == "pass":
        if sub == "immortal":
            return [f"{who}'s displaced ghost goes to the graveyard: "
                    f"{_delta(pb['terror'], pa['terror'], 'terror') or 'terror stays at 10'}."]
        return [f"{who} passes (the action is used)."]
    if a == "done":
        if sub == "b1":
            return [f"{who} uses neither the tile nor a mirror."]
        if sub == "tt":
            return [f"{who} stops giving to the Test tube and takes the resources back."]
        return [f"{who} ends the action."]
    if head == "magician":
        verb = "places the magician on" if pb["magician"] < 0 else "moves the magician to"
        return [f"{who} {verb} square {a[1]} ({tile_word(after['manor'][a[1]])})."]
    if head == "move":
        return _move(s, a[1], a[3], a[4], before, after, names)
    if head == "pay":
        out = [f"{who} pays the {RES_WORDS[a[2]]} of the gate fee from the {a[1]}H store."]
        if after["sub"] != "pay":
            args = before["state"]["args"]
            out += _arrival(s, args[0], args[2], args[3], before, after, names)
        return out
    if head == "tile":
        return _tile(s, a, before, after, names)
    if head == "mirror":
        cracked = before["mirrors"][a[1]] > 0
        level = garden_level(before, "glass_factory", s)
        gain = (D.MIRROR_BREAK if cracked else D.MIRROR_CRACK) + (
            D.GLASS_MAJOR if level == 2 else D.GLASS_MINOR if level == 1 and cracked else 0)
        return [f"{who} {'breaks' if cracked else 'cracks'} mirror {a[1]}: {_gain(pb, pa, gain, before, after)}."]
    if head == "give" and sub == "tt":
        return [f"{who} gives a {RES_WORDS[before['state']['args'][1]]} from the {a[1]}H store to the Test tube."]
    if head == "give":
        v = before["state"]["args"][1]
        return [f"{who}'s Apparition puts a {RES_WORDS[a[1]]} in {seat_name(names, v)}'s 1H store."]
    if head == "take":
        return [f"{who} takes a {RES_WORDS[a[1]]} from the Test tube."]
    if head == "steal":
        v = before["state"]["args"][1]
        k = _pl(before, v)[f"h{a[1]}"][2]
        return [f"{who} seduces {seat_name(names, v)}: takes {k} gemstone{'s' if k != 1 else ''} "
                f"from the {a[1]}H store into their 2H store."]
    return [f"{who}: {a}"]


def _move(s: int, src: int, dst: int, mode: str, before: dict, after: dict, names: list[str]) -> list[str]:
    who = seat_name(names, s)
    if after["sub"] == "pay" and after["actor"] == s and before["sub"] != "pay":
        gate = gate_word(before["gates"][D.LOC_IDS[dst]])
        aim = {"place": "to take a free space", "fight": "to fight", "retreat": "though it must retreat"}[mode]
        return [f"{who} sends a ghost from the drawbridge toward {loc_word(dst)} {aim}; "
                f"the gate fee is {gate}, and both stores hold a needed resource."]
    return _arrival(s, src, dst, mode, before, after, names)


def _arrival(s: int, src: int, dst: int, mode: str, before: dict, after: dict, names: list[str]) -> list[str]:
    """A ghost's move once it has arrived (or retreated), told from the differences."""
    who = seat_name(names, s)
    pb, pa = _pl(before, s), _pl(after, s)
    fee = [x - y for x, y in zip(pa["approval"], pb["approval"])]
    paid = f" paying the gate fee ({res_list(fee)})" if any(k > 0 for k in fee) else ""
    if dst == D.BRIDGE:
        return [f"{who} brings a ghost from {loc_word(src)} back to the drawbridge: "
                f"{_delta(pb['terror'], pa['terror'], 'terror') or 'terror stays at 10'}."]
    src_w = "the drawbridge" if src == D.BRIDGE else loc_word(src)
    if mode == "place":
        return [f"{who} moves a ghost from {src_w} to {loc_word(dst)}{paid}."]
    if mode == "retreat":
        gainers = [seat_name(names, o) for o in range(len(after["players"]))
                   if o != s and _pl(after, o)["vp"] > _pl(before, o)["vp"]]
        return [f"{who} moves a ghost from {src_w} to {loc_word(dst)}{paid}, finds no free space and retreats "
                f"to the graveyard: {_delta(pb['terror'], pa['terror'], 'terror') or 'terror stays at 10'}"
                + (f"; {', '.join(gainers)} +2 VP each." if gainers else ".")]
    foes = sorted({o for o in before["locations"][D.LOC_IDS[dst]] if o != s})
    beaten = ", ".join(seat_name(names, o) for o in foes)
    cost, _ = fight_cost(before, s, dst)
    paid_terror = pb["terror"] - cost                   # the fight's price, before any compensation
    deciding = after["actor"] if after["sub"] == "immortal" and before["sub"] != "immortal" else None
    out = [f"{who} moves a ghost from {src_w} to {loc_word(dst)}{paid} and wins the fight against {beaten}: "
           f"{_joined([_delta(pb['terror'], paid_terror, 'terror'), _delta(pb['vp'], pa['vp'], 'VP')])}."]
    for o in range(len(after["players"])):
        if o == deciding:                               # Gift of immortality: not decided yet
            owner = f"{who}'s own" if o == s else f"{seat_name(names, o)}'s"
            out.append(f"{owner} minion is pushed out of {loc_word(dst)}: "
                       f"{seat_name(names, o)} decides where it goes.")
        elif _pl(after, o)["graveyard"] > _pl(before, o)["graveyard"]:
            whose = f"{who}'s own ghost" if o == s else f"{seat_name(names, o)}'s ghost"
            start = paid_terror if o == s else _pl(before, o)["terror"]
            told = _delta(start, _pl(after, o)["terror"], "terror")
            out.append(f"{whose} is pushed out of {loc_word(dst)} to the graveyard"
                       + (f": {told}." if told else "."))
    return out


def _tile(s: int, a: list, before: dict, after: dict, names: list[str]) -> list[str]:
    who = seat_name(names, s)
    pb, pa = _pl(before, s), _pl(after, s)
    name = before["manor"][pb["magician"]]
    kind = D.TILE_KIND[_TILE_BY_NAME[name]]
    if kind == D.STANDARD:
        return [f"{who} takes 2 {RES_WORDS[D.TILE_RES[_TILE_BY_NAME[name]]]} from the {tile_word(name)} (to 2H)."]
    if kind == D.GRIMOIRE:
        return [f"{who} reads the Grimoire: the curse is discarded."]
    if kind == D.CLOCK:
        return [f"{who} turns the Clock: the 1H store ({res_list(pb['h1'])}) moves to 2H."]
    if kind == D.TERRORISER:
        return [f"{who} discards a {RES_WORDS[a[2]]} from {a[1]}H at the Terroriser: "
                f"{_gain(pb, pa, 2 if a[1] == 1 else 4, before, after)}."]
    return [f"{who} starts the Test tube with {RES_WORDS[a[1]]}: resources of that type are given, "
            "then as many of any type taken."]


def _power(s: int, a: list, before: dict, after: dict, names: list[str]) -> list[str]:
    who = seat_name(names, s)
    c = a[1]
    title = D.POWER_TITLES[c]
    first = _pl(before, s)["power"] is None
    head = f"{who} {'reveals' if first else 'uses'} the POWER card {title}"
    pb, pa = _pl(before, s), _pl(after, s)
    if c == D.LUXURIANCE:
        return [f"{head}: takes {RES_WORDS[a[2]]} and {RES_WORDS[a[3]]} (to 2H)."]
    if c == D.BATS:
        return [f"{head}: the vampire flies to square {a[2]} ({tile_word(after['manor'][a[2]])})."]
    if c == D.BOOSTER:
        return [f"{head}: this movement, slaves may advance two locations."]
    if c == D.FRENZY:
        return [f"{head}: {_delta(pb['terror'], pa['terror'], 'terror') or 'terror stays at 10'}."]
    if c == D.TELEPORTATION:
        return [f"{head}: a spirit crosses from the drawbridge with no gate fee."] + \
            _arrival(s, D.BRIDGE, a[2], a[3], before, after, names)
    if c == D.IMMORTALITY:
        return [f"{head}: the displaced minion reappears in {loc_word(a[2])}."]
    if c == D.SECRET_AREA:
        return [f"{head}: the will-o'-the-wisp in {loc_word(a[2])} is protected this round."]
    if c == D.DOPPELGANGER:
        used = before["state"]["args"][1]           # the effect used in B.1
        if used >= 0:
            return [f"{head}: {who} may work mirror {used} again."]
        return [f"{head}: {who} may use the {tile_word(before['manor'][pb['magician']])} again."]
    if c in (D.SPELL, D.FIREBALL):
        what = "terror" if c == D.SPELL else "drawbridge"
        near = D.KING[pb["magician"]] if pb["magician"] >= 0 else ()
        hit = [o for o, p in enumerate(before["players"]) if o != s and p["magician"] in near and p[what]]
        lost = ("1 terror" if c == D.SPELL else "a drawbridge ghost to the graveyard")
        lost = ("loses " if len(hit) == 1 else "each lose ") + lost
        return [f"{head}: {', '.join(seat_name(names, o) for o in hit) or 'nobody'} {lost}"
                + (f"; {who} {_gain(pb, pa, len(hit), before, after)}." if c == D.SPELL and hit else ".")]
    if c == D.APPARITION:
        return [f"{head}: a resource appears in each adjacent adversary's 1H store."]
    if c == D.SEDUCTION:
        return [f"{head}: the gemstones of adjacent magicians are stolen."]
    return [head + "."]


def _phase_changes(before: dict, after: dict, names: list[str], own: dict | None = None) -> list[str]:
    """Stewardship, the curse and the end of the game, which the engine does on its own. `own` holds
    the players' numbers after the action's own effect (told by the action's line), so that only
    what the stewardship changed is counted here."""
    out: list[str] = []
    moved_on = after["stage"] != before["stage"] or after["round"] != before["round"] or (
        before["stage"] == "food" and after["actor"] != before["actor"])
    if moved_on and before["stage"] in ("turn", "food", "alch"):
        changes = []
        base = own or before
        for s in range(len(after["players"])):
            pb, pa = _pl(base, s), _pl(after, s)
            parts = [_delta(pb["vp"], pa["vp"], "VP"), _delta(pb["terror"], pa["terror"], "terror"),
                     _delta(pb["chimaeras"], pa["chimaeras"], "chimaera"),
                     "a new curse" if pa["curse"] > pb["curse"] else ""]
            if any(parts):
                changes.append(f"{seat_name(names, s)} {_joined(parts)}")
        if changes:
            out.append("Stewardship (food, region VPs, approval"
                       + (", curses" if after["round"] != before["round"] else "")
                       + ") — net changes: " + "; ".join(changes) + ".")
        if after["stage"] == "food":
            out.append(f"{seat_name(names, after['actor'])} has not enough terror to feed every ghost "
                       f"and chooses {after['state']['args'][0]} unfed ghost(s).")
    if "result" in after and "result" not in before:
        res = after["result"]
        scores = ", ".join(f"{seat_name(names, s)} {res['scores'][s]} ({res['vp'][s]} VP + "
                           f"{res['chimaeras'][s]} chimaera{'s' if res['chimaeras'][s] != 1 else ''})"
                           for s in range(len(res["scores"])))
        win = ", ".join(seat_name(names, s) for s in res["winners"])
        out.append(f"Game over. Final scores: {scores}.")
        out.append(f"{'Winner' if len(res['winners']) == 1 else 'Shared victory'}: {win}.")
    return out


# ------------------------------------------------------------------ moves
def moves(view: dict[str, Any], legal: list, seat: int) -> list[dict[str, Any]]:
    return [_one_move(view, a, seat) for a in legal]


def _m(text: str, group: str, target: str | None = None) -> dict[str, Any]:
    return {"text": text, "group": group, "target": target}


def _ghost_from(view: dict, seat: int, l: int, p: int) -> str:
    if l == D.BRIDGE:
        return "the drawbridge"
    mine = [i for i, o in enumerate(view["locations"][D.LOC_IDS[l]]) if o == seat]
    return D.LOC_NAMES[l] + (f" (position {p + 1})" if len(mine) > 1 else "")


def _arrive_words(view: dict, seat: int, dst: int, mode: str, fee: bool = False) -> str:
    """"to Neshata: fight (3 terror, +4 VP)"; `fee` adds the gate fee of a drawbridge entry."""
    if dst == D.BRIDGE:
        return "to the drawbridge (+terror)"
    gate = view["gates"].get(D.LOC_IDS[dst]) if fee else None
    paid = f", gate fee {gate_word(gate)}" if gate else ""
    if mode == "place":
        return f"to {D.LOC_NAMES[dst]}{paid}"
    if mode == "retreat":
        return f"to {D.LOC_NAMES[dst]}{paid}: no free space, retreat to the graveyard"
    cost, beaten = fight_cost(view, seat, dst)
    return f"to {D.LOC_NAMES[dst]}{paid}: fight ({cost} terror, +{2 * beaten} VP)"


def _one_move(view: dict, a: Any, seat: int) -> dict[str, Any]:
    stage, sub = view["stage"], view["sub"]
    if stage == "invoke":
        return _m(f"{a} ghost{'s' if a != 1 else ''} to the drawbridge",
                  "Invoke ghosts (secret, revealed together)")
    if stage == "commit":
        return _m(f"{D.POWER_TITLES[a]}: {power_text(a)}", "Choose your POWER card (secret until used)")
    head = a[0] if isinstance(a, list) and a else a
    if head == "power":
        return _power_move(view, a, seat)
    if a == "pass":
        if stage == "secret":
            return _m("Protect no ghost", "Start of round")
        if sub == "immortal":
            return _m("Let the minion go to the graveyard (+1 terror)", "Displaced minion")
        return _m("use up this action doing nothing", "Pass")
    if a == "done":
        text = {"b1": "No effect (finish the magician's move)", "b2": "Finish moving ghosts",
                "tt": "Stop giving; take the resources back", "b1end": "End the action",
                }.get(sub, "Done")
        if stage == "alch":
            text = "Done keeping resources"
        return _m(text, "Finish")
    if head == "magician":
        verb = "Place magician" if view["players"][seat]["magician"] < 0 else "Move magician"
        return _m(f"square {a[1]}: {tile_word(view['manor'][a[1]])}", verb, square_target(a[1]))
    if head == "move":
        return _m(_arrive_words(view, seat, a[3], a[4], fee=a[1] == D.BRIDGE), f"Move a ghost from {_ghost_from(view, seat, a[1], a[2])}",
                  loc_target(a[3]))
    if head == "pay":
        return _m(f"pay the {RES_WORDS[a[2]]} from the {a[1]}H store", "Pay the gate fee")
    if head == "tile":
        mag = view["players"][seat]["magician"]
        name = view["manor"][mag]
        kind = D.TILE_KIND[_TILE_BY_NAME[name]]
        text = {D.STANDARD: f"take 2 {RES_WORDS[D.TILE_RES[_TILE_BY_NAME[name]]]}",
                D.GRIMOIRE: "discard your curse", D.CLOCK: "move your 1H store to 2H"}.get(kind)
        if kind == D.TERRORISER:
            text = f"discard a {RES_WORDS[a[2]]} from {a[1]}H (+{2 if a[1] == 1 else 4} terror)"
        elif kind == D.TEST_TUBE:
            text = f"exchange {RES_WORDS[a[1]]} resources"
        return _m(text, f"Tile effect: {tile_word(name)}", square_target(mag))
    if head == "mirror":
        verb = "crack" if view["mirrors"][a[1]] == 0 else "break"
        return _m(f"{verb} mirror {a[1]} (+{3 if verb == 'crack' else 2} terror)", "Work a mirror",
                  mirror_target(a[1]))
    if head == "give" and sub == "tt":
        return _m(f"give a {RES_WORDS[view['state']['args'][1]]} from {a[1]}H", "Test tube: give")
    if head == "give":
        v = view["state"]["args"][1]
        return _m(f"put a {RES_WORDS[a[1]]} in seat {v}'s 1H store", "Apparition")
    if head == "take":
        return _m(f"take a {RES_WORDS[a[1]]}", "Test tube: take")
    if head == "steal":
        v = view["state"]["args"][1]
        return _m(f"steal seat {v}'s gemstones from {a[1]}H", "Seduction")
    if head == "bonus":
        bon = D.TIME_BONUSES[time_index(view)][a[1]]
        return _m(bonus_word(bon, a[2] if len(a) > 2 else None), "Take a bonus", bonus_target(a[1]))
    if head == "unfed":
        return _m(f"the ghost on {_ghost_from(view, seat, a[1], a[2])}", "Unfed ghost to the graveyard (−1 VP)",
                  loc_target(a[1]))
    if head == "keep":
        return _m(f"keep a {RES_WORDS[a[1]]}", "Alchemist's office: keep")
    if head == "canteen":
        level = 2 if view["locations"]["canteen"][:1] == [seat] else 1
        return _m(f"{'add' if a[1] else 'do not add'} +{D.CANTEEN_ORDER[level]} to your play-order tally",
                  "Canteen: order bonus", loc_target(D.CANTEEN))
    return _m(str(a), "Other")


def _power_move(view: dict, a: list, seat: int) -> dict[str, Any]:
    c = a[1]
    group = f"POWER: {D.POWER_TITLES[c]}"
    if c == D.LUXURIANCE:
        return _m(f"take {RES_WORDS[a[2]]} + {RES_WORDS[a[3]]} to 2H", group)
    if c == D.BATS:
        return _m(f"fly to square {a[2]}: {tile_word(view['manor'][a[2]])}", group, square_target(a[2]))
    if c == D.TELEPORTATION:
        return _m("a spirit " + _arrive_words(view, seat, a[2], a[3]) + " (no fee)", group, loc_target(a[2]))
    if c == D.IMMORTALITY:
        return _m(f"the minion reappears in {loc_word(a[2])}", group, loc_target(a[2]))
    if c == D.SECRET_AREA:
        return _m(f"protect the ghost on {_ghost_from(view, seat, a[2], a[3])}", group, loc_target(a[2]))
    return _m(f"use {D.POWER_TITLES[c]}: {power_text(c)}", group)
