"""Nomads' board picture: the last roll's dice and the market's neutral price frames (issue 22)."""

from __future__ import annotations

import re

from clients import render
from tests.web.test_table_bugs import _views


def test_the_nomads_last_roll_panel_shows_the_dice():
    empty = shown = 0
    for ref, _ in _views("nomads", 3, 300):
        view = ref.view(0)
        if view["last_roll"]:
            svg = render.svg("nomads", view, ["a", "b", "c"])
            panel = svg.split("Last roll", 1)[1][:1500]
            if 'class="die"' in panel:
                shown += 1
            else:
                empty += 1
    assert shown > 0 and empty == 0


def test_a_price_has_a_neutral_frame():
    """Red marked a Nomads price as if it were whose turn it is: a price has a neutral frame."""
    svg = render.svg("nomads", next(iter(_views("nomads", 3, 60)))[0].view(0), ["a", "b", "c"])
    price = re.search(r"\.pricecell \{[^}]*\}", svg).group(0)
    assert "--hi" not in price
