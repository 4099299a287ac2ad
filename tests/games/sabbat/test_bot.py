"""The heuristic bot plays legal moves only, in both variants, and beats random bots."""

from __future__ import annotations

from clients.bot import chooser_for, make_bot
from clients.simulate import simulate
from protocol.games.sabbat import ENGINE
from protocol.referee import Referee


def test_heuristic_beats_random_in_4_player_games():
    stats = simulate("sabbat", 4, 12, ["heuristic", "random", "random", "random"], seed=5)
    assert stats.wins["heuristic#0"] >= 9, stats.wins


def test_heuristic_bots_finish_games_with_powers():
    for g, n in enumerate((2, 3, 4)):
        bots = [make_bot("heuristic", "sabbat", g * 10 + i) for i in range(n)]
        ref = Referee(ENGINE, n, {"powers": True, "peoples": [3, 2, 1, 0][:n], "leftovers": "keep"}, seed=g)
        result = ref.play(chooser_for(bots))
        assert result["winners"] and max(result["scores"]) > 0
