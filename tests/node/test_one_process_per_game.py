"""One process per game folder (issue 27, item 5): a second `caravan resume` on a data dir
whose game is running refuses in one line naming the other process; a killed node's lock
is taken over; a store never appends an own message after someone else wrote its log
(that would reuse a sequence number: an equivocation by an honest seat); a transcript is
never replaced by one that says less."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time

import pytest

from node.storage.store import GameLocked, GameStore, StoreWriteError
from node.storage.stored import stored_games
from protocol import games, wire
from protocol.verify import verify_bytes
from tests.fixture_game import ENGINE
from tests.helpers import make_genesis, new_table, play, timeout, wait_exit
from tests.node.procs import ROOT, env, read_until
from tests.node.stalls import resume_and_finish, start


def _resume(data_dir, game_id: str) -> subprocess.CompletedProcess:
    """`caravan resume` on another port (as through a relay, where no port is in the way)."""
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    try:
        return subprocess.run([sys.executable, "-m", "node", "resume", game_id[:16], "--bot", "random",
                               "--bind", "127.0.0.1", "--port", str(port), "--data-dir", str(data_dir)],
                              capture_output=True, text=True, env=env(), cwd=ROOT, timeout=timeout(30))
    except subprocess.TimeoutExpired as exc:
        raise AssertionError(f"a second process played on the same game: {exc.stderr}") from None


def test_a_second_process_on_a_running_game_refuses_and_a_killed_ones_lock_is_taken_over(tmp_path):
    game = start(tmp_path, rounds=8, time_limit=60, delays=[0.05] * 3)
    try:
        read_until(game.procs[0], "event", count=4)
        victim = game.procs[1]
        victim.send_signal(signal.SIGSTOP)            # stopped, not dead: it still holds the game
        second = _resume(game.dirs[1], game.game_id)
        lines = [x for x in second.stderr.splitlines() if x.strip() and not x.startswith("resuming game")]
        assert second.returncode == 1, second.stderr
        assert len(lines) == 1 and f"already running in process {victim.pid}" in lines[0], second.stderr
        assert "can continue with" not in lines[0]            # resuming is what was just refused
        assert "Traceback" not in second.stderr
        victim.send_signal(signal.SIGKILL)            # now it dies holding the lock: the OS drops it
        assert wait_exit(victim, 10, "the SIGKILLed node") == -signal.SIGKILL
        resume_and_finish(game, 1, game.common[1], timeout=90)
    finally:
        game.kill_all()


def _store(tmp_path) -> GameStore:
    keys, secrets, genesis = make_genesis("fixture", {"rounds": 2}, 2, random.Random(1), beacon_length=64)
    return GameStore.create(tmp_path, genesis.to_wire(), genesis.game_id,
                            {"secret": secrets[0], "committed": wire.encode([]), "seat": 0}, {"peers": {}})


def test_the_lock_belongs_to_one_process_and_goes_with_it(tmp_path):
    store = _store(tmp_path)
    holder = subprocess.Popen([sys.executable, "-c", "import sys, time; from pathlib import Path; "
                               "from node.storage.store import GameStore; "
                               f"s = GameStore(Path({str(tmp_path)!r}), bytes.fromhex({store.dir.name!r})); "
                               "s.lock(); print('locked', flush=True); "
                               f"time.sleep({timeout(60):g})"],       # holds the lock until killed below
                              stdout=subprocess.PIPE, text=True, cwd=ROOT, env=env())
    try:
        assert holder.stdout.readline().strip() == "locked"
        with pytest.raises(GameLocked, match=f"already running in process {holder.pid} "):
            store.lock()
        games.register(ENGINE)
        [listed] = stored_games(tmp_path)                  # caravan games says so, and no resume advice
        assert f"running in process {holder.pid}" in listed.detail and "resume" not in listed.detail
    finally:
        holder.kill()
        wait_exit(holder, 10, "the killed lock holder")
    assert "caravan resume" in stored_games(tmp_path)[0].detail
    store.lock()                                        # its holder died: taken over
    store.lock()                                        # and idempotent in this process
    store.close()


def test_no_own_message_after_another_writer_changed_the_log(tmp_path):
    """Two stores on one log (two processes, had the lock been bypassed): the second's next
    own message is refused, so no sequence number is signed and sent twice."""
    a, b = _store(tmp_path), _store(tmp_path)
    assert a.messages() == [] and b.messages() == []
    a.append(b"one", own=True)
    b.append(b"theirs")                                 # a received message: no check needed yet
    with pytest.raises(StoreWriteError, match="changed by another process"):
        b.append(b"mine", own=True)
    with pytest.raises(StoreWriteError, match="changed by another process"):
        a.append(b"two", own=True)
    a.close(), b.close()


def test_a_transcript_is_never_replaced_by_one_that_says_less(tmp_path):
    table = new_table(ENGINE, 2, seed=3)
    play(table, lambda seat, legal: legal[0])
    genesis, log = table.genesis.to_wire(), table.sessions[0].log
    store = _store(tmp_path)
    store.dir = tmp_path / "game"
    store.dir.mkdir()
    path = store.write_transcript(genesis, log[:10])
    store.write_transcript(genesis, log[:5])            # shorter and unfinished: kept the longer
    assert verify_bytes(path.read_bytes()).messages == 10
    store.write_transcript(genesis, log)                # the finished game replaces it
    assert verify_bytes(path.read_bytes()).ok
    store.write_transcript(genesis, log[:-1])           # a finished game is never replaced by less
    assert verify_bytes(path.read_bytes()).ok
