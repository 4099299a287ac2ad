"""The store tells the truth (issue #10): a checked, fsync'd, checksummed log whose torn
tail is cut and whose damage elsewhere is named with its offset; a disk that fills during
a game stops the node in one line, and it resumes cleanly once space is back; damaged
genesis, secrets, identity or peers files give one line naming the file, no traceback."""

from __future__ import annotations

import errno
import os
import random
import shutil
import subprocess
import sys
import time

import pytest

from node.storage import store as S
from node.storage.store import GameStore, StoreError, StoreWriteError, parse_log
from protocol import message_log, wire
from tests.helpers import communicate, make_genesis, missing_system_package, timeout
from tests.node.procs import ROOT, env
from tests.node.stalls import collect, resume_and_finish, start


def _store(tmp_path, n_messages: int = 5) -> tuple[GameStore, list[bytes]]:
    keys, secrets, genesis = make_genesis("fixture", {"rounds": 2}, 2, random.Random(1), beacon_length=64)
    tmp_path.mkdir(parents=True, exist_ok=True)
    (tmp_path / "identity.key").write_bytes(keys[0].seed())
    store = GameStore.create(tmp_path, genesis.to_wire(), genesis.game_id,
                             {"secret": secrets[0], "committed": wire.encode([]), "seat": 0},
                             {"peers": {"1": ["127.0.0.1", 9]}, "port": 0})
    msgs = [bytes([i + 1]) * (20 + i) for i in range(n_messages)]
    for m in msgs:
        store.append(m)
    store.close()
    return store, msgs


def test_the_log_round_trips_and_a_torn_tail_is_cut(tmp_path):
    store, msgs = _store(tmp_path)
    path = store.dir / "messages.log"
    whole = path.read_bytes()
    assert store.messages() == msgs
    for cut in (1, 5, 9, 20):                          # a crash or a full disk mid-append
        path.write_bytes(whole[:-cut])
        assert store.messages() == msgs[:-1]
        assert path.read_bytes() == whole[:len(whole) - len(msgs[-1]) - 8]   # cut on disk too
    path.write_bytes(whole + b"\0" * 4096)            # a crash left zeros past the end
    assert store.messages() == msgs
    last = whole[:-1] + bytes([whole[-1] ^ 1])          # the last record fails its checksum: torn
    path.write_bytes(last)
    assert store.messages() == msgs[:-1]


def test_no_message_waits_for_the_disk(tmp_path, monkeypatch):
    """A message is written (the page cache: a killed process loses nothing) without an
    fsync (issue #25: an fsync before each own message was sent was most of a dependent
    step); `sync` — the node's worker thread — makes everything written before it durable
    with one fsync, and `close` syncs what is left; all of it loads back."""
    store, msgs = _store(tmp_path)
    synced: list[int] = []
    monkeypatch.setattr(S.os, "fsync", lambda fd: synced.append(fd))
    store.append(b"received-1")
    store.append(b"own", own=True)
    assert synced == []
    assert store.sync() and len(synced) == 1
    assert not store.sync() and len(synced) == 1, "nothing written since: no fsync"
    store.append(b"received-2")
    store.close()
    assert len(synced) == 2
    assert store.messages() == msgs + [b"received-1", b"own", b"received-2"]


def test_a_failed_fsync_is_a_failed_write(tmp_path, monkeypatch):
    """fsync failing (EIO) raises StoreWriteError, and the records stay due for the next sync."""
    store, msgs = _store(tmp_path)
    store.append(b"own", own=True)

    def broken(fd):
        raise OSError(errno.EIO, "Input/output error")
    monkeypatch.setattr(S.os, "fsync", broken)
    with pytest.raises(StoreWriteError, match="Input/output error.*caravan resume"):
        store.sync()
    monkeypatch.undo()
    assert store.sync()
    store.close()


def test_damage_in_the_middle_is_named_never_silently_dropped(tmp_path):
    store, msgs = _store(tmp_path)
    path = store.dir / "messages.log"
    data = bytearray(path.read_bytes())
    offset = len(message_log.MAGIC) + 8 + len(msgs[0])    # the second record
    data[offset + 9] ^= 0xFF
    path.write_bytes(bytes(data))
    with pytest.raises(StoreError, match=rf"messages.log is damaged at offset {offset} \(a record fails its checksum"):
        store.messages()
    assert path.read_bytes() == bytes(data), "a damaged log is never truncated"
    data = bytearray(path.read_bytes())
    data[offset:offset + 4] = (1 << 30).to_bytes(4, "big")        # an absurd length mid-file
    with pytest.raises(StoreError, match=f"offset {offset}"):
        parse_log(bytes(data), path)
    with pytest.raises(StoreError, match="not a Caravan message log"):
        parse_log(b"\x00\x00\x00\x05hello", path)


