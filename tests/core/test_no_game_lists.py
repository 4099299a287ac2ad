"""Outside a game's own packages, the house finds games through the registries (protocol.games,
clients.games), never through a list of their names or a module-name convention (issue 37).
Checked on the files that were cleaned of such lists; the rest still name games (see the issue)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from protocol import games

ROOT = Path(__file__).resolve().parents[2]
CLEAN = ["protocol/games/__init__.py", "clients/games/__init__.py", "clients/rl.py", "clients/screenshots.py",
         "clients/bot.py", "clients/bots/heuristic.py", "clients/bots/sampling.py", "clients/bots/search.py",
         "clients/narrate/__init__.py", "clients/render/__init__.py",
         "tests/games/conformance.py", "tests/games/test_conformance.py", "tests/games/vectors_gen.py",
         "tests/games/vectors_coverage.py", "tests/games/test_option_kinds.py", "tests/games/option_battery.py",
         "node/cli_tools.py"]
CONVENTIONS = ("clients.narrate.", "clients.render.", "clients.bots.", "protocol.games.")
"""Module paths that an f-string completed with a game's name (the old ways of finding a game)."""


def _registered() -> set[str]:
    found = set(games.entry_points(games.GROUP))
    assert found, "no caravan.games entry point: is the project installed?"
    return found


def naming(path: Path, names: set[str]) -> list[str]:
    """The string literals in `path` that are a game's name, or that build a game's module path."""
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in names:
            out.append(f"line {node.lineno}: {node.value!r}")
        elif isinstance(node, ast.JoinedStr):
            head = node.values[0] if node.values else None
            if (isinstance(head, ast.Constant) and isinstance(head.value, str)
                    and head.value.startswith(CONVENTIONS) and len(node.values) > 1):
                out.append(f"line {node.lineno}: f{head.value!r}...")
    return out


@pytest.mark.parametrize("path", CLEAN)
def test_no_game_is_named_outside_its_packages(path):
    assert naming(ROOT / path, _registered()) == []


def test_the_check_finds_a_named_game(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text('GAMES = ["sare"]\nmod = f"clients.render.{game}"\n"""a docstring naming sare"""\n')
    assert sorted(naming(bad, {"sare"})) == ["line 1: 'sare'", "line 2: f'clients.render.'..."]
