"""Writes in a game folder (and the data dir) never follow a symbolic link planted at the
name they write (issue 34, item 5b): the transcript's temporary file, chat.jsonl,
web.json's temporary file, home.json's. Each link points at a file outside, which must stay
untouched; the write still happens, or fails with a clear line."""

from __future__ import annotations

import logging
import os
from pathlib import Path

import trio

from node.app import chat as C
from node.pages import home, web
from node.storage.store import GameStore
from protocol import genesis as G, transcript
from protocol.identity import SigningKey
from tests.node.procs import ROOT

VECTOR = ROOT / "specs" / "vectors" / "fixture-2p.caravan"
PRECIOUS = b"the user's own file, outside the game folder\n"


def _bait(tmp_path: Path, at: Path) -> Path:
    """A file outside, and a link to it planted at `at`."""
    target = tmp_path / f"outside-{at.name}"
    target.write_bytes(PRECIOUS)
    os.symlink(target, at)
    return target


def test_the_transcript_is_not_written_through_a_link_at_its_temporary_name(tmp_path):
    genesis_raw, log = transcript.load(VECTOR.read_bytes())
    store = GameStore.create(tmp_path / "data", genesis_raw, G.parse(genesis_raw).game_id, {"secret": b"s" * 32},
                             {"peers": {}})
    store.close()
    target = _bait(tmp_path, store.dir / "transcript.caravan.tmp")
    path = store.write_transcript(genesis_raw, log)
    assert target.read_bytes() == PRECIOUS
    assert not path.is_symlink() and path.read_bytes() == VECTOR.read_bytes()
    # and a link planted at the transcript's own name is replaced, not written through
    target2 = tmp_path / "outside-2"
    target2.write_bytes(PRECIOUS)
    path.unlink()
    os.symlink(target2, path)
    store.write_transcript(genesis_raw, log)
    assert target2.read_bytes() == PRECIOUS and not path.is_symlink()


def test_web_and_home_settings_are_not_written_through_planted_links(tmp_path):
    game_dir = tmp_path / "game"
    game_dir.mkdir()
    targets = [_bait(tmp_path, game_dir / "web.json.tmp"), _bait(tmp_path, game_dir / "web.tmp")]
    web.save_settings(game_dir, {"port": 1234, "token": "secret-token"})
    assert web.load_settings(game_dir) == {"port": 1234, "token": "secret-token"}
    assert (game_dir / "web.json").stat().st_mode & 0o777 == 0o600
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    targets.append(_bait(tmp_path, data_dir / "home.json.tmp"))
    home.save_settings(data_dir, {"token": "t" * 20, "name": "Ann"})
    assert home.load_settings(data_dir)["name"] == "Ann"
    assert [t.read_bytes() for t in targets] == [PRECIOUS] * 3


def test_chat_is_not_appended_through_a_link(tmp_path, caplog):
    keys = [SigningKey.from_seed(bytes([i + 1]) * 32) for i in range(2)]
    target = _bait(tmp_path, tmp_path / C.FILE)
    chat = C.Chat(tmp_path, keys[0], b"g" * 32, [k.public for k in keys], ["Ann", "Bob"])
    assert list(chat.lines) == []
    with caplog.at_level(logging.WARNING, "caravan.chat"):
        line = trio.run(chat.say, "hello")
    assert line["text"] == "hello" and [x["text"] for x in chat.lines] == ["hello"]    # still shown
    assert target.read_bytes() == PRECIOUS
    assert any("could not keep a chat line" in r.getMessage() and C.FILE in r.getMessage()
               for r in caplog.records), caplog.records

