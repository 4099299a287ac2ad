"""The game registry (protocol.games) and the presentation registry (clients.games): games are
found through the `caravan.games` / `caravan.presentations` entry points, read lazily and once,
and a broken entry point is a clear error naming it."""

from __future__ import annotations

import subprocess
import sys
from importlib.metadata import EntryPoint

import pytest

from clients import games as presentations
from protocol import games


def test_every_registered_game_loads_with_its_own_name():
    assert games.entry_points(games.GROUP), "no caravan.games entry point: is the project installed?"
    for name in games.names():
        assert games.get(name).name == name
        assert games.get(name) is games.get(name)              # loaded once


def test_every_presentation_belongs_to_a_registered_game_and_names_importable_modules():
    assert set(presentations.names()) <= set(games.names())
    for name in presentations.names():
        shown = presentations.get(name)
        for part in ("narrate", "render", "bots", "sampler"):
            if getattr(shown, part) is not None:
                assert shown.module(part) is not None


def test_a_game_without_a_presentation_gets_the_generic_one():
    assert presentations.get("no such game") is presentations.NONE
    assert presentations.module("no such game", "render") is None


def test_an_unknown_game_says_which_games_there_are():
    with pytest.raises(games.UnknownGame) as e:
        games.get("chess")
    assert "'chess'" in str(e.value) and all(n in str(e.value) for n in games.names())


def test_a_broken_entry_point_says_which_and_why(monkeypatch):
    entries = games.entry_points(games.GROUP)
    entries["broken"] = EntryPoint("broken", "no_such_package_here.rules:ENGINE", games.GROUP)
    entries["liar"] = EntryPoint("liar", "protocol.games.__init__:GROUP", games.GROUP)
    monkeypatch.setattr(games.REGISTRY, "entries", entries)
    assert "broken" in games.names()
    with pytest.raises(games.GameLoadError) as e:
        games.get("broken")
    assert "no_such_package_here.rules:ENGINE" in str(e.value) and "ModuleNotFoundError" in str(e.value)
    with pytest.raises(games.GameLoadError, match="not that game's engine"):
        games.get("liar")


def test_a_broken_presentation_entry_point_says_which(monkeypatch):
    entries = games.entry_points(presentations.GROUP)
    entries["liar"] = EntryPoint("liar", "protocol.games:GROUP", presentations.GROUP)
    monkeypatch.setattr(presentations.REGISTRY, "entries", entries)
    with pytest.raises(games.GameLoadError, match="not a Presentation"):
        presentations.get("liar")


def test_entry_points_are_read_only_when_a_game_is_looked_up():
    """importlib.metadata costs a process ~30 ms to import: importing the registries and building
    the CLI's parser (as every node process does) must not pay it; the first look-up does."""
    code = ("import sys; from protocol import games; from clients import games as p, narrate, render; "
            "from node.cli import main as cli; cli.build_parser(); "
            "a = 'importlib.metadata' in sys.modules; games.names(); "
            "print(a, 'importlib.metadata' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout.split() == ["False", "True"]
