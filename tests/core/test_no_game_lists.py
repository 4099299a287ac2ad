"""Outside a game's own packages, the house finds games through the registries (protocol.games,
clients.games), never through their names, a list of them or a module-name convention (issue 37).

Checked on every .py file of the house and every .js file under clients/. A game's own files
are found through the registries too: its engine's package, its presentation module and the
modules that presentation names, its tests (tests/games/<game>/) and its benchmark
(tests/benchmarks/bench_<game>.py). ALLOWED, empty now, would list a file that still names a
game, with why."""

from __future__ import annotations

import ast
import importlib.util
import re
from pathlib import Path

from clients import games as presentations
from protocol import games

ROOT = Path(__file__).resolve().parents[2]
CONVENTIONS = ("clients.narrate.", "clients.render.", "clients.bots.", "protocol.games.")
"""Module paths that an f-string completed with a game's name (the old ways of finding a game)."""

ALLOWED: dict[str, str] = {}
"""Files outside a game that may still name one, each with why: none (a test picks its game by
capability, tests.games.pick, and takes a game's own options or words from its hooks)."""


def _registered() -> set[str]:
    found = set(games.entry_points(games.GROUP))
    assert found, "no caravan.games entry point: is the project installed?"
    return found


def _module_file(module: str) -> Path | None:
    spec = importlib.util.find_spec(module)
    return Path(spec.origin).resolve() if spec and spec.origin else None


def owned(names: set[str]) -> tuple[set[Path], set[Path]]:
    """(the folders, the files) that belong to the games called `names`, found through the
    registries: a game's files may name it."""
    folders: set[Path] = set()
    files: set[Path] = set()
    for game in names:
        engine_file = _module_file(type(games.get(game)).__module__)
        if engine_file is not None:
            folders.add(engine_file.parent if engine_file.parent != ROOT / "protocol" / "games" else engine_file)
        entry = presentations.REGISTRY.registered().get(game)
        if entry is not None:
            files.add(_module_file(entry.module))
            shown = presentations.get(game)
            files.update(_module_file(m) for part in ("narrate", "render", "bots", "sampler")
                         if (m := getattr(shown, part)) is not None)
        folders.add(ROOT / "tests" / "games" / game)
        files.add(ROOT / "tests" / "benchmarks" / f"bench_{game}.py")
    return folders, {f for f in files if f is not None}


def _imported(node: ast.AST) -> list[str]:
    """The module paths an import statement names (with `from x import y`: x.y too)."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    if isinstance(node, ast.ImportFrom) and node.module:
        return [node.module] + [f"{node.module}.{a.name}" for a in node.names]
    return []


def naming(path: Path, names: set[str]) -> list[str]:
    """What in the Python file `path` names a game: a string that is a game's name, an f-string
    that builds a game's module path, an import of a game's module."""
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in names:
            out.append(f"line {node.lineno}: {node.value!r}")
        elif isinstance(node, ast.JoinedStr):
            head = node.values[0] if node.values else None
            if (isinstance(head, ast.Constant) and isinstance(head.value, str)
                    and head.value.startswith(CONVENTIONS) and len(node.values) > 1):
                out.append(f"line {node.lineno}: f{head.value!r}...")
        game_modules = [m for m in _imported(node) if set(m.split(".")) & names
                        or any(m.split(".")[-1] == f"sample_{n}" for n in names)]
        if game_modules:
            out.append(f"line {node.lineno}: import {game_modules[0]}")
    return out


def naming_js(path: Path, names: set[str]) -> list[str]:
    """What in the JavaScript file `path` names a game: a string literal or an object key."""
    alternatives = "|".join(re.escape(n) for n in sorted(names))
    pattern = re.compile(rf"""(["'`])(?:{alternatives})\1|(?<![\w.$])(?:{alternatives})\s*:""")
    return [f"line {n}: {m.group(0)}" for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
            for m in pattern.finditer(line)]


def house_files() -> list[Path]:
    """Every .py file of the house and every .js file under clients/ (not a dependency's)."""
    skip = {".venv", "node_modules", "build", "dist", ".git", "__pycache__"}
    found = [p for p in ROOT.rglob("*.py") if not skip & set(p.relative_to(ROOT).parts)]
    found += [p for p in (ROOT / "clients").rglob("*.js") if not skip & set(p.relative_to(ROOT).parts)]
    return sorted(found)


def _outside(names: set[str]) -> list[Path]:
    folders, files = owned(names)
    return [p for p in house_files()
            if p not in files and not any(p.is_relative_to(f) for f in folders)]


def _found(path: Path, names: set[str]) -> list[str]:
    return naming_js(path, names) if path.suffix == ".js" else naming(path, names)


def test_no_file_outside_a_game_names_a_game():
    names = _registered()
    found = {str(p.relative_to(ROOT)): hits for p in _outside(names)
             if str(p.relative_to(ROOT)) not in ALLOWED and (hits := _found(p, names))}
    assert found == {}, "these files name a game (find it through the registry instead): " + repr(found)


def test_the_allow_list_only_shrinks():
    """Every allowed file exists and still names a game (a cleaned file leaves the list)."""
    names = _registered()
    stale = [path for path in ALLOWED if not (ROOT / path).exists() or not _found(ROOT / path, names)]
    assert stale == [], f"clean now or gone: remove from ALLOWED: {stale}"


def test_a_game_owns_its_packages_and_nothing_else():
    names = _registered()
    folders, files = owned(names)
    for game in names:
        assert ROOT / "tests" / "games" / game in folders
        assert Path(importlib.util.find_spec(type(games.get(game)).__module__).origin).parent in folders
    outside = {str(p.relative_to(ROOT)) for p in _outside(names)}
    assert {"clients/narrate/__init__.py", "clients/web/app.js", "tests/games/conformance.py",
            "protocol/engine.py", "node/cli/demo.py"} <= outside


def test_the_check_finds_a_named_game(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text('GAMES = ["zork"]\nmod = f"clients.render.{game}"\n"""a docstring naming zork"""\n'
                   'from clients.narrate import zork as N\nimport protocol.games.zork.data\n')
    assert sorted(naming(bad, {"zork"})) == ["line 1: 'zork'", "line 2: f'clients.render.'...",
                                            "line 4: import clients.narrate.zork", "line 5: import protocol.games.zork.data"]
    js = tmp_path / "bad.js"
    js.write_text('const RULES = { zork: [] };\nif (game === "zork") x();\n// zork in a comment\nobj.zork = 1;\n')
    assert naming_js(js, {"zork"}) == ["line 1: zork:", 'line 2: "zork"']


def test_the_check_finds_a_name_planted_in_a_house_file(tmp_path, monkeypatch):
    planted = tmp_path / "clients" / "planted.py"
    planted.parent.mkdir()
    planted.write_text('DEFAULT = "chess"\n')
    monkeypatch.setattr(f"{__name__}.ROOT", tmp_path)
    names = {"chess"}
    monkeypatch.setattr(f"{__name__}.owned", lambda names: (set(), set()))
    assert [p.name for p in _outside(names) if _found(p, names)] == ["planted.py"]
