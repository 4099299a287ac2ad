"""Sabbat Magica component data, loaded once from data.json into index-based tables.

Locations are numbered 0..7 (regions, in data.json order), 8..13 (gardens) and
14 (the drawbridge). Resources are 0 spider, 1 rat tail, 2 gemstone, 3 mask.
Every value's provenance is in data.json; specs/sabbat-magica.md explains the
proposed ones.
"""

from __future__ import annotations

import json
from pathlib import Path

DATA = json.loads((Path(__file__).with_name("data.json")).read_text(encoding="utf-8"))

RES_NAMES: list[str] = DATA["resources"]["basic"]
NRES = len(RES_NAMES)
_RES = {name: i for i, name in enumerate(RES_NAMES)}

GHOSTS = DATA["ghosts_per_player"]["value"]
START_VP = DATA["start"]["vp"]
START_TERROR = DATA["start"]["terror"]
TERROR_MAX = DATA["terror_max"]["value"]
MAX_OWN = DATA["max_own_ghosts_per_location"]["value"]
ROUNDS = DATA["rounds"]["value"]
CURSE_VP = DATA["curse_penalty_vp"]["value"]
CHIMAERA_VP = DATA["chimaera_vp"]["value"]
MIRROR_CRACK = DATA["mirror_terror"]["crack"]
MIRROR_BREAK = DATA["mirror_terror"]["break"]

# ------------------------------------------------------------------ locations
REGIONS = DATA["regions"]
GARDENS = DATA["gardens"]
NREG = len(REGIONS)
NGAR = len(GARDENS)
NLOC = NREG + NGAR
BRIDGE = NLOC                      # 14: the drawbridge as a move source/destination
LOC_IDS: list[str] = [r["id"] for r in REGIONS] + [g["id"] for g in GARDENS]
LOC_NAMES: list[str] = [r["name"] for r in REGIONS] + [g["name"] for g in GARDENS] + ["drawbridge"]
_LOC = {lid: i for i, lid in enumerate(LOC_IDS)}
REGION_VP: list[int] = [r["vp"] for r in REGIONS]
NEIGHBOURS: list[tuple[int, ...]] = (
    [tuple(_LOC[x] for x in r["neighbours"]) for r in REGIONS]
    + [tuple(_LOC[x] for x in g["neighbours"]) for g in GARDENS])
# locations two steps away on the same board, with the middle locations (Booster)
TWO_STEPS: list[dict[int, tuple[int, ...]]] = []
for _l in range(NLOC):
    far: dict[int, list[int]] = {}
    for _m in NEIGHBOURS[_l]:
        for _d in NEIGHBOURS[_m]:
            if _d != _l and _d not in NEIGHBOURS[_l]:
                far.setdefault(_d, []).append(_m)
    TWO_STEPS.append({d: tuple(ms) for d, ms in sorted(far.items())})
_SPACES = [(x["spaces"]["base"], x["spaces"]["3+"], x["spaces"]["4+"]) for x in REGIONS + GARDENS]


def capacities(players: int) -> list[int]:
    """Spaces per location for a player count: '3+' spaces with 3-4 players, '4+' with 4 (SM-16)."""
    return [b + (p3 if players >= 3 else 0) + (p4 if players >= 4 else 0) for b, p3, p4 in _SPACES]


GARDEN_INDEX = {g["id"]: NREG + i for i, g in enumerate(GARDENS)}
GLASS = GARDEN_INDEX["glass_factory"]
CRYSTAL = GARDEN_INDEX["crystal_ball"]
CANTEEN = GARDEN_INDEX["canteen"]
TRAINING = GARDEN_INDEX["training_ground"]
ALCHEMIST = GARDEN_INDEX["alchemist"]
ZEN = GARDEN_INDEX["zen"]
REGION_GATE: list[int] = [r["gate"] for r in REGIONS]   # region -> gate position

# ------------------------------------------------------------------ manor
_M = DATA["manor"]
ROWS, COLS = _M["rows"], _M["cols"]
NTILES = ROWS * COLS


def _steps(offsets: list[list[int]]) -> list[tuple[int, ...]]:
    """For each manor square, the squares one magician step away (offsets from data.json)."""
    out = []
    for p in range(NTILES):
        r, c = divmod(p, COLS)
        out.append(tuple((r + dr) * COLS + c + dc for dr, dc in offsets
                         if 0 <= r + dr < ROWS and 0 <= c + dc < COLS))
    return out


MAGICIAN_MOVES = ("king", "literal")
MAGICIAN_STEPS: dict[str, list[tuple[int, ...]]] = {k: _steps(_M["magician_steps"][k]) for k in MAGICIAN_MOVES}
KING = MAGICIAN_STEPS["king"]      # adjacency for POWER cards ("adjacent" = the 8 squares around, SM-30)
NMIRRORS = len(_M["mirrors"])
assert NMIRRORS == DATA["mirror_tiles"]["count"]
MIRRORS_OF: list[tuple[int, ...]] = [tuple(m for m, mm in enumerate(_M["mirrors"]) if p in mm["touches"])
                                     for p in range(NTILES)]

