"""An action's words have one source, the game's narration `moves` (issue 37, item 4): the
engines give none, a tournament's external bot reads the move list's words, and an action the
game's narration cannot tell is told in them."""

from __future__ import annotations

import random
from types import SimpleNamespace
from typing import Any

from clients import games as presentations
from clients import narrate
from clients import tournament as T
from protocol import games


def _narrated_game() -> str:
    """A registered game with its own narration (whichever the registry lists first)."""
    return next(g for g in presentations.names() if g in games.names() and presentations.get(g).narrate)


def test_no_engine_has_words_of_its_own():
    for game in games.names():
        assert not hasattr(games.get(game), "describe"), f"{game}'s engine words its actions itself"


def test_a_tournament_bot_reads_the_words_of_the_move_list(monkeypatch):
    game, seen = _narrated_game(), []

    class Recording(T.Bot):
        """Stands for an external program: records what it is given, picks at random."""

        def __init__(self, command: str, game: str, seat: int, *rest: Any):
            super().__init__(seat)
            self.seat, self.rng, self.to_json = seat, random.Random(seat), lambda value: value

        def choose_kind(self, view: Any, legal: list[Any], kind: str, texts: list[str]) -> Any:
            seen.append((view, legal, self.seat, texts))
            return self.rng.choice(legal)

        def close(self, result: Any = None) -> None:
            pass

    monkeypatch.setattr(T, "ExternalBot", Recording)
    engine = games.get(game)
    job = T.GameJob(game, engine.min_players, {}, seed=1, index=0, seats=[0] + [1] * (engine.min_players - 1),
                    entries=["cmd:recorded", "random"], think=0.1, iterations=None)
    T.play_one(job)
    assert seen
    for view, legal, seat, texts in seen[:50]:
        assert texts == [m["text"] for m in narrate.moves(game, view, legal, seat)]


def test_an_action_the_narration_cannot_tell_is_told_in_its_move_words(monkeypatch):
    silent = SimpleNamespace(narrate=lambda *args: None,
                             moves=lambda view, legal, seat: [{"text": f"pick {a} as seat {seat}", "group": "g",
                                                               "target": None} for a in legal])
    monkeypatch.setattr(narrate, "_module", lambda game: silent)
    event = {"kind": "act", "seat": 1, "action": ["x", 2]}
    assert narrate.narrate("any", event, {}, {}, ["Ann", "Bea"]) == ["Bea (seat 1): pick ['x', 2] as seat 1"]
    assert narrate.words("any", {}, ["x", 2], 1) == "pick ['x', 2] as seat 1"
