"""Shared by the three games' test_options.py: the OPTION_HELP listing checks and the option
combinations the random-game battery plays (issue #15: "every option combination plays ≥ 200 random
games per player count with the invariants holding").

The full battery (200 games per combination and player count) takes minutes, so it is marked slow
and runs only with CARAVAN_SLOW=1 (`CARAVAN_SLOW=1 .venv/bin/python -m pytest -m slow tests/games`);
every run of the suite plays a smaller number of games of every combination."""

from __future__ import annotations

import itertools
import os
from typing import Any

import pytest

FULL_GAMES = 200
slow = pytest.mark.skipif(not os.environ.get("CARAVAN_SLOW"),
                          reason="the full option battery runs with CARAVAN_SLOW=1")


def combinations(battery: dict[str, list[Any]]) -> list[dict[str, Any]]:
    """Every combination of the listed option values, as option maps."""
    keys = sorted(battery)
    return [dict(zip(keys, values)) for values in itertools.product(*(battery[k] for k in keys))]


def check_help(engine: Any, help_: dict[str, dict], battery: dict, varied: set[str]) -> None:
    """OPTION_HELP covers exactly the options the engine accepts, in words; every option is either
    enumerated by the battery or varied/fixed by it on purpose (`varied`), so a new option cannot
    escape the battery."""
    for n in range(engine.min_players, engine.max_players + 1):
        assert set(help_) == set(engine.default_options(n)), n
    for key, entry in help_.items():
        assert set(entry) == {"values", "help"}, key
        assert all(isinstance(entry[k], str) and entry[k].strip() for k in entry), key
    assert set(help_) == set(battery) | varied
    for combo in combinations(battery):
        for n in range(engine.min_players, engine.max_players + 1):
            engine.new_game(combo, n)          # every listed value is accepted