TILES = DATA["manor_tiles"]
assert len(TILES) == NTILES
STANDARD, GRIMOIRE, CLOCK, TERRORISER, TEST_TUBE = "standard", "grimoire", "clock", "terroriser", "test_tube"
TILE_KIND: list[str] = [t["kind"] for t in TILES]
TILE_RES: list[int] = [_RES[t["resource"]] if t["kind"] == STANDARD else -1 for t in TILES]
TILE_NAMES: list[str] = [t["id"] for t in TILES]

GATE_FEES: list[tuple[int, ...]] = [tuple(_RES[x] for x in g["fee"]) for g in DATA["gate_tiles"]]
NGATES = len(GATE_FEES)
GATE_NAMES: list[str] = [g["id"] for g in DATA["gate_tiles"]]

# ------------------------------------------------------------------ time cards
TIME = DATA["time_cards"]
TIME_NAMES: list[str] = [c["name"] for c in TIME]
TIME_ACTIONS: list[int] = [c["actions"] for c in TIME]


def _bonus(b: dict) -> tuple[str, int]:
    if b["kind"] in ("vp", "terror"):
        return (b["kind"], b["amount"])
    if b["kind"] == "resource":
        return ("res", _RES[b["resource"]])
    return ("any", 0)


TIME_BONUSES: list[tuple[tuple[str, int], ...]] = [tuple(_bonus(b) for b in c["bonuses"]) for c in TIME]
FULL_MOON = 0

# ------------------------------------------------------------------ peoples and powers
PEOPLES = DATA["peoples"]
PEOPLE_NAMES: list[str] = [p["name"] for p in PEOPLES]
POWER_IDS: list[str] = [p["id"] for p in DATA["power_cards"]]
POWER_TITLES: list[str] = [p["title"] for p in DATA["power_cards"]]
_POW = {pid: i for i, pid in enumerate(POWER_IDS)}
PEOPLE_POWERS: list[tuple[int, ...]] = [tuple(_POW[x] for x in p["powers"]) for p in PEOPLES]
ARGOSOLA, ZUGRIGA, SANAGAL, LUSERNA = range(4)
(BOOSTER, SPELL, FRENZY, BATS, SEDUCTION, IMMORTALITY,
 DOPPELGANGER, TELEPORTATION, FIREBALL, LUXURIANCE, APPARITION, SECRET_AREA) = (
    _POW[x] for x in ("booster", "spell", "frenzy", "bats", "seduction", "immortality",
                      "doppelganger", "teleportation", "fireball", "luxuriance", "apparition", "secret_area"))
POWER_PEOPLE: list[int] = [next(i for i, ps in enumerate(PEOPLE_POWERS) if c in ps) for c in range(len(POWER_IDS))]
B1_END_POWERS = frozenset((SPELL, SEDUCTION, DOPPELGANGER, FIREBALL, APPARITION))

# ------------------------------------------------------------------ garden bonuses
_GE = DATA["garden_effects"]
GLASS_MAJOR = _GE["glass_factory"]["major"]["terror_per_mirror"]
GLASS_MINOR = _GE["glass_factory"]["minor"]["terror_per_broken_mirror"]
CRYSTAL_BONUS = {2: (_GE["crystal_ball"]["major"]["vp"], frozenset(_GE["crystal_ball"]["major"]["regions_worth"])),
                 1: (_GE["crystal_ball"]["minor"]["vp"], frozenset(_GE["crystal_ball"]["minor"]["regions_worth"]))}
CANTEEN_FOOD = {0: 0, 1: _GE["canteen"]["minor"]["food"], 2: _GE["canteen"]["major"]["food"]}
CANTEEN_ORDER = {0: 0, 1: _GE["canteen"]["minor"]["order"], 2: _GE["canteen"]["major"]["order"]}
TRAINING_VP = {0: (0, False), 1: (_GE["training_ground"]["minor"]["fight_vp"], _GE["training_ground"]["minor"]["regions_only"]),
            2: (_GE["training_ground"]["major"]["fight_vp"], _GE["training_ground"]["major"]["regions_only"])}
ALCHEMIST_KEEP = {0: 0, 1: _GE["alchemist"]["minor"]["keep_per_batch"], 2: _GE["alchemist"]["major"]["keep_per_batch"]}
ZEN_TERROR = {0: 0, 1: _GE["zen"]["minor"]["drawbridge_terror"], 2: _GE["zen"]["major"]["drawbridge_terror"]}
GATE_MASK: list[int] = [sum(1 << t for t in set(fee)) for fee in GATE_FEES]
"""Each gate's fee as a bit set of resource types (bit t: one of type t is needed)."""
