"""`caravan app --background` (issue 33): with no page open, the home continues its person's
turn-based games at once, its node takes the steps it needs no person for (the deck's shuffle
and decryption shares) so the friend's game goes on, and a desktop notification
(freedesktop's notify-send) says when a decision waits for its person. `--install-autostart`
writes the login entries that start it."""

from __future__ import annotations

import os
import random
import socket
from pathlib import Path

from node.pages import autostart
from node.storage.store import GameStore, write_private
from protocol import chain, genesis as G, wire
from tests.fixture_deck_game import ENGINE
from tests.helpers import make_genesis, wait_until
from tests.node.procs import finish, log_tail, node, read_until

ENGINES = "CARAVAN_ENGINES=tests.fixture_game,tests.fixture_deck_game"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _stored_table(dirs: list[Path]) -> G.Genesis:
    """A 2-seat turn-based Temple draw (a deck: shuffles, shares), stored for each seat as a
    lobby leaves it (its key, the genesis, the other's address), before any message."""
    keys, secrets, genesis = make_genesis(ENGINE.name, ENGINE.default_options(2), 2, random.Random(4),
                                          time_limit=3600, pace=G.TURN_BASED)
    ports = [_free_port() for _ in dirs]
    for i, d in enumerate(dirs):
        d.mkdir(parents=True)
        write_private(d / "identity.key", keys[i].seed())
        peers = {"peers": {str(1 - i): ["127.0.0.1", ports[1 - i]]}, "port": ports[i], "names": {"0": "Ann", "1": "Bea"}}
        GameStore.create(d, genesis.to_wire(), genesis.game_id, {"secret": secrets[i], "committed": wire.encode([])},
                         peers).close()
    return genesis


def test_the_background_home_answers_for_its_turn_based_game_and_says_when_it_is_your_move(tmp_path: Path):
    mine, bea = tmp_path / "ann", tmp_path / "bea"
    genesis = _stored_table([mine, bea])
    bin_dir, told = tmp_path / "bin", tmp_path / "notified.txt"
    bin_dir.mkdir()
    (bin_dir / "notify-send").write_text(f'#!/bin/sh\necho "$@" >> {told}\n')
    (bin_dir / "notify-send").chmod(0o755)
    path = f"PATH={bin_dir}{os.pathsep}{os.environ['PATH']}"
    home = node(["app", "--background", "--bind", "127.0.0.1", "--discovery-addr", "127.0.0.1",
                 "--discovery-bind", "127.0.0.1"], mine, tmp_path / "ann.log", prefix=["env", ENGINES, path])
    friend = None
    try:
        assert read_until(home, "background", timeout=60)["games"] == [ENGINE.title]
        friend = node(["resume", genesis.game_id.hex(), "--bot", "random", "--bind", "127.0.0.1"], bea,
                      tmp_path / "bea.log", prefix=["env", ENGINES])
        line = wait_until(lambda: told.exists() and told.read_text(), 120, "the desktop notification")
        assert line.startswith(f"--app-name=Caravan Your move: {ENGINE.title} "), line
        assert "http://127.0.0.1:" in line, "it says where the table's page is"
        # Bea's node holds what Ann's node did by itself, with no page open: the shuffle and
        # the shares the game needed before Ann's first decision
        kinds = [chain.parse(raw).kind for raw in GameStore(bea, genesis.game_id).messages(repair=False)
                 if chain.parse(raw).author == genesis.seats[0]]
        assert "shuffle" in kinds and "share" in kinds, kinds
    finally:
        for proc in (home, friend):
            if proc is not None and proc.poll() is None:
                proc.terminate()
        codes = finish([p for p in (home, friend) if p is not None])
    assert codes[0] in (0, 130), f"the home stopped cleanly{log_tail(home)}"


def test_install_autostart_writes_the_login_entry_and_the_user_unit(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    entry, unit = autostart.install(tmp_path / "my games")
    assert entry == tmp_path / "config" / "autostart" / "caravan.desktop"
    assert unit == tmp_path / "config" / "systemd" / "user" / "caravan.service"
    line = f'-m node app --background --data-dir "{tmp_path / "my games"}"'
    assert f"Exec={autostart.command(None)[0]} {line}\n" in entry.read_text()
    assert f"ExecStart={autostart.command(None)[0]} {line}\n" in unit.read_text()
    assert "WantedBy=default.target" in unit.read_text()
    assert autostart.install(tmp_path / "my games") == [entry, unit], "a second install rewrites the same files"
