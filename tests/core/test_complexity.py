"""No function in the engines (protocol/games, with their helpers) has a cyclomatic complexity
over 30, measured with radon (issue #37): dispatchers go through tables of per-phase methods
instead. `radon cc -s -n C protocol/games` lists the highest; CONTRIBUTING prints the top 10."""

from pathlib import Path

from radon.complexity import cc_visit
from radon.visitors import Function

ROOT = Path(__file__).resolve().parents[2]
LIMIT = 30


def _functions(blocks: list) -> list[Function]:
    """Every function and method radon found (cc_visit lists the methods besides their class),
    with the functions nested in them; a class's own score, the mean of its methods, is left out."""
    out = []
    for b in blocks:
        if isinstance(b, Function):
            out.append(b)
            out += _functions(b.closures)
    return out


def measured() -> list[tuple[int, str, str]]:
    """(complexity, file, name) of every function in protocol/games, highest first."""
    rows = []
    for path in sorted((ROOT / "protocol" / "games").rglob("*.py")):
        for f in _functions(cc_visit(path.read_text())):
            rows.append((f.complexity, str(path.relative_to(ROOT)), f.fullname))
    return sorted(rows, key=lambda r: (-r[0], r[1], r[2]))


def test_no_engine_function_is_over_30():
    rows = measured()
    assert len(rows) > 300 and any(name == "SabbatEngine._legal" for _, _, name in rows)   # it measures them
    over = [f"{name} ({file}): {score}" for score, file, name in rows if score > LIMIT]
    assert not over, (f"cyclomatic complexity over {LIMIT} (split it, e.g. into per-phase methods looked "
                      f"up in a table): " + "; ".join(over))


if __name__ == "__main__":       # the top 10, as CONTRIBUTING prints them
    for score, file, name in measured()[:10]:
        print(f"| `{name}` | `{file}` | {score} |")
