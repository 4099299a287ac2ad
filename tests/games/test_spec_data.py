"""Each game's component data files are normative: its spec names every one with its SHA-256
(issue 23), so a data change cannot slip in without the spec changing in the same commit."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]
SPECS = {"sabbat": "sabbat-magica.md", "sare": "sa-re.md", "nomads": "nomads-of-arabia.md"}
ROW = re.compile(r"^\| `(protocol/games/[\w/]+\.json)` \| `([0-9a-f]{64})` \|$", re.M)


@pytest.mark.parametrize("game", sorted(SPECS))
def test_spec_lists_every_data_file_with_its_sha256(game):
    listed = dict(ROW.findall((ROOT / "specs" / SPECS[game]).read_text(encoding="utf-8")))
    files = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "protocol" / "games" / game).rglob("*.json"))
    assert files, game
    assert sorted(listed) == files, f"specs/{SPECS[game]} must list exactly the data files {files}"
    for path, digest in listed.items():
        assert hashlib.sha256((ROOT / path).read_bytes()).hexdigest() == digest, \
            f"{path} changed: update its SHA-256 (and what changed) in specs/{SPECS[game]}"
