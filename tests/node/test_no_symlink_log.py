"""A game folder's `lock` and `messages.log` are never opened through a symbolic link planted
there (issue 34, item 5b): the lock would truncate the link's target and write a process id
into it, the log would append messages to it. The node stops with a line naming the file."""

from __future__ import annotations

import os
import random

import pytest

from node.storage.store import GameStore, StoreError
from protocol import wire
from tests.helpers import make_genesis

PRECIOUS = b"the user's own file, outside the game folder\n"


def _store(tmp_path) -> tuple[GameStore, bytes]:
    keys, secrets, genesis = make_genesis("fixture", {"rounds": 2}, 2, random.Random(1), beacon_length=64)
    store = GameStore.create(tmp_path / "data", genesis.to_wire(), genesis.game_id,
                             {"secret": secrets[0], "committed": wire.encode([]), "seat": 0}, {"peers": {}})
    store.close()
    return store, genesis.game_id


@pytest.mark.parametrize("name", ["lock", "messages.log"])
def test_no_open_follows_a_link_planted_in_the_game_folder(tmp_path, name):
    store, game_id = _store(tmp_path)
    target = tmp_path / "outside"
    target.write_bytes(PRECIOUS)
    (store.dir / name).unlink(missing_ok=True)
    os.symlink(target, store.dir / name)
    again = GameStore(tmp_path / "data", game_id)
    with pytest.raises((StoreError, OSError)) as failed:
        again.lock()
        again.append(b"\x01" * 40)
    assert name in str(failed.value), failed.value
    assert target.read_bytes() == PRECIOUS


def test_a_link_at_the_log_is_named_as_the_cause_not_a_full_disk(tmp_path):
    store, game_id = _store(tmp_path)
    target = tmp_path / "outside"
    target.write_bytes(PRECIOUS)
    (store.dir / "messages.log").unlink(missing_ok=True)
    os.symlink(target, store.dir / "messages.log")
    again = GameStore(tmp_path / "data", game_id)
    again.lock()
    with pytest.raises(StoreError) as failed:
        again.append(b"\x01" * 40)
    assert "remove the link at" in str(failed.value) and "free some space" not in str(failed.value), failed.value
