"""`caravan rematch ID`: the same game, options and seats again with a fresh genesis; the bots
seated with the person are seated again; and `caravan forget ID` keeps the folder in the trash."""

from __future__ import annotations

import json
import subprocess
import sys

from protocol import genesis as G
from protocol.verify import verify_bytes
from tests.helpers import timeout as scaled
from tests.node.procs import ROOT, env, finish, read_until
from tests.node.test_resume_memory import _caravan


def test_rematch_plays_the_same_game_again_with_the_bots(tmp_path):
    first = _caravan(["host", "fixture", "--players", "3", "-o", "rounds=3", "--bot", "random",
                      "--with-bots", "random,random", "--no-discovery", "--bind", "127.0.0.1", "--json",
                      "--pace", "turn-based", "--move-time", "2h"], tmp_path)       # the pace is played again too
    old_id = read_until(first, "genesis", timeout=60)["game_id"]
    assert finish([first], timeout=120) == [0]
    again = _caravan(["rematch", old_id[:16], "--no-discovery", "--json"], tmp_path)
    line = read_until(again, "rematch", timeout=60)
    assert line["game_id"] == old_id and "random, random" in line["text"]
    new_id = read_until(again, "genesis", timeout=60)["game_id"]
    assert finish([again], timeout=120) == [0]
    assert new_id != old_id
    games = tmp_path / "caravan" / "games"
    old, new = (G.parse((games / g / "genesis.bin").read_bytes()) for g in (old_id, new_id))
    assert (new.game, new.options, len(new.seats), new.time_limit) == (old.game, old.options, 3, old.time_limit)
    assert new.pace == old.pace == G.TURN_BASED and new.time_limit == 7200
    assert new.seats != old.seats or new.beacon_tips != old.beacon_tips                   # a fresh genesis
    for g in (old_id, new_id):
        assert verify_bytes((games / g / "transcript.caravan").read_bytes()).ok

    e = env()
    e["XDG_DATA_HOME"] = str(tmp_path)
    out = subprocess.run([sys.executable, "-m", "node", "forget", old_id[:12], "--json"], capture_output=True,
                         text=True, env=e, cwd=ROOT, timeout=scaled(60))
    assert out.returncode == 0, out.stderr
    moved = json.loads(out.stdout)
    assert moved["type"] == "forgotten" and (tmp_path / "caravan" / "trash" / old_id / "transcript.caravan").exists()
    assert not (games / old_id).exists()
    out = subprocess.run([sys.executable, "-m", "node", "forget", old_id[:12]], capture_output=True, text=True,
                         env=e, cwd=ROOT, timeout=scaled(60))
    assert out.returncode == 2 and len(out.stderr.strip().splitlines()) == 1


def test_a_friend_declines_play_again_and_the_host_lobby_names_her(tmp_path):
    """`caravan rematch ID --decline` on the friend's machine: the host's new lobby says who
    declined (by her name and key), and the friend's node ends at once with a `declined` line."""
    ada, bea = tmp_path / "ada", tmp_path / "bea"
    ada.mkdir()
    bea.mkdir()
    host = _caravan(["host", "fixture", "--players", "2", "-o", "rounds=1", "--bot", "random", "--no-discovery",
                     "--bind", "127.0.0.1", "--name", "Ada", "--json"], ada)
    port = read_until(host, "lobby", timeout=60)["port"]
    friend = _caravan(["join", f"127.0.0.1:{port}", "--bot", "random", "--bind", "127.0.0.1", "--name", "Bea",
                       "--json"], bea)
    game_id = read_until(host, "genesis", timeout=60)["game_id"]
    assert finish([host, friend], timeout=120) == [0, 0]

    again = _caravan(["rematch", game_id[:16], "--no-discovery", "--json"], ada)
    read_until(again, "lobby", timeout=60)
    no = _caravan(["rematch", game_id[:16], "--decline", "--json"], bea)
    assert read_until(no, "declined", timeout=60)["game_id"] == game_id
    assert finish([no], timeout=30) == [0]
    for _ in range(20):                                  # each read is bounded by its own timeout
        text = read_until(again, "status", timeout=30)["text"]
        if "declined" in text:
            break
    assert text.startswith("Bea (key ") and "declined to play again" in text, text
    again.terminate()
    finish([again], timeout=30)
