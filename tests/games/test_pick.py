"""tests/games/pick.py: a test's "some game" is an installed one, picked by what it needs."""

from __future__ import annotations

import pytest

from protocol import games
from tests.fixture_game import ENGINE
from tests.games import pick


def test_a_game_registered_by_hand_is_never_picked():
    games.register(ENGINE)                  # as tests/node/conftest.py does for its nodes
    assert ENGINE.name in games.names() and ENGINE.name not in pick.installed()
    assert pick.quick_game(2) in pick.installed()


def test_a_picked_game_has_what_was_asked_and_seats_the_players():
    for game in pick.installed():
        for need in pick.capabilities(game):
            found = pick.some_game(need, players=games.get(game).min_players)
            assert need in pick.capabilities(found)
            assert games.get(found).min_players <= games.get(game).min_players <= games.get(found).max_players


def test_a_need_no_game_has_fails_naming_it():
    with pytest.raises(AssertionError, match="no installed game has teleport"):
        pick.some_game("teleport")


def test_covering_games_show_every_kind_of_step_and_none_is_spare():
    kinds = {"dice", "simultaneous", "commit", "deck", "show", "return"}      # the kinds of step (pick.py)
    everything = set().union(*(pick.capabilities(g) for g in pick.games_with(players=3))) & kinds
    picked = pick.covering(3)
    assert set().union(*(pick.capabilities(g) for g in picked)) & kinds == everything
    for spare in picked:                    # each picked game brings a kind the others lack
        assert set().union(*(pick.capabilities(g) for g in picked if g != spare)) & kinds != everything, spare



def test_the_game_with_the_fewest_decisions_asks_no_more_than_any_other():
    decisions = {g: pick.decisions(g, 3) for g in pick.games_with(players=3)}
    assert decisions[pick.fewest_decisions(3)] == min(decisions.values()) > 0, decisions
    others = sorted(g for g in decisions if g != pick.fewest_decisions(3))
    assert pick.fewest_decisions(3, among=others) in others