def test_a_failed_write_raises_and_leaves_a_log_that_loads(tmp_path, monkeypatch):
    store, msgs = _store(tmp_path)
    real_write = os.write
    calls = {"n": 0}

    def full_disk(fd, data):
        calls["n"] += 1
        if calls["n"] == 1:
            return real_write(fd, bytes(data)[:5])      # a short write, then the disk is full
        raise OSError(errno.ENOSPC, "No space left on device")
    monkeypatch.setattr(S.os, "write", full_disk)
    with pytest.raises(StoreWriteError, match="No space left on device.*caravan resume"):
        store.append(b"x" * 100)
    monkeypatch.setattr(S.os, "write", real_write)
    store.close()
    assert store.messages() == msgs                    # the torn part is cut on load
    store.append(b"y" * 10)
    assert store.messages() == msgs + [b"y" * 10]


def _resume(data_dir, game_id: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "node", "resume", game_id[:12], "--data-dir", str(data_dir),
                             "--bot", "random", "--bind", "127.0.0.1"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env(), cwd=ROOT)


def test_damaged_files_give_one_clear_line(tmp_path):
    """Each damaged file: exit 1 at once, one line naming the file and what to do."""
    cases = {
        "genesis.bin": lambda d: (d / "genesis.bin").write_bytes(b"\x93garbage"),
        "secrets.bin": lambda d: (d / "secrets.bin").write_bytes(b"\xc1"),
        "peers.json": lambda d: (d / "peers.json").write_text("{not json"),
        "identity.key": lambda d: (d.parent.parent / "identity.key").write_bytes(b"short"),
        "messages.log": None,
    }
    procs = {}
    for name, damage in cases.items():
        base = tmp_path / name
        store, msgs = _store(base)
        if damage is None:
            path = store.dir / "messages.log"
            data = bytearray(path.read_bytes())
            data[len(message_log.MAGIC) + 8 + 2] ^= 0xFF
            path.write_bytes(bytes(data))
        else:
            damage(store.dir)
        procs[name] = _resume(base, store.dir.name)
    for name, p in procs.items():
        out, err = communicate(p, 60, f"caravan resume on a damaged {name}")
        lines = [line for line in err.splitlines() if line.strip() and not line.startswith("resuming game")]
        assert p.returncode == 1, (name, p.returncode, err[-2000:])
        assert "Traceback" not in err and len(lines) == 1, (name, err[-2000:])
        assert lines[0].startswith("caravan resume: ") and name in lines[0], (name, lines[0])


@pytest.fixture
def small_disk(tmp_path):
    if shutil.which("mount") is None:
        missing_system_package("the mount command", "apt-get install mount to run the full-disk test")
    if os.geteuid() != 0:
        missing_system_package("root rights to mount a tmpfs", "run as root to mount the full-disk test's tmpfs")
    mnt = tmp_path / "small"
    mnt.mkdir()
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=28k", "tmpfs", str(mnt)], capture_output=True, text=True)
    if r.returncode != 0:
        missing_system_package(f"the right to mount a tmpfs ({r.stderr.strip()})",
                               "run as root (with mount rights) to mount the full-disk test's tmpfs")
    try:
        yield mnt
    finally:
        subprocess.run(["umount", "-l", str(mnt)], capture_output=True)


def test_the_disk_fills_during_a_game_then_space_comes_back(tmp_path, small_disk):
    """One node's data dir is a 28 KiB tmpfs: it stops signing when the disk is full, says so
    in one line, sends nothing half-written; once the tmpfs is grown, `caravan resume`
    finishes the game and every node ends with the identical verified transcript."""
    dirs = [tmp_path / "n0", small_disk / "n1", tmp_path / "n2"]
    game = start(tmp_path, rounds=10, time_limit=60, data_dirs=dirs)
    try:
        victim = next(i for i, d in enumerate(game.dirs) if d == small_disk / "n1")
        code, lines = collect(game.procs[victim], time.monotonic() + timeout(90))
        assert code == 1, (code, game.tails())
        failed = [x for x in lines if x.get("type") == "store-failed"]
        assert failed and "No space left on device" in failed[0]["text"], (lines, game.tails())
        assert "Traceback" not in game.logs[victim].read_text()
        r = subprocess.run(["mount", "-o", "remount,size=4m", str(small_disk)], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        resume_and_finish(game, victim, game.common[victim], timeout=90)
    finally:
        game.kill_all()
