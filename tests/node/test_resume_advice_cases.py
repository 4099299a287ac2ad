"""`... can continue with: caravan resume` is given only where resuming can help (issue 34,
item 5e): not when the game's folder lacks its genesis or this seat's secrets (only a copy
or a backup brings them back), nor when the game is over."""

from __future__ import annotations

import random
import subprocess
import sys

from node.app.operations import resume_can_help
from node.storage.store import GameStore, StoreError, StoreWriteError
from protocol import genesis as G, transcript, wire
from tests.helpers import make_genesis, timeout as scaled
from tests.node.procs import ROOT, env

VECTOR = ROOT / "specs" / "vectors" / "fixture-2p.caravan"
ADVICE = "can continue with: caravan resume"


def _game(data_dir) -> GameStore:
    keys, secrets, genesis = make_genesis("fixture", {"rounds": 2}, 2, random.Random(1), beacon_length=64)
    data_dir.mkdir(parents=True)
    (data_dir / "identity.key").write_bytes(keys[0].seed())
    store = GameStore.create(data_dir, genesis.to_wire(), genesis.game_id,
                             {"secret": secrets[0], "committed": wire.encode([]), "seat": 0},
                             {"peers": {"1": ["127.0.0.1", 9]}, "port": 0})
    store.close()
    return store


def _resume_line(data_dir, game_id: str) -> str:
    r = subprocess.run([sys.executable, "-m", "node", "resume", game_id[:16], "--bot", "random", "--bind",
                        "127.0.0.1", "--data-dir", str(data_dir)], capture_output=True, text=True, env=env(),
                       cwd=ROOT, timeout=scaled(60))
    lines = [x for x in r.stderr.splitlines() if x.strip() and not x.startswith("resuming game")]
    assert r.returncode == 1 and "Traceback" not in r.stderr and len(lines) == 1, r.stderr
    return lines[0]


def test_a_missing_secret_or_genesis_gets_no_resume_advice(tmp_path):
    for name in ("secrets.bin", "genesis.bin"):
        store = _game(tmp_path / name)
        (store.dir / name).unlink()
        line = _resume_line(tmp_path / name, store.dir.name)
        assert name in line and "missing" in line, line
        assert ADVICE not in line, line


def test_an_error_resuming_can_fix_still_gets_the_advice(tmp_path):
    store = _game(tmp_path / "d")
    (store.dir / "peers.json").write_text("not json")
    line = _resume_line(tmp_path / "d", store.dir.name)
    assert "peers.json" in line and f"{ADVICE} {store.dir.name[:16]}" in line, line


def test_no_resume_advice_once_the_game_is_over(tmp_path):
    genesis_raw, _ = transcript.load(VECTOR.read_bytes())
    game_id = G.parse(genesis_raw).game_id
    store = GameStore.create(tmp_path, genesis_raw, game_id, {"secret": b"s" * 32}, {"peers": {}})
    store.close()
    error = StoreWriteError("cannot write web.json: No space left on device")
    assert resume_can_help(tmp_path, game_id.hex(), error)                  # playing: resume continues it
    (store.dir / "transcript.caravan").write_bytes(VECTOR.read_bytes())       # finished
    assert not resume_can_help(tmp_path, game_id.hex(), error)
    assert not resume_can_help(tmp_path, game_id.hex(), StoreError("x"))
