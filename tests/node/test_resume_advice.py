"""Resume errors advise `caravan resume` only where it can help, and a seat that comes back
after the others abandoned it is told so (issue 27, item 7)."""

from __future__ import annotations

import random
import signal
import subprocess
import sys
import time

from protocol import wire
from tests.helpers import make_genesis, timeout, wait_exit
from tests.node.procs import ROOT, env, node, read_until
from tests.node.stalls import collect, start
from node.storage.store import GameStore


def _resume(data_dir, game_id: str) -> list[str]:
    r = subprocess.run([sys.executable, "-m", "node", "resume", game_id[:16], "--bot", "random", "--bind",
                        "127.0.0.1", "--data-dir", str(data_dir)], capture_output=True, text=True, env=env(),
                       cwd=ROOT, timeout=timeout(60))
    assert r.returncode == 1 and "Traceback" not in r.stderr, r.stderr
    return [x for x in r.stderr.splitlines() if x.strip() and not x.startswith("resuming game")]


def _game(tmp_path, key_seat: int, secret_seat: int) -> str:
    """A stored 2-seat game whose identity.key is seat `key_seat`'s (or nobody's: -1) and whose
    secrets.bin holds seat `secret_seat`'s secret, stored as seat 0's."""
    keys, secrets, genesis = make_genesis("fixture", {"rounds": 2}, 2, random.Random(1), beacon_length=64)
    tmp_path.mkdir(parents=True, exist_ok=True)
    stranger = make_genesis("fixture", {"rounds": 2}, 1, random.Random(9))[0][0]
    (tmp_path / "identity.key").write_bytes((keys[key_seat] if key_seat >= 0 else stranger).seed())
    GameStore.create(tmp_path, genesis.to_wire(), genesis.game_id,
                     {"secret": secrets[secret_seat], "committed": wire.encode([]), "seat": 0},
                     {"peers": {"1": ["127.0.0.1", 9]}, "port": 0}).close()
    return genesis.game_id.hex()


def test_no_resume_advice_where_resuming_cannot_help(tmp_path):
    cases = {"no seat": (-1, 0, "holds no seat"), "wrong secret": (0, 1, "is not this seat's")}
    for name, (key_seat, secret_seat, says) in cases.items():
        game_id = _game(tmp_path / name.replace(" ", "-"), key_seat, secret_seat)
        lines = _resume(tmp_path / name.replace(" ", "-"), game_id)
        assert len(lines) == 1 and says in lines[0], (name, lines)
        assert "can continue with" not in lines[0], (name, lines)


def test_a_seat_resumed_after_the_others_abandoned_it_and_left_is_told(tmp_path):
    """Seat 2 is killed; the others abandon it and leave; seat 2 resumed later meets nobody:
    it ends saying it was probably abandoned (it cannot fetch the record: nobody is left),
    not merely with an unfinished transcript."""
    game = start(tmp_path, rounds=6, time_limit=2)
    try:
        read_until(game.procs[0], "event", count=4)
        game.procs[2].kill()
        wait_exit(game.procs[2], 10, "the killed seat 2")
        deadline = time.monotonic() + timeout(60)
        assert [collect(p, deadline)[0] for p in game.procs[:2]] == [1, 1], game.tails()   # abandoned it, left
        game.procs[2] = node(["resume", game.game_id[:16], *game.common[2]], game.dirs[2], game.logs[2])
        code, lines = collect(game.procs[2], time.monotonic() + timeout(60))
    finally:
        game.kill_all()
    assert code == 1, (code, game.tails())
    ends = [x for x in lines if x.get("type") in ("abandoned", "gave-up")]
    assert len(ends) == 1, (lines, game.tails())
    assert "the others have probably abandoned it" in ends[0]["text"], ends[0]["text"]
