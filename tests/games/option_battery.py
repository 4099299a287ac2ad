"""Shared by the three games' test_options.py: the OPTION_HELP listing checks and the option
combinations the random-game battery plays (issue #15: "every option combination plays ≥ 200 random
games per player count with the invariants holding").

The full battery (200 games per combination and player count) takes minutes, so it is marked slow
and runs only with CARAVAN_SLOW=1 (`CARAVAN_SLOW=1 .venv/bin/python -m pytest -m slow tests/games`);
every run of the suite plays a smaller number of games of every combination."""

from __future__ import annotations

import itertools
import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor
from typing import Any, Callable

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


def run_battery(play: Callable[[int, int, dict], None], battery: dict, counts: range | tuple,
                games: int, base: int) -> None:
    """`games` random games of every combination and player count, `play(n, seed, options)` each
    (a module-level function: it goes to the worker processes), on both cores."""
    combos = combinations(battery)
    jobs = []
    for i, combo in enumerate(combos):
        for n in counts:
            seeds = list(range(base + 10_000 * i + 1000 * n, base + 10_000 * i + 1000 * n + games))
            jobs += [(play, n, combo, seeds[k::2]) for k in range(2)]
    with ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("fork")) as pool:
        assert sum(pool.map(_games, jobs)) == games * len(counts) * len(combos)


def _games(job) -> int:
    play, n, combo, seeds = job
    for seed in seeds:
        play(n, seed, combo)
    return len(seeds)
