"""The layering rule (protocol ← clients ← node): protocol imports neither clients nor node,
clients never import node; checked on every import statement, top-level or inside a function."""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def imported(path: Path) -> set[str]:
    names = set()
    for n in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(n, ast.Import):
            names |= {a.name.split(".")[0] for a in n.names}
        elif isinstance(n, ast.ImportFrom) and n.level == 0 and n.module:
            names.add(n.module.split(".")[0])
    return names


@pytest.mark.parametrize("package,forbidden", [("protocol", {"clients", "node"}), ("clients", {"node"})])
def test_lower_layers_never_import_higher_ones(package, forbidden):
    bad = {str(p.relative_to(ROOT)): sorted(imported(p) & forbidden) for p in (ROOT / package).rglob("*.py")}
    assert {p: names for p, names in bad.items() if names} == {}
