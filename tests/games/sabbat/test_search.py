"""The search bot on Sabbat Magica: with a tiny budget it clearly beats random play."""

from __future__ import annotations

from clients.bot import chooser_for, make_bot
from protocol import games
from protocol.referee import Referee


def test_the_search_bot_beats_random_play():
    """Six 2-player Sabbat games, seats alternating, a tiny budget: it must win every one
    (a bot no better than random would do so once in 64 tries)."""
    engine = games.get("sabbat")
    wins = 0
    for g in range(6):
        seat = g % 2
        bots = [make_bot("random", "sabbat", 50 + g), make_bot("random", "sabbat", 60 + g)]
        bots[seat] = make_bot("search", "sabbat", g, iterations=10)
        result = Referee(engine, 2, seed=900 + g).play(chooser_for(bots))
        wins += result["winners"] == [seat]
    assert wins == 6
