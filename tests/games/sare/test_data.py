"""Component data: counts printed in the rulebook, and a provenance for every value."""

from __future__ import annotations

import json
from pathlib import Path

from protocol.games.sare import data as D

DATA = Path(D.__file__).with_name("data")


def test_every_value_has_provenance():
    files = sorted(DATA.glob("*.json"))
    assert {f.stem for f in files} == {"board", "buildings", "cards", "gauges"}
    for f in files:
        raw = json.loads(f.read_text())
        for key, rec in raw.items():
            if key.startswith("_"):
                continue
            assert set(rec) >= {"value", "provenance", "source"}, (f.name, key)
            prov = rec["provenance"]
            values = prov.values() if isinstance(prov, dict) else [prov]
            assert all(any(w in str(v) for w in ("printed", "inferred", "proposed")) for v in values), (f.name, key)


def test_printed_counts():
    assert sum(D.SUPPLY) == 110 and D.SUPPLY == (30, 30, 30, 20)
    assert D.N_CARDS + len(D.DOUBLE) == 28 and len(D.DOUBLE) == 6
    assert any(1 in d for d in D.DOUBLE) and any(1 not in d for d in D.DOUBLE)
    assert D.N_SPACES == 12 and len(D.NILE) == 6 and D.ARCH_START == 0
    assert D.CARAVAN_MAX == 3 and D.CARAVAN_COST == 2 and D.WH_CAP == 3
    assert D.BLACK_CUBES == 8
    assert len(D.ADMIN) == 6 and len(D.PRODUCTION) == 5 and D.MAIN == {D.PORT, D.PYR}
    assert D.PYRAMIDS[1][0] == 3 and D.PYRAMIDS[4][0] == 2
    assert all(D.PYRAMIDS[n][0] in (2, 3) for n in (2, 3))
    totals = [D.PYRAMIDS[n][0] * sum(D.PYRAMIDS[n][1]) for n in (1, 2, 3, 4)]
    assert totals == sorted(totals, reverse=True) and len(set(totals)) == 4   # "decreasing construction cost"


def test_board_geometry():
    for s in range(12):
        r, c = divmod(s, 4)
        expect = {r2 * 4 + c2 for r2, c2 in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1))
                  if 0 <= r2 < 3 and 0 <= c2 < 4}
        assert set(D.ADJ[s]) == expect
    assert D.NILE == {3, 7, 11, 8, 9, 10}
