"""The two tables of specs/cli.md (exit codes, JSON line types), parsed for the CLI tests."""

from __future__ import annotations

import re
from dataclasses import dataclass

from tests.node.procs import ROOT

SPEC = ROOT / "specs" / "cli.md"


@dataclass(frozen=True)
class ExitRow:
    command: str          # "(none)" for the top level
    code: int
    when: str
    example: str | None   # a command line with {placeholders}, or None ("—")


def _table(heading: str) -> list[list[str]]:
    """The rows (cells, stripped) of the first table after `## heading`."""
    text = SPEC.read_text()
    start = text.index(f"## {heading}\n")
    rows, seen_table = [], False
    for line in text[start:].splitlines()[1:]:
        if line.startswith("## "):
            break
        if line.startswith("|"):
            seen_table = True
            cells = [c.strip() for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]
            if set("".join(cells)) <= set("-: "):
                continue
            rows.append(cells)
        elif seen_table:
            break
    return rows[1:]                                   # without the header


def exit_rows() -> list[ExitRow]:
    out = []
    for command, code, when, example in _table("Exit codes"):
        m = re.fullmatch(r"`(.*)`", example)
        out.append(ExitRow(command, int(code), when, m.group(1) if m else None))
    return out


def json_types() -> dict[str, list[str]]:
    """type -> the field names its row lists (names in backticks, before any parenthesis)."""
    out = {}
    for kind, _by, fields in _table("JSON lines"):
        top = re.sub(r"\([^)]*\)", "", fields)
        out[kind.strip("`")] = re.findall(r"`([a-z_]+)`", top)
    return out
