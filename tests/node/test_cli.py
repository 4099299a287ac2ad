"""The command line: help, simulate, and a whole demo in separate processes."""

import subprocess
import sys

from node.cli.main import main
from protocol.verify import verify_bytes
from protocol import games
from tests.games.pick import installed, option_args, quick
from tests.helpers import communicate, timeout, wait_exit
from tests.node.procs import ROOT, env


def test_help_and_usage_errors(capsys):
    assert main(["--help"]) == 0
    assert "verify" in capsys.readouterr().out
    assert main(["host", "fixture", "--players", "3"]) == 2          # no way to decide chosen
    assert "choose exactly one way" in capsys.readouterr().err
    assert main(["host", "nosuchgame", "--players", "3", "--bot", "random"]) == 2


def test_simulate_prints_rates_and_wins(capsys):
    assert main(["simulate", "fixture", "--players", "3", "--games", "20", "--seed", "2", "-q"]) == 0
    out = capsys.readouterr().out
    assert "20 games of fixture with 3 players" in out and "decisions/s" in out
    wins = [float(line.split()[1]) for line in out.splitlines() if line.startswith("  random#")]
    assert len(wins) == 3 and abs(sum(wins) - 20) < 1e-6
    assert main(["simulate", "fixture", "--players", "9", "--games", "1", "-q"]) == 2


def test_demo_plays_and_verifies(tmp_path):
    out = tmp_path / "demo.caravan"
    game, options = quick(2)
    r = subprocess.run([sys.executable, "-m", "node", "demo", game, "--players", "2", *option_args(options),
                        "--bot", "random", "--out", str(out)], capture_output=True, text=True, timeout=timeout(300), cwd=ROOT, env=env())
    assert r.returncode == 0, r.stderr[-2000:]
    assert "verifies" in r.stdout and "won by" in r.stdout
    assert verify_bytes(out.read_bytes()).ok


def test_a_person_plays_at_the_terminal(tmp_path):
    """--client terminal with --json: the board and numbered moves on stderr (stdout is for the
    JSON lines), the choice from stdin; answers that are not a listed number are asked again."""
    from tests.node.procs import node, read_until
    host = subprocess.Popen([sys.executable, "-m", "node", "host", "fixture", "--players", "2", "--client", "terminal",
                             "--no-discovery", "--bind", "127.0.0.1", "--json", "--data-dir", str(tmp_path / "h"),
                             "--out", str(tmp_path / "t.caravan")],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=env(), cwd=ROOT)
    try:
        port = read_until(host, "lobby")["port"]
        joiner = node(["join", f"127.0.0.1:{port}", "--bot", "random", "--bind", "127.0.0.1"], tmp_path / "j",
                      tmp_path / "j.log")
        out, err = communicate(host, 120, "the terminal host", "x\n99\n" + "1\n" * 300)
        assert wait_exit(joiner, 60, "the joiner") == 0
    finally:
        for p in (host,):
            if p.poll() is None:
                p.kill()
    assert host.returncode == 0, err[-2000:]
    assert "choose 1-" in err and "Your move" in err and "Your secret choice" in err
    assert "'x' is not a number" in err and "99 is not on the list" in err
    assert verify_bytes((tmp_path / "t.caravan").read_bytes()).ok


def test_options_lists_values_default_and_meaning(capsys, monkeypatch):
    """Defaults from the engine (for the players asked); values and meaning from the `options`
    module beside the game's engine (OPTION_HELP), "(no description)" for a key it does not
    describe or when it is missing."""
    import json
    import types
    game = next(g for g in installed() if len(games.get(g).default_options(games.get(g).min_players)) >= 2)
    engine = games.get(game)
    module = type(engine).__module__.rpartition(".")[0] + ".options"
    most = engine.max_players
    described, bare = sorted(engine.default_options(most))[:2]
    fake = types.ModuleType(module)
    fake.OPTION_HELP = {described: {"values": "this, that", "help": "what it changes"}}
    monkeypatch.setitem(sys.modules, module, fake)
    assert main(["options", game, "--players", str(most)]) == 0
    out = capsys.readouterr().out
    defaults = engine.default_options(most)
    assert f"{described} = {json.dumps(defaults[described])}  values: this, that\n      what it changes" in out
    assert f"{bare} = {json.dumps(defaults[bare])}\n      (no description)" in out
    assert main(["options", game, "--json"]) == 0
    rows = {r["key"]: r for r in map(json.loads, capsys.readouterr().out.splitlines())}
    assert rows[described]["help"] == "what it changes"
    assert rows[bare]["default"] == engine.default_options(engine.min_players)[bare]
    monkeypatch.delitem(sys.modules, module)
    assert main(["options", "fixture"]) == 0 and "rounds = 2\n      (no description)" in capsys.readouterr().out
