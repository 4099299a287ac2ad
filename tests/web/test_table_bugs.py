"""Small bugs of the table seen in a trial (issue 22), each pinned by a test that failed before
its fix; the page's own bugs are in test_table_page.py."""

from __future__ import annotations

import pytest

from clients import render
from clients.bot import chooser_for, make_bot
from protocol import games
from protocol.referee import Referee
from tests.games.conformance import hook
from tests.games.pick import games_with


def _views(game: str, players: int, steps: int, seed: int = 3):
    engine = games.get(game)
    ref = Referee(engine, players, seed=seed)
    choose = chooser_for([make_bot("random", game, s) for s in range(players)])
    for _ in range(steps):
        if ref.step(choose) is None:
            break
        yield ref, engine


RENDERED = [(game, games.get(game).min_players) for game in games_with("render")]
"""Every installed game with a board picture of its own, at its fewest players."""


@pytest.mark.parametrize("game,players", RENDERED)
def test_the_banner_says_you_to_the_seat_it_waits_for(game, players):
    """A picture with a "Waiting for" banner (Sa-Rê's, Nomads'; others have none) says "you"
    to the seat it waits for, never that seat's own name."""
    said_you = banner = False
    for ref, _ in _views(game, players, 200):
        for seat in range(players):
            svg = render.svg(game, ref.view(seat), [f"seat {s}" for s in range(players)])
            assert f"Waiting for ● seat {seat}" not in svg and f"Waiting for seat {seat} " not in svg
            said_you |= "Waiting for you" in svg
            banner |= "Waiting for" in svg
    assert said_you or not banner, game


def test_red_means_only_whose_turn_it_is():
    """Red marked a legal place and the seat to play: now a legal place has its own colour
    (dashed; a Nomads price's neutral frame is checked with Nomads)."""
    import re

    from clients.render.common import STYLE

    assert re.search(r"\.legal \{[^}]*stroke: var\(--legal\)", STYLE) and "--legal:" in STYLE


@pytest.mark.parametrize("game,players", RENDERED)
def test_every_board_place_has_a_tooltip_and_a_name(game, players):
    """Each place (data-target) carries an SVG <title> and the same aria-label, in words."""
    import re

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


@pytest.mark.parametrize("game,players,piece", [(game, players, piece) for game, players in RENDERED
                                                 for piece in hook(game, "PIECES", ())])
def test_every_piece_has_a_tooltip_and_a_name(game, players, piece):
    """Pieces too (each game's PIECES hook: e.g. Sabbat's ghosts and magicians, Nomads' nomads)
    carry an SVG <title> and the same aria-label saying whose they are."""
    import re

    ref = None
    for ref, _ in _views(game, players, 40):
        pass
    svg = render.svg(game, ref.view(0), [f"seat {s}" for s in range(players)])
    pieces = re.findall(rf'<circle ([^>]*class="[^"]*\b{piece}\b[^"]*"[^>]*)>(<title>([^<]*)</title>)?', svg)
    assert pieces, (game, piece)
    for attrs, _, title in pieces:
        label = re.search(r'aria-label="([^"]*)"', attrs)
        assert label and title and label.group(1) == title and "seat" in title, (game, attrs)
