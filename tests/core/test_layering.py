"""The layering rule (protocol ← clients ← node): protocol imports neither clients nor node,
clients never import node; checked on every import statement, top-level or inside a function.
And the house reads bottom up: no import circle (an import inside a function counts), and no
module reaches into another's private names (`from x import _name`, `x._name`). Each check
also runs on a small planted tree, so that it is seen to catch what it looks for."""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("protocol", "clients", "node")


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


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def sources(root: Path, packages=PACKAGES) -> dict[str, Path]:
    """Every module of `packages` under `root`, by its dotted name."""
    return {module_name(p, root): p for pkg in packages for p in (root / pkg).rglob("*.py")}


def bindings(me: str, is_package: bool, tree: ast.AST, modules: set[str]) -> list[tuple[str | None, str]]:
    """(local name or None, project module) for every import in `tree`, top-level or inside a
    function; `from x import y` names the module x.y when there is one (else x, with None)."""
    package = me if is_package else me.rpartition(".")[0]
    found: list[tuple[str | None, str]] = []
    for n in ast.walk(tree):
        if isinstance(n, ast.Import):
            for a in n.names:
                found.append((a.asname, a.name) if a.asname else (a.name.split(".")[0], a.name.split(".")[0]))
                found.append((None, a.name))
        elif isinstance(n, ast.ImportFrom):
            base = n.module or ""
            if n.level:
                anchor = package.split(".")
                anchor = anchor[:len(anchor) - (n.level - 1)]
                base = ".".join(anchor + ([base] if base else []))
            found.append((None, base))
            for a in n.names:
                if f"{base}.{a.name}" in modules:
                    found.append((a.asname or a.name, f"{base}.{a.name}"))
    return [(name, m) for name, m in found if m in modules and m != me]


def import_graph(files: dict[str, Path]) -> dict[str, set[str]]:
    """Each module -> the project modules it imports (its own parent packages left out: a
    package's __init__ runs before its modules whoever imports them)."""
    graph = {}
    for m, p in files.items():
        deps = {d for _, d in bindings(m, p.name == "__init__.py", ast.parse(p.read_text(), str(p)), set(files))}
        graph[m] = {d for d in deps if not m.startswith(d + ".")}
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every import circle: each group of modules that import one another, through others
    (the strongly connected components of more than one module, or a module importing itself)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found = []

    def visit(m: str) -> None:
        index[m] = low[m] = len(index)
        stack.append(m)
        for d in sorted(graph.get(m, ())):
            if d not in index:
                visit(d)
                low[m] = min(low[m], low[d])
            elif d in stack:
                low[m] = min(low[m], index[d])
        if low[m] == index[m]:
            group = []
            while not group or group[-1] != m:
                group.append(stack.pop())
            if len(group) > 1 or m in graph.get(m, ()):
                found.append(sorted(group))

    for m in sorted(graph):
        if m not in index:
            visit(m)
    return sorted(found)


def private_uses(files: dict[str, Path]) -> list[str]:
    """Every use of another module's private name: `from x import _name`, or `x._name` where
    x is a project module imported under that name."""
    bad = []
    for m, p in files.items():
        tree = ast.parse(p.read_text(), str(p))
        modules = dict(bindings(m, p.name == "__init__.py", tree, set(files)))
        modules.pop(None, None)
        for n in ast.walk(tree):
            if isinstance(n, ast.ImportFrom):
                bad += [f"{m}: from {'.' * n.level}{n.module or ''} import {a.name}" for a in n.names if _private(a.name)]
            elif isinstance(n, ast.Attribute) and _private(n.attr):
                owner = _dotted(n.value, modules)
                if owner in files and owner != m:
                    bad.append(f"{m}: {owner}.{n.attr}")
    return sorted(bad)


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _dotted(node: ast.expr, modules: dict[str, str]) -> str | None:
    """The project module an expression like `mdns` or `node.mdns` names, if any."""
    if isinstance(node, ast.Name):
        return modules.get(node.id)
    if isinstance(node, ast.Attribute):
        owner = _dotted(node.value, modules)
        return f"{owner}.{node.attr}" if owner else None
    return None


def test_no_import_circles():
    """No module imports, through others, a module that imports it (an import inside a
    function is still an import): each package is a hierarchy that can be read bottom up."""
    assert circles(import_graph(sources(ROOT))) == []


def test_no_module_uses_another_modules_private_names():
    """`from x import _name` or `x._name` reaches into another module's insides: what is shared is public."""
    assert private_uses(sources(ROOT)) == []


def planted(tmp_path: Path, files: dict[str, str]) -> dict[str, Path]:
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return sources(tmp_path, ("pkg",))


def test_a_planted_circle_is_found_also_through_a_function_level_import(tmp_path):
    files = planted(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/a.py": "from . import b\n",
        "pkg/b.py": "import pkg.c as c\n",
        "pkg/c.py": "def later():\n    from .a import thing\n",        # a -> b -> c -> a
        "pkg/d.py": "from pkg import a, b\n",                          # imports the circle, not in it
        "pkg/sub/__init__.py": "from .e import x\n",
        "pkg/sub/e.py": "from .. import d\n"})
    assert circles(import_graph(files)) == [["pkg.a", "pkg.b", "pkg.c"]]
    files = planted(tmp_path, {"pkg/d.py": "from pkg import a, b\nfrom pkg.sub import e\n",
                               "pkg/sub/e.py": "def f():\n    from ..d import y\n"})
    assert circles(import_graph(files)) == [["pkg.a", "pkg.b", "pkg.c"], ["pkg.d", "pkg.sub", "pkg.sub.e"]]


def test_a_planted_private_use_is_found(tmp_path):
    files = planted(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/a.py": "_hidden = 1\nshown = _hidden\n",                  # its own: fine
        "pkg/b.py": "from .a import _hidden\n",
        "pkg/c.py": "from . import a\nimport pkg.a\nimport pkg.a as other\n"
                    "def f(obj):\n    return a._hidden, pkg.a._hidden, other._hidden, a.shown, obj._own, a.__name__\n"})
    assert private_uses(files) == ["pkg.b: from .a import _hidden", "pkg.c: pkg.a._hidden", "pkg.c: pkg.a._hidden",
                                   "pkg.c: pkg.a._hidden"]
