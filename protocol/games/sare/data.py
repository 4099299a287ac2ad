"""Sa-Rê component data: loads the JSON files of ./data and unwraps the provenance records.

Every JSON value is {"value": ..., "provenance": "printed|inferred|proposed", "source": ...};
`PROVENANCE` keeps (file, key) -> provenance for the spec and the tests.
"""

from __future__ import annotations

import json
from pathlib import Path

_DIR = Path(__file__).with_name("data")
PROVENANCE: dict[tuple[str, str], object] = {}


def _load(name: str) -> dict:
    raw = json.loads((_DIR / f"{name}.json").read_text(encoding="utf-8"))
    out = {}
    for key, rec in raw.items():
        if key.startswith("_"):
            continue
        out[key] = rec["value"]
        PROVENANCE[(name, key)] = rec["provenance"]
    return out


BOARD = _load("board")
CARDS = _load("cards")
GAUGES = _load("gauges")
BUILDINGS = _load("buildings")

RES = ("W", "G", "S", "J")                 # resource index order used everywhere: 0 W, 1 G, 2 S, 3 J
RES_INDEX = {r: i for i, r in enumerate(RES)}

KINDS: tuple[str, ...] = tuple(BUILDINGS["kinds"])
KIND_INDEX = {k: i for i, k in enumerate(KINDS)}
WH, MB, CARP, MASON, GOLDS, TEMPLE, LIB, BARR, MARKET, PALACE, GARDENS, PORT, PYR = range(13)
PRODUCTION = frozenset(KIND_INDEX[k] for k in BUILDINGS["production"])
ADMIN = frozenset(KIND_INDEX[k] for k in BUILDINGS["administrative"])
MAIN = frozenset((PORT, PYR))
PRODUCES = {KIND_INDEX[k]: RES_INDEX[r] for k, r in BUILDINGS["produces"].items()}
COST = [tuple(BUILDINGS["cost"][k]) for k in KINDS[:12]]          # [W, G, S] per kind 0..11
PYRAMIDS = {p["number"]: (p["steps"], tuple(p["step_cost"])) for p in BUILDINGS["pyramids"]}

# Season cards: kind codes 0 W, 1 G, 2 S (resource index), 3 horus, 4 hoshekh, 5 troubles1, 6 troubles2
CARD_KIND_CODE = {"W": 0, "G": 1, "S": 2, "horus": 3, "hoshekh": 4, "troubles1": 5, "troubles2": 6}
CARD_KIND_NAME = {v: k for k, v in CARD_KIND_CODE.items()}
HORUS, HOSHEKH, TR1, TR2 = 3, 4, 5, 6
CARD_KIND: tuple[int, ...] = tuple(CARD_KIND_CODE[k] for k, count in CARDS["single_cards"] for _ in range(count))
N_CARDS = len(CARD_KIND)
DOUBLE: tuple[tuple[int, int], ...] = tuple((RES_INDEX[a], RES_INDEX[b]) for a, b in CARDS["double_cards"])

ROWS, COLS = BOARD["rows"], BOARD["cols"]
N_SPACES = BOARD["spaces"]
ADJ: tuple[tuple[int, ...], ...] = tuple(tuple(a) for a in BOARD["adjacency"])
NILE = frozenset(BOARD["nile_bank"])
ARCH_START = BOARD["architect_start"]

REVOLT_SPACES = GAUGES["revolt_spaces"]
RED = REVOLT_SPACES - 1
CARAVAN_MAX = GAUGES["caravan_max"]
CARAVAN_COST = GAUGES["caravan_cost"]
WH_CAP = GAUGES["warehouse_capacity"]
SUPPLY = tuple(GAUGES["tokens"][r] for r in RES)
BLACK_CUBES = GAUGES["black_cubes"]
GRUMBLE = GAUGES["grumbling_start_space"]
TURN_LIMIT = GAUGES["turn_limit"]

assert N_CARDS == CARDS["season_cards_total"] - CARDS["double_cards_count"] == 22
assert len(DOUBLE) == CARDS["double_cards_count"]
assert len(ADJ) == N_SPACES and len(NILE) == 6
assert all(i in ADJ[j] for i in range(N_SPACES) for j in ADJ[i]), "adjacency must be symmetric"
