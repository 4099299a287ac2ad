"""What one seat may see (specs/sa-re.md §9): the public state plus the seat's own knowledge."""

from __future__ import annotations

from typing import Any

from .data import CARD_KIND, CARD_KIND_NAME, DOUBLE, KINDS, PYRAMIDS, RES
from .rules import first_player, progress


def _card(c: int) -> dict[str, Any]:
    return {"id": c, "kind": CARD_KIND_NAME[CARD_KIND[c]]}


def _hidden(h: int, knowledge: dict) -> dict[str, Any]:
    """A face-down card: its handle, and its face only if this seat knows it."""
    out: dict[str, Any] = {"handle": h}
    c = knowledge.get(h)
    if c is not None:
        out["card"] = _card(c)
    return out


def _pieces(st: Any, p: int) -> list[dict[str, Any]]:
    """Seat p's pieces as the view shows them."""
    pcs = []
    for i, pc in enumerate(st.pieces[p]):
        d = {"index": i, "kind": KINDS[pc[0]], "space": pc[1], "built": bool(pc[2])}
        if pc[0] == 12:
            d.update(pyramid=pc[4], steps=pc[3], steps_total=PYRAMIDS[pc[4]][0])
        pcs.append(d)
    return pcs


def _player(st: Any, p: int, seat: int | None, knowledge: dict) -> dict[str, Any]:
    """What everyone sees of seat p, with its kept Temple cards' faces when p is the viewing seat."""
    return {
        "seat": p,
        "pieces": _pieces(st, p),
        "warehouse": dict(zip(RES, st.res[p])),
        "gains": dict(zip(RES, st.gain[p])),
        "production_cards": dict(zip(RES, st.slots[p])),
        "revolt": st.rev[p],
        "revolt_bottom": st.black[p],
        "caravans": st.car[p],
        "caravans_usable": st.car_use[p] if st.phase == "p3" else st.car[p],
        "spared": dict(zip(RES[:3], st.spare[p])),
        "obelisk": ("standing", "lying", "revolt")[st.status[p]] if st.phase == "p2" or st.phase == "p3" else "standing",
        "night_side": [KINDS[k] for k in range(5, 11) if st.used[p] >> k & 1],
        "palace_cards": [_card(c) for c in st.palace_cards[p]],
        "library_jokers": st.lib_j[p],
        "temple_kept": [_hidden(h, knowledge if p == seat else {}) for h in st.kept[p]],
        "temple_kept_revealed": [_card(c) for c in st.kept_cards[p]],
        "pyramid_tokens": st.ptok[p],
        "progress": progress(st, p),
    }


def build_view(engine: Any, st: Any, seat: int | None, knowledge: dict) -> dict[str, Any]:
    step = engine.expected(st)
    players = [_player(st, p, seat, knowledge) for p in range(st.n)]
    own = knowledge if seat is not None else {}
    shoe = [_hidden(h, own) for h in st.shoe]
    public_top = bool(st.top) and bool(st.shoe) and st.top[0] == st.shoe[0] and st.top[1] >= 0
    if public_top:                                   # a face-up shoe's top card (SR-14): everyone sees it
        shoe[0]["card"] = _card(st.top[1])
    v: dict[str, Any] = {
        "game": "sare",
        "seat": seat,
        "scenario": st.scenario,
        "architect": st.architect,
        "pyramid_pick": st.pyramid_pick,
        "turn": st.turn,
        "turn_limit": st.turn_limit,
        "phase": st.phase,
        "stage": st.stage,
        "order": list(st.order),
        "first_player": first_player(st),
        "to_act": getattr(step, "seat", None),
        "reserve": dict(zip(RES, st.reserve)),
        "board": {KINDS[k]: st.board[k] for k in range(12)},
        "pyramids_available": list(st.pyr_avail),
        "players": players,
        "double_card": list(RES[t] for t in DOUBLE[st.dbl]) if st.dbl >= 0 else None,
        "display": dict(zip(RES[:3], st.display)),
        "shoe": shoe,
        "shoe_face": st.shoe_face,
        "shoe_top": shoe[0].get("card") if public_top else None,
        "set_aside": _hidden(st.aside, own) if st.aside else None,
        "discard": [_card(c) for c in st.discard],
        "darkness": len(st.dark),
        "removed": [_card(c) for c in st.removed],
        "hoshekh": [_card(c) for c in st.hosh],
        "current_card": _card(st.card) if st.card >= 0 else None,
        "horus_pending": st.horus,
        "temple_hand": [_hidden(h, own if seat == st.temple_owner else {}) for h in st.temple_hand],
        "laid_down": list(st.down),
        "state": engine.encode(st),      # the public state (hidden cards are handles): for search bots
    }
    if st.tlev:
        v["troubles_level"] = list(st.tlev)
    if st.sub and st.sub[0] == "market":
        v["market"] = {"user": st.sub[1], "target": st.sub[2], "swaps_left": st.sub[3]}
    r = engine.result(st)
    if r is not None:
        v["result"] = r
    return v
