"""`--client terminal`: a person plays a whole game through a pseudo-terminal, reading only
what the terminal prints."""

from __future__ import annotations

import random
import re
import subprocess
import sys
from pathlib import Path

import pexpect
import pytest

from clients.terminal import menu, parse_choice
from protocol.verify import verify_bytes
from tests.games.pick import cli_options, installed, short_game
from tests.helpers import timeout as scaled
from tests.node.procs import ROOT, env

GAMES = [(game, players, cli_options(options)) for game in installed() for players, options in [short_game(game)]]


def test_menu_groups_long_lists_and_numbers_from_one():
    moves = [{"text": f"space {i}", "group": "Place Palace", "target": None} for i in range(10)]
    moves += [{"text": f"space {i}", "group": "Place Market", "target": None} for i in range(5)]
    moves.append({"text": "end the phase", "group": "Pass", "target": None})
    lines, choices = menu(moves)
    assert len(choices) == 3 and choices[0] == list(range(10)) and choices[2] == [15]
    assert "Place Palace" in lines[0] and "(10 options)" in lines[0] and "end the phase" in lines[2]
    lines, choices = menu(moves[10:])                      # few moves: one per line, under headings
    assert choices == [[i] for i in range(6)] and lines[0].strip() == "Place Market:"
    assert parse_choice("2\n", 3, False) == (2, "")
    assert parse_choice("0", 3, False)[0] is None and "1-3" in parse_choice("0", 3, False)[1]
    assert parse_choice("0", 3, True) == (0, "")
    assert "not a number" in parse_choice("x", 3, True)[1]


def _start(tmp_path: Path, game: str, players: int, options: list[str]):
    opts = sum((["-o", o] for o in options), [])
    term = pexpect.spawn(sys.executable, ["-m", "node", "host", game, "--players", str(players), "--client",
                                          "terminal", "--name", "Ann", "--no-discovery", "--bind", "127.0.0.1",
                                          "--time-limit", "0", "--data-dir", str(tmp_path / "seat0"), *opts],
                         cwd=str(ROOT), env=env(), encoding="utf-8", timeout=scaled(60), dimensions=(60, 120))
    term.expect(r"on port (\d+)")
    port = term.match.group(1)
    bots = [subprocess.Popen([sys.executable, "-m", "node", "join", f"127.0.0.1:{port}", "--bot", "random",
                              "--bind", "127.0.0.1", "--seed", str(i), "--data-dir", str(tmp_path / f"seat{i}"),
                              "--name", f"Bot{i}",
                              "-q"], cwd=ROOT, env=env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            for i in range(1, players)]
    return term, bots


@pytest.mark.parametrize("game,players,options", GAMES, ids=[g[0] for g in GAMES])
def test_a_whole_game_at_the_terminal(tmp_path: Path, game: str, players: int, options: list[str]):
    term, bots = _start(tmp_path, game, players, options)
    rng = random.Random(5)
    seen = []
    try:
        asked = 0
        for _ in range(3000):
            i = term.expect([r"choose (\d+)-(\d+): ", r"Game over: won by [^\r\n]*", pexpect.EOF], timeout=scaled(120))
            seen.append(term.before)
            if i != 0:
                seen.append(term.after if isinstance(term.after, str) else "")
                break
            low, high = int(term.match.group(1)), int(term.match.group(2))
            asked += 1
            if asked == 1:
                term.sendline("abc")                       # bad input: asked again, with the reason
                term.expect("not a number")
                term.expect(r"choose \d+-\d+: ")
            term.sendline(str(rng.randint(max(1, low), high)))
        else:
            pytest.fail("the game did not end")
        term.expect(pexpect.EOF, timeout=scaled(60))
        seen.append(term.before)
    finally:
        term.close(force=True)
        hung = []
        for b in bots:
            try:
                b.wait(timeout=scaled(30))
            except subprocess.TimeoutExpired:
                b.kill()
                hung.append(b.args)
    assert not hung, f"bots still running {scaled(30):g} s after the game: {hung}"
    out = "".join(seen)
    assert "Traceback" not in out
    assert asked > 0 and ("Your move" in out or "Your secret choice" in out)
    assert re.search(r"  • .+", out)                       # narration lines
    assert "Game over: won by" in out
    assert out.count("Game over: won by") == 1                              # the result, once, in words:
    assert "game over: won by seat" not in out and "scores [" not in out   # not again as a Python list
    assert "you are Ann, seat 0" in out                   # the player's chosen name
    assert re.search(r"Bot\d \(seat \d\)", out)           # and the others', from the lobby
    transcript = next((tmp_path / "seat0" / "games").glob("*/transcript.caravan"))
    assert verify_bytes(transcript.read_bytes()).ok
