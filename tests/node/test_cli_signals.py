"""Stopping a node: SIGINT or SIGTERM at a random moment of a game pauses it (exit 130, one
line saying how to continue, no traceback), `caravan games` shows where it stands, and
`caravan resume` finishes it with a transcript that verifies. In the lobby, a signal just
closes it. Loopback only, bots, short games, every wait bounded."""

import json
import random
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from protocol.verify import verify_bytes
from tests.games.pick import some_game
from tests.helpers import communicate, timeout, wait_exit
from tests.node.cli_spec import json_types
from tests.node.procs import ROOT, env, finish, node, read_until

COMMON = ["--bot", "random", "--bind", "127.0.0.1", "--bot-delay", "0.02"]


def _games(data_dir) -> list[dict]:
    r = subprocess.run([sys.executable, "-m", "node", "games", "--data-dir", str(data_dir), "--json"],
                       capture_output=True, text=True, timeout=timeout(60), env=env(), cwd=ROOT)
    assert r.returncode == 0, r.stderr
    return [json.loads(line) for line in r.stdout.splitlines()]


def _check_documented(lines: list[dict]) -> None:
    types = json_types()
    for m in lines:
        assert m["type"] in types, m
        assert not set(types[m["type"]]) - set(m), m


@pytest.mark.parametrize("moment", [0, None], ids=["right-after-genesis", "mid-game"])
def test_sigint_mid_game_pauses_and_resume_finishes(tmp_path, moment):
    """^C right after the genesis line (the host's game is stored by then: a one-core run got
    "lobby closed before the game started; nothing to resume"), or after 1-12 events."""
    if moment is None:
        moment = random.Random().randrange(1, 13)    # events seen before the signal
    how = signal.SIGINT                              # SIGTERM: test_a_signal_in_the_lobby_closes_it
    dirs = [tmp_path / f"n{i}" for i in range(3)]
    logs = [tmp_path / f"n{i}.log" for i in range(3)]
    host = node(["host", "fixture", "--players", "3", "-o", "rounds=8", "--no-discovery", *COMMON], dirs[0], logs[0])
    procs = [host]
    try:
        port = read_until(host, "lobby")["port"]
        for i in (1, 2):
            procs.append(node(["join", f"127.0.0.1:{port}", *COMMON, "--seed", str(i)], dirs[i], logs[i]))
        game_id = read_until(host, "genesis")["game_id"]
        if moment:
            read_until(host, "event", count=moment)
        host.send_signal(how)
        rest = host.stdout.read()
        assert wait_exit(host, 30, "the host after the signal") == 130, (moment, how, logs[0].read_text()[-2000:])
        err = logs[0].read_text()
        assert "Traceback" not in err, err
        pause = f"game {game_id[:16]} paused — continue with: caravan resume {game_id[:16]}"
        assert err.strip().splitlines()[-1] == pause, (moment, err[-1000:])
        paused = [json.loads(line) for line in rest.splitlines()]
        assert paused[-1]["type"] == "paused" and paused[-1]["game_id"] == game_id
        _check_documented(paused)

        listed = _games(dirs[0])
        assert [(g["game_id"], g["state"], g["my_seat"]) for g in listed] == [(game_id, "playing", 0)]
        assert listed[0]["transcript"] is None and "caravan resume" in listed[0]["detail"]

        resumed = node(["resume", game_id[:12], *COMMON, "--seed", "7"], dirs[0], logs[0])
        procs[0] = resumed
        codes = finish(procs, timeout=120)
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
    assert codes == [0, 0, 0], (moment, how, [log.read_text()[-2000:] for log in logs])
    transcript = dirs[0] / "games" / game_id / "transcript.caravan"
    assert verify_bytes(transcript.read_bytes()).ok
    listed = _games(dirs[0])
    assert [(g["state"], g["transcript"]) for g in listed] == [("finished", str(transcript))]
    assert listed[0]["result"]["winners"]


