"""Bazaar's board picture (the presentation's `render`): the deck, each seat's hand size, score
and market choice, the viewer's own cards (each a place to click when bidding) and the rounds
played. A pure function of one view: it shows only cards that view holds."""

from __future__ import annotations

from typing import Any

from clients.render.common import Svg, seat_label

from .engine import number

WIDTH, ROW = 640, 24


def _status(view: dict[str, Any], seat: int) -> str:
    held = view["hands"][seat]
    market = "drew" if view["drew"][seat] else "to move" if view["to_move"] == seat else ""
    return f"{held} card{'s' if held != 1 else ''}, {view['scores'][seat]} point{'s' if view['scores'][seat] != 1 else ''}" + (f", {market}" if market else "")


def _heading(view: dict[str, Any]) -> str:
    if view["phase"] == "over":
        return f"Bazaar: game over after {view['rounds']} rounds"
    return f"Bazaar: round {view['round']} of {view['rounds']} ({view['phase']})"


def _rounds(view: dict[str, Any], names: list[str]) -> list[str]:
    return [f"round {r + 1}: " + ", ".join(f"{seat_label(names, s)} {number(c)}" for s, c in enumerate(cards))
            for r, cards in enumerate(view["played"])]


def svg(view: dict[str, Any], names: list[str]) -> str:
    n = len(view["hands"])
    rounds = _rounds(view, names)
    pic = Svg(WIDTH, 150 + ROW * (n + len(rounds)), "Bazaar")
    pic.text(16, 24, _heading(view), class_="title")
    pic.rect(16, 40, 70, 96, rx=8, class_="panel", data_target="deck", tip=f"the deck: {view['deck']} cards")
    pic.text(30, 92, f"{view['deck']}")
    pic.text(30, 112, "deck", class_="muted")
    hand = view.get("my_hand") or []
    for i, (h, card) in enumerate(hand):
        x = 110 + 62 * i
        pic.rect(x, 40, 52, 76, rx=6, class_="panel", data_target=f"hand-{h}",
                 tip=f"your card {number(card)}" if card is not None else "your card (not seen yet)")
        pic.text(x + 10, 84, number(card) if card is not None else "?")
    if view["seat"] is not None:
        pic.text(110, 132, "your hand" if hand else "your hand is empty", class_="muted")
    y = 160
    for s in range(n):
        pic.text(16, y, seat_label(names, s), class_=f"seat{s}")
        pic.text(200, y, _status(view, s))
        y += ROW
    for line in rounds:
        pic.text(16, y, line, class_="muted")
        y += ROW
    return str(pic)


def text(view: dict[str, Any], names: list[str]) -> str:
    lines = [_heading(view), f"deck: {view['deck']} cards"]
    if view["seat"] is not None:
        mine = [number(c) if c is not None else "?" for _, c in view.get("my_hand") or []]
        lines.append(f"your hand: {' '.join(mine) or '(empty)'}")
    lines += [f"{seat_label(names, s)}: {_status(view, s)}" for s in range(len(view["hands"]))]
    return "\n".join(lines + _rounds(view, names))
