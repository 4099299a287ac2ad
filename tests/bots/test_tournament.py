"""`caravan tournament`: lineups and seat rotations, standings and ratings, JSON lines, and
external bots that crash or stall lose their game without stopping the tournament."""

from __future__ import annotations

import json
import sys
import textwrap
import time

import pytest

from clients import tournament as T
from node.cli.main import main
from protocol import games
from tests.games.pick import quick_game, some_game
from tests.helpers import timeout

GAME = quick_game(2)
"""The installed game quickest to play for 2 (the tests time tournaments, not a game's rules); its
heuristic bot must beat random play (as every game's should)."""


def test_every_entry_plays_every_seat_and_every_lineup():
    plan = T.schedule(3, 2, 12)
    assert {tuple(sorted(p)) for p in plan} == {(0, 1), (0, 2), (1, 2)}
    for e in range(3):
        assert {p.index(e) for p in plan if e in p} == {0, 1}
    assert T.schedule(4, 4, 4) == [[0, 1, 2, 3], [1, 2, 3, 0], [2, 3, 0, 1], [3, 0, 1, 2]]
    assert T.labels_for(T.fill(["search", "heuristic"], 4)) == ["search#1", "heuristic#1", "search#2",
                                                               "heuristic#2"]


def test_standings_split_shared_wins_and_rate_the_stronger_bot_higher():
    tour = T.run(GAME, 2, ["heuristic", "random"], 6, seed=1)
    by = {s.bot: s for s in tour.standings}
    assert by["heuristic"].games == by["random"].games == 6
    assert by["heuristic"].wins + by["random"].wins == pytest.approx(6)
    assert by["heuristic"].wins >= 5
    assert by["heuristic"].rating.mu > by["random"].rating.mu
    line = by["random"].line()
    assert set(line) == {"type", "bot", "games", "wins", "win_share", "mean_score", "rating", "rating_sigma"}
    assert line["win_share"] == pytest.approx(line["wins"] / 6, abs=1e-3)


def test_parallel_jobs_give_the_same_standings():
    game = some_game("heuristic", players=3)
    one = T.run(game, 3, ["random", "heuristic", "random"], 3, seed=2, jobs=1)
    two = T.run(game, 3, ["random", "heuristic", "random"], 3, seed=2, jobs=2)
    assert [s.line() for s in one.standings] == [s.line() for s in two.standings]


@pytest.fixture
def bot_scripts(tmp_path):
    good = tmp_path / "good.py"
    good.write_text("from clients.bot import RandomBot\nfrom clients.stdio_bot import run\nrun(RandomBot(1))\n")
    stall = tmp_path / "stall.py"
    stall.write_text(textwrap.dedent(f"""
        import sys, time
        for line in sys.stdin:
            if '"decide"' in line:
                time.sleep({timeout(30)!r})    # the stall is what is tested (see CONTRIBUTING)
    """))
    return {"good": f"cmd:{sys.executable} {good}", "stall": f"cmd:{sys.executable} {stall}"}


def test_an_external_bot_plays_and_one_that_crashes_loses_its_games(bot_scripts):
    tour = T.run(GAME, 2, [bot_scripts["good"], "cmd:false"], 2, seed=3)
    good, crash = tour.standings
    assert (good.games, good.wins, good.failures) == (2, 2, 0)
    assert (crash.games, crash.wins, crash.failures) == (2, 0, 2)


def test_a_bot_that_stalls_loses_its_games_after_the_timeout(bot_scripts):
    start = time.monotonic()
    tour = T.run(GAME, 2, [bot_scripts["good"], bot_scripts["stall"]], 2, seed=3, timeout=3.0)
    good, stall = tour.standings
    assert (good.wins, good.failures) == (2, 0)
    assert (stall.wins, stall.failures) == (0, 2)
    assert time.monotonic() - start < timeout(25)        # not the 30 s the stalling bot sleeps, twice


def test_the_command_prints_one_json_line_per_bot(capsys):
    assert main(["tournament", GAME, "--players", "2", "--bots", "heuristic,random", "--games", "2",
                 "--json"]) == 0
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [x["bot"] for x in lines] == ["heuristic", "random"]
    assert all(x["type"] == "standing" and x["games"] == 2 for x in lines)


@pytest.mark.parametrize("argv,message", [
    (["--bots", "random,nonsense"], "unknown bot 'nonsense'"),
    (["--bots", "random", "--games", "0"], "at least 1"),
    (["--bots", "random", "--players", "9"], f"{games.get(GAME).min_players}-{games.get(GAME).max_players} players, not 9"),
    (["--bots", "random", "-o", "nope=1"], "unknown option 'nope'"),
    (["--bots", "random", "-o", f"{next(iter(games.get(GAME).default_options(2)))}=maybe"], f"bad option for {GAME}"),
    (["--bots", "random", "--think", "0"], "more than 0"),
])
def test_bad_input_is_one_clear_line(capsys, argv, message):
    assert main(["tournament", GAME, *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and len(err.strip().splitlines()) == 1
