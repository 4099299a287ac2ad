"""Each game's spec is normative for its data files and its state encoding (issue 23): the spec
names every data file with its SHA-256 and every state field in canonical order, so a change to
either cannot slip in without the spec changing in the same commit."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pytest

from protocol import games
from tests.games import vectors_gen as V

ROOT = Path(__file__).parents[2]
SPECS = V.SPECS
ROW = re.compile(r"^\| `(protocol/games/[\w/]+\.json)` \| `([0-9a-f]{64})` \|$", re.M)


@pytest.mark.parametrize("game", sorted(SPECS))
def test_spec_lists_every_data_file_with_its_sha256(game):
    listed = dict(ROW.findall((ROOT / "specs" / SPECS[game]).read_text(encoding="utf-8")))
    files = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "protocol" / "games" / game).rglob("*.json"))
    assert files, game
    assert sorted(listed) == files, f"specs/{SPECS[game]} must list exactly the data files {files}"
    for path, digest in listed.items():
        assert hashlib.sha256((ROOT / path).read_bytes()).hexdigest() == digest, \
            f"{path} changed: run `make vectors` (it rewrites its SHA-256 in specs/{SPECS[game]}) and commit"


def _state_table_keys(text: str) -> list[str]:
    """The first column of the first table after the spec's "State encoding" heading."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("#") and "State encoding" in line)
    keys, in_table = [], False
    for line in lines[start + 1:]:
        if line.startswith("| `"):
            in_table = True
            keys.append(line.split("`")[1])
        elif in_table:
            break
    return keys


@pytest.mark.parametrize("game", sorted(SPECS))
def test_spec_lists_every_state_field_in_canonical_order(game):
    """The spec's state table names exactly the keys `engine.encode` makes, in canonical order, so
    a field added or removed in the code shows up here until the spec says what it holds."""
    keys = list(V.initial_state(game))
    assert _state_table_keys((ROOT / "specs" / SPECS[game]).read_text(encoding="utf-8")) == keys


@pytest.mark.parametrize("game", sorted(SPECS))
def test_protocol_spec_lists_each_games_default_options(game):
    """specs/protocol.md §14 P5 lists the defaults a partial genesis falls back on."""
    text = (ROOT / "specs" / "protocol.md").read_text(encoding="utf-8")
    row = re.search(rf"^\| `{game}` \| `(\{{.*?\}})`", text, re.M)
    assert row, f"specs/protocol.md §14 P5 has no defaults row for {game}"
    engine = games.get(game)
    assert json.loads(row.group(1)) == engine.default_options(engine.min_players), \
        f"{game}'s default options changed: run `make vectors` (it rewrites specs/protocol.md §14 P5)"


@pytest.mark.parametrize("game", sorted(SPECS))
def test_spec_shows_the_initial_state_encoding(game):
    text = (ROOT / "specs" / SPECS[game]).read_text(encoding="utf-8")
    block = re.search(r"The initial state\n.*?```json\n(.*?)\n```", text, re.S)
    assert block, f"specs/{SPECS[game]} has no initial state block"
    encoded = V.initial_state(game)
    shown = json.loads(block.group(1))
    assert list(shown) == list(encoded) and shown == encoded, \
        f"{game}'s initial state changed: run `make vectors` (it rewrites the block in specs/{SPECS[game]})"


@pytest.mark.parametrize("game", sorted(SPECS))
def test_the_normative_data_files_are_shipped_under_specs(game):
    """Issue 35: the spec folder alone is enough — each data file is copied, byte for byte, to
    specs/data/<game>/ (`make vectors` refreshes the copies), and nothing else is there."""
    pairs = V.data_copies(game)
    assert pairs
    for src, copy in pairs:
        assert copy.exists() and copy.read_bytes() == src.read_bytes(), \
            f"{copy} differs from {src}: run `make vectors` and commit"
    assert sorted(p.name for p in (ROOT / "specs" / "data" / game).iterdir()) == sorted(c.name for _, c in pairs)


def _state_table_rows(text: str) -> tuple[str, list[list[str]]]:
    """The header and the cells of each row of the spec's state table (first table after "State
    encoding"); cells split on unescaped pipes."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("#") and "State encoding" in line)
    header, rows = "", []
    for line in lines[start + 1:]:
        if line.startswith("| key |"):
            header = line
        elif line.startswith("| `"):
            rows.append([c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]])
        elif rows:
            break
    return header, rows


@pytest.mark.parametrize("game", sorted(SPECS))
def test_every_hashed_state_field_says_when_it_is_set_and_reset(game):
    """Issue 35: the state table has a "set and reset" column, and every field the hash covers
    (every key `engine.encode` makes) states there when it is set, reset or never changes."""
    header, rows = _state_table_rows((ROOT / "specs" / SPECS[game]).read_text(encoding="utf-8"))
    assert header.split("|")[-2].strip() == "set and reset", header
    keys = list(V.initial_state(game))
    assert [r[0].strip("`") for r in rows] == keys
    for r in rows:
        assert len(r) == 4 and len(r[3]) >= 5, f"{game}: {r[0]} has no set/reset cell: {r}"
