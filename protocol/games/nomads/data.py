"""Component data of Nomads of Arabia, loaded once from the JSON files in data/.

Every value in those files records its provenance (printed / inferred / proposed);
specs/nomads-of-arabia.md (section N.D) lists them. This module only turns the files
into the small tuples the engine indexes.
"""

from __future__ import annotations

import json
from pathlib import Path

_DIR = Path(__file__).with_name("data")


def _load(name: str) -> dict:
    with open(_DIR / name, encoding="utf-8") as f:
        return json.load(f)


DICE = _load("dice.json")
BOARD = _load("board.json")
MARKETS = _load("markets.json")
TILES = _load("tiles.json")
SETUP = _load("setup.json")

SPECIES: tuple[str, ...] = tuple(DICE["species"]["value"])          # 0 donkey, 1 goat, 2 horse, 3 camel
NSP = len(SPECIES)
LANDSCAPES: tuple[str, ...] = tuple(BOARD["landscapes"]["value"])   # 0..4
NBOX = len(LANDSCAPES)

# field kinds: 0..4 landscape index, then:
DESERT, CITY, MOUNTAIN = NBOX, NBOX + 1, NBOX + 2
KIND_NAMES: tuple[str, ...] = LANDSCAPES + ("desert", "city", "mountain")
_KIND = {name: i for i, name in enumerate(KIND_NAMES)}

WIDTH: int = BOARD["width"]["value"]
ROWS = 5
DESERT_CARDS = [tuple(_KIND[f] for f in card) for card in BOARD["desert_cards"]["cards"]]
CITY_CARDS = [tuple(_KIND[f] for f in card) for card in BOARD["city_cards"]["cards"]]
# card ids: 0..7 desert cards, 8..15 city cards
CARDS: tuple[tuple[int, ...], ...] = tuple(DESERT_CARDS + CITY_CARDS)
N_DESERT = len(DESERT_CARDS)
N_CITY = len(CITY_CARDS)
IS_CITY_CARD = tuple(i >= N_DESERT for i in range(len(CARDS)))
CITY_COL = tuple((card.index(CITY) if CITY in card else -1) for card in CARDS)

TRADER_FACES: int = DICE["trader_die"]["faces"]
TRADER_ANIMAL_FACES: int = DICE["trader_die"]["animal_faces"]
TRADERS_PER_SPECIES = {int(k): v for k, v in DICE["trader_dice_per_species"]["value"].items()}

_AD = DICE["animal_die"]["faces"]
ANIMAL_DIE = tuple(SPECIES.index(f) if f in SPECIES else -1 for f in _AD)   # -1 = blank
ANIMAL_DIE_FACES = len(ANIMAL_DIE)
_LD = DICE["landscape_die"]["faces"]
LAND_DIE = tuple(LANDSCAPES.index(f) if f in LANDSCAPES else -1 for f in _LD)  # -1 = yellow dot
LAND_DIE_FACES = len(LAND_DIE)

COLUMNS: int = MARKETS["columns"]["value"]
PER_COLUMN: int = MARKETS["fields_per_column"]["value"]
COVERED = {int(k): v for k, v in MARKETS["covered_columns"]["value"].items()}
PRICES_FULL = tuple(tuple(MARKETS["prices"][s]) for s in SPECIES)


def price_track(players: int) -> tuple[tuple[int, ...], ...]:
    """Per species, the printed numbers of the fields in use, ascending."""
    skip = COVERED[players] * PER_COLUMN
    return tuple(track[skip:] for track in PRICES_FULL)


YELLOW = TILES["yellow"]["tiles"]
YELLOW_KEYS = tuple(t["key"] for t in YELLOW)
Y_DINAR4, Y_DINAR5, Y_DINAR6 = (YELLOW_KEYS.index(k) for k in ("dinar4", "dinar5", "dinar6"))
Y_ABDUL = YELLOW_KEYS.index("abdul")
Y_EXPERT = YELLOW_KEYS.index("expert")
Y_WINDS = YELLOW_KEYS.index("winds")
Y_SANDS = YELLOW_KEYS.index("sands")
Y_SILVER = YELLOW_KEYS.index("silver")
YELLOW_DINARS = tuple(t["dinars"] for t in YELLOW)
N_YELLOW = len(YELLOW)
YELLOW_BOARD_SPACES: int = TILES["yellow_board_spaces"]["value"]

BLUE = TILES["blue"]["tiles"]
BLUE_KEYS = tuple(t["key"] for t in BLUE)
MECCA = BLUE_KEYS.index("mecca")
BLUE_SPECIES = tuple(-1 if t["species"] is None else t["species"] for t in BLUE)
BLUE_PLUS = tuple(i for i in range(len(BLUE)) if i != MECCA)

ANIMALS_PER_SPECIES: int = SETUP["animals_per_species"]["value"]
START_MONEY: int = SETUP["start_money"]["value"]
SETUP_LANDSCAPE_THROWS: int = SETUP["setup_landscape_throws"]["value"]
SETUP_RANDOM_THROWS: int = SETUP["setup_random_throws"]["value"]
HIRE_FREE: int = SETUP["hire_free"]["value"]
HIRE_THIRD_COST: int = SETUP["hire_third_cost"]["value"]
PROVISIONS_PER_ANIMAL: int = SETUP["provisions_per_animal"]["value"]
PROVISIONS_THREE_TRADERS: int = SETUP["provisions_three_traders"]["value"]
MAX_TURNS: int = SETUP["max_turns"]["value"]
MIN_PLAYERS, MAX_PLAYERS = SETUP["players"]["value"]
