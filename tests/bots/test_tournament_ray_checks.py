"""`caravan tournament --ray` does not trust what a worker returns (issue 34, item 5c): each
game's result comes with its record (every decision's move), and the driver plays the moves
again from the game's seed before counting it. A worker that lies about a result is named and
its game played again; one that keeps lying stops the tournament with that line. On the shared
Ray cluster of tests/bots/test_tournament_ray.py's kind (its own, in the same xdist group)."""

from __future__ import annotations

from pathlib import Path

import pytest

from clients import tournament as T, tournament_ray as TR
from tests.bots.test_tournament_ray import ray_cluster  # noqa: F401 - the module's cluster fixture
from tests.games.pick import quick_game

pytestmark = pytest.mark.xdist_group("ray")

GAME = quick_game(2)
ARGS = dict(game=GAME, players=2, entries=["random", "heuristic"], count=4, seed=5)


def _job(index: int = 1, entries=("random", "heuristic")) -> T.GameJob:
    return T.GameJob(GAME, 2, T.games.get(GAME).default_options(2), 5, index, [0, 1], list(entries),
                     1.0, 10)


def _turned(result: dict) -> dict:
    """The same game, its winner and scores turned around."""
    loser = [s for s in range(2) if s not in result["winners"]]
    return {**result, "winners": loser or [0], "scores": list(reversed(result["scores"]))}


def test_a_result_is_checked_against_its_own_moves():
    job = _job()
    honest = T.play_one(job)
    assert T.check_result(job, honest) is None
    assert "its moves give" in T.check_result(job, _turned(honest))
    assert "no record" in T.check_result(job, {k: v for k, v in honest.items() if k != "moves"})
    assert "more moves" in T.check_result(job, {**honest, "moves": honest["moves"] + [0]})
    assert "cannot fail" in T.check_result(job, {**honest, "moves": honest["moves"][:3], "winners": [0],
                                                 "scores": None, "failed": 1})
    assert "another lineup" in T.check_result(job, {**honest, "seats": [1, 0]})
    assert "not one of" in T.check_result(job, {**honest, "moves": [10**6] * len(honest["moves"])})
    assert T.check_result(job, None) == "it returned no game result"


def test_a_lying_worker_is_named_and_its_game_played_again(ray_cluster, monkeypatch, tmp_path):
    lied = tmp_path / "lied"
    play_one = T.play_one

    def liar(job):                       # pickled by value: runs in the Ray worker
        result = play_one(job)
        if job.index == 1 and not Path(lied).exists():
            Path(lied).write_text("once")
            loser = [s for s in range(2) if s not in result["winners"]]
            result = {**result, "winners": loser or [0], "scores": list(reversed(result["scores"]))}
        return result
    monkeypatch.setattr(T, "play_one", liar)        # what the tournament hands to play_all
    said = []
    on_ray = T.run(**ARGS, ray=ray_cluster.address, say=said.append)
    local = T.run(**ARGS, jobs=1)
    assert lied.exists()
    assert [s.line() for s in on_ray.standings] == [s.line() for s in local.standings]
    told = [text for text in said if "does not check" in text]
    assert len(told) == 1 and told[0].startswith("game 2: ") and "playing it again" in told[0], said


def test_a_worker_that_keeps_lying_stops_the_tournament_with_one_line(ray_cluster, monkeypatch):
    play_one = T.play_one

    def liar(job):
        result = play_one(job)
        return {k: v for k, v in result.items() if k != "moves"} if job.index == 0 else result
    monkeypatch.setattr(T, "play_one", liar)        # what the tournament hands to play_all
    with pytest.raises(TR.RayUnavailable, match=r"^game 1: the result its worker returned does not check "
                                                r"\(it holds no record of the game's moves\), 4 times; stopping$"):
        T.run(**ARGS, ray=ray_cluster.address)