def test_a_signal_in_the_lobby_closes_it(tmp_path):
    host = node(["host", "fixture", "--players", "3", "--no-discovery", *COMMON], tmp_path / "h", tmp_path / "h.log")
    joiner = None
    try:
        port = read_until(host, "lobby")["port"]
        joiner = node(["join", f"127.0.0.1:{port}", *COMMON], tmp_path / "j", tmp_path / "j.log")
        read_until(joiner, "status")                         # "joined lobby ...; waiting for players"
        joiner.send_signal(signal.SIGTERM)
        assert wait_exit(joiner, 30, "the joiner after SIGTERM") == 130
        host.send_signal(signal.SIGINT)
        assert wait_exit(host, 30, "the host after SIGINT") == 130
    finally:
        for p in (host, joiner):
            if p is not None and p.poll() is None:
                p.kill()
    for name, line in (("h", "lobby closed before the game started; nothing to resume"),
                       ("j", "left before the game started; nothing to resume")):
        err = (tmp_path / f"{name}.log").read_text()
        assert "Traceback" not in err and err.strip().splitlines()[-1] == line, err
    assert not (tmp_path / "h" / "games").exists()


def test_end_of_input_at_the_terminal_pauses(tmp_path):
    """^D at the terminal prompt: the game is paused like ^C, not failed."""
    host = subprocess.Popen([sys.executable, "-m", "node", "host", "fixture", "--players", "2", "--client", "terminal",
                             "--no-discovery", "--bind", "127.0.0.1", "--json", "--data-dir", str(tmp_path / "h")],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=env(), cwd=ROOT)
    joiner = None
    try:
        port = read_until(host, "lobby")["port"]
        joiner = node(["join", f"127.0.0.1:{port}", *COMMON], tmp_path / "j", tmp_path / "j.log")
        game_id = read_until(host, "genesis")["game_id"]
        out, err = communicate(host, 60, "the host after ^D", "")            # stdin closed at once: ^D
        joiner.send_signal(signal.SIGINT)
        assert wait_exit(joiner, 30, "the joiner after SIGINT") == 130
    finally:
        for p in (host, joiner):
            if p is not None and p.poll() is None:
                p.kill()
    assert host.returncode == 130, err[-2000:]
    assert "Traceback" not in err
    assert err.strip().splitlines()[-1] == f"game {game_id[:16]} paused — continue with: caravan resume {game_id[:16]}"


def test_sigint_on_demo_stops_every_node_and_cleans_up(tmp_path):
    """^C during `caravan demo`: one line, exit 130, no traceback, no node process left running
    and no working folder left behind (unless --keep). The bots think 0.2 s a decision, so the
    game cannot be over before the ^C however fast the machine (on one core it was, 2 runs of 2)."""
    demo = subprocess.Popen([sys.executable, "-m", "node", "demo", some_game(players=4), "--players", "4",
                             "--bot-delay", "0.2", "--out", str(tmp_path / "d.caravan")], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=env(), cwd=ROOT)
    try:
        said = []
        deadline = time.monotonic() + timeout(60)
        # until the first move is narrated ("  ..."): every node process is up and mid-game
        while not any(line.startswith("  ") for line in said):
            assert time.monotonic() < deadline, f"no move narrated within {timeout(60):g} s: {said}"
            said.append(demo.stderr.readline())
            assert said[-1], f"demo ended early: {said}"
        assert any("joining nodes" in line for line in said), said
        work = Path(re.search(r"working folder (\S+)\)", "".join(said)).group(1))
        assert work.is_dir()
        demo.send_signal(signal.SIGINT)
        out, err = communicate(demo, 30, "caravan demo after SIGINT")
    finally:
        if demo.poll() is None:
            demo.kill()
    assert demo.returncode == 130, err
    assert err.strip().splitlines()[-1] == "caravan demo: interrupted" and "Traceback" not in err, err
    left = subprocess.run(["pgrep", "-f", str(work)], capture_output=True, text=True)
    assert left.stdout.strip() == "", f"node processes still running: {left.stdout}"
    assert not work.exists()
