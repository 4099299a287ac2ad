"""What a game's presentation gives the house besides its modules: the game picked when none is
named (`caravan demo`), and the table page's bits (node/pages/web.py's games.js)."""

from __future__ import annotations

from clients import games as presentations


def test_the_game_picked_when_none_is_named_is_the_lowest_order_then_the_first_name(monkeypatch):
    monkeypatch.setattr(presentations.REGISTRY, "extra", {
        "zeta": presentations.Presentation(order=1), "beta": presentations.Presentation(order=5),
        "alpha": presentations.Presentation(order=5)})
    assert presentations.first(["beta", "alpha", "zeta"]) == "zeta"
    assert presentations.first(["beta", "alpha"]) == "alpha"
    assert presentations.first([]) is None


def test_a_game_without_a_presentation_has_empty_page_bits():
    bits = presentations.page("a game nobody registered")
    assert bits == {"rules": [], "labels": {}, "tie_break": None}
