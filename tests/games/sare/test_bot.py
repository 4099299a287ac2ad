"""The heuristic bot breaks ties with its seeded random source (issue #15): four of them on identical
boards must not build the same buildings on the same spaces in the same order."""

from __future__ import annotations

from clients.bot import chooser_for, make_bot
from protocol.games.sare import ENGINE
from protocol.referee import Referee


def test_four_heuristic_bots_do_not_play_identical_games():
    ref = Referee(ENGINE, 4, {"scenario": "priest", "architect": False, "turn_limit": 3}, seed=1)
    bots = [make_bot("heuristic", "sare", 100 + i) for i in range(4)]
    moves: list[list] = [[] for _ in range(4)]
    base = chooser_for(bots)

    def choose(seat, legal, r):
        a = base(seat, legal, r)
        if isinstance(a, list) and a[0] in ("place", "project"):
            moves[seat].append(a)
        return a
    for _ in range(20_000):
        if ref.step(choose) is None:
            break
    assert all(moves)
    assert len({repr(m) for m in moves}) > 1, moves


def test_same_seed_same_game():
    def play():
        ref = Referee(ENGINE, 3, {"scenario": "priest", "architect": False, "turn_limit": 3}, seed=5)
        return ref.play(chooser_for([make_bot("heuristic", "sare", 7 + i) for i in range(3)]))
    assert play() == play()
