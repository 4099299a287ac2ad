"""Small bugs of the table seen in a trial (issue 22), each pinned by a test that failed before
its fix; the page's own bugs are in test_table_page.py."""

from __future__ import annotations

from clients import render
from clients.bot import chooser_for, make_bot
from protocol import games
from protocol.referee import Referee


def _views(game: str, players: int, steps: int, seed: int = 3):
    engine = games.get(game)
    ref = Referee(engine, players, seed=seed)
    choose = chooser_for([make_bot("random", game, s) for s in range(players)])
    for _ in range(steps):
        if ref.step(choose) is None:
            break
        yield ref, engine


def test_the_banner_says_you_to_the_seat_it_waits_for():
    for game, players in (("sare", 2), ("nomads", 3)):
        said_you = False
        for ref, _ in _views(game, players, 200):
            for seat in range(players):
                svg = render.svg(game, ref.view(seat), [f"seat {s}" for s in range(players)])
                assert f"Waiting for ● seat {seat}" not in svg and f"Waiting for seat {seat} " not in svg
                said_you |= "Waiting for you" in svg
        assert said_you, game


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


def test_red_means_only_whose_turn_it_is():
    """Red marked a legal place, the seat to play and a Nomads price: now a legal place has its
    own colour (dashed) and a price a neutral frame."""
    import re

    from clients.render.common import STYLE

    assert re.search(r"\.legal \{[^}]*stroke: var\(--legal\)", STYLE) and "--legal:" in STYLE
    svg = render.svg("nomads", next(iter(_views("nomads", 3, 60)))[0].view(0), ["a", "b", "c"])
    price = re.search(r"\.pricecell \{[^}]*\}", svg).group(0)
    assert "--hi" not in price


def test_every_board_place_has_a_tooltip_and_a_name():
    """Each place (data-target) carries an SVG <title> and the same aria-label, in words."""
    import re

    for game, players in (("sare", 2), ("sabbat", 2), ("nomads", 3)):
        ref = None
        for ref, _ in _views(game, players, 40):
            pass
        svg = render.svg(game, ref.view(0), [f"seat {s}" for s in range(players)])
        places = re.findall(r'<(\w+) ([^>]*data-target="[^"]*"[^>]*)>(<title>([^<]*)</title>)?', svg)
        assert places, game
        for tag, attrs, _, title in places:
            label = re.search(r'aria-label="([^"]*)"', attrs)
            assert label and title and label.group(1) == title, (game, attrs)
        assert 'role="group"' in svg[:300]


def test_every_piece_has_a_tooltip_and_a_name():
    """Pieces too (Sabbat ghosts and magicians, Nomads nomads, Sa-Rê buildings) carry an SVG
    <title> and the same aria-label saying whose they are."""
    import re

    for game, players, piece in (("sabbat", 2, "ghost"), ("sabbat", 2, "magician"), ("nomads", 3, "nomad")):
        ref = None
        for ref, _ in _views(game, players, 40):
            pass
        svg = render.svg(game, ref.view(0), [f"seat {s}" for s in range(players)])
        pieces = re.findall(rf'<circle ([^>]*class="[^"]*\b{piece}\b[^"]*"[^>]*)>(<title>([^<]*)</title>)?', svg)
        assert pieces, (game, piece)
        for attrs, _, title in pieces:
            label = re.search(r'aria-label="([^"]*)"', attrs)
            assert label and title and label.group(1) == title and "seat" in title, (game, attrs)
