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


def _module_name(path: Path) -> str:
    rel = path.relative_to(ROOT).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _local_imports(path: Path, modules: set[str]) -> set[str]:
    """The project modules `path` imports (top-level or inside a function; `from . import x`
    counts as importing x)."""
    me = _module_name(path)
    package = me if path.name == "__init__.py" else me.rpartition(".")[0]
    found = set()
    for n in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(n, ast.Import):
            found |= {a.name for a in n.names}
        elif isinstance(n, ast.ImportFrom):
            base = n.module or ""
            if n.level:
                anchor = package.split(".")
                anchor = anchor[:len(anchor) - (n.level - 1)]
                base = ".".join(anchor + ([base] if base else []))
            found.add(base)
            found |= {f"{base}.{a.name}" for a in n.names}
    return {m for m in found if m in modules and m != me}


def test_no_import_circles():
    """No module imports, through others, a module that imports it (an import inside a
    function is still an import): each package is a hierarchy that can be read bottom up."""
    paths = [p for pkg in ("protocol", "clients", "node") for p in (ROOT / pkg).rglob("*.py")]
    modules = {_module_name(p) for p in paths}
    graph = {_module_name(p): _local_imports(p, modules) for p in paths}
    graph = {m: {d for d in deps if not m.startswith(d + ".")} for m, deps in graph.items()}  # a package's own __init__
    circles = []
    state: dict[str, int] = {}

    def visit(m: str, stack: list[str]) -> None:
        state[m] = 1
        for d in sorted(graph.get(m, ())):
            if state.get(d) == 1:
                circles.append(stack[stack.index(d):] + [d])
            elif d not in state:
                visit(d, stack + [d])
        state[m] = 2

    for m in sorted(graph):
        if m not in state:
            visit(m, [m])
    assert circles == []


def test_no_module_imports_another_modules_private_names():
    """`from x import _name` reaches into another module's insides: what is shared is public."""
    bad = []
    for pkg in ("protocol", "clients", "node"):
        for p in (ROOT / pkg).rglob("*.py"):
            for n in ast.walk(ast.parse(p.read_text(), str(p))):
                if isinstance(n, ast.ImportFrom):
                    bad += [f"{p.relative_to(ROOT)}: {a.name}" for a in n.names
                            if a.name.startswith("_") and not a.name.startswith("__")]
    assert bad == []
