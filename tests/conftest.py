"""Suite-wide: under pytest-xdist (`make test`), the files holding the longest tests start
first, so no worker is left with a two-minute test at the end while the others sit idle.
Whole files move, in their own order, so module-scoped fixtures are still set up once.
Hypothesis examples have no time limit: with workers sharing the cores (and a busy machine) a
200 ms deadline fails tests whose properties hold."""

from __future__ import annotations

import compileall
import sys
from pathlib import Path

import pytest
from hypothesis import settings

# the CPU report (issue 31): the tests with the most CPU and the suite's total, at the end
pytest_plugins = ["tests.cpu_report"]

settings.register_profile("caravan", deadline=None)
settings.load_profile("caravan")

# the files holding the longest tests (`make test` prints the 15 slowest; re-measured for issue
# 25): whole games in a browser, over real nodes, through a faulty or stopped broker, waits
# for an abandon, a stall or a resume; the Ray group; then the longest CPU-bound simulations
LONGEST_FIRST = (
    "tests/web/test_play.py",
    "tests/web/test_home_install.py",          # a pip install from a clean clone: about a minute
    "tests/node/test_spectate.py",
    "tests/node/test_real_games.py",
    "tests/relay/test_relay_outage.py",
    "tests/relay/test_watch_broker_restart.py",
    "tests/relay/test_relay_faults.py",
    "tests/node/test_resume_advice.py",
    "tests/node/test_floods.py",
    "tests/node/test_crash.py",
    "tests/node/test_fast_clock.py",
    "tests/node/test_cli_signals.py",
    "tests/relay/test_relay_lossy.py",
    "tests/web/test_home.py",
    "tests/node/test_netns.py",
    "tests/node/test_lobby_floods.py",
    "tests/node/test_cli_spec.py",
    "tests/web/test_table.py",
    "tests/bots/test_tournament_ray.py",
    "tests/games/sabbat/test_random.py",
    "tests/games/nomads/test_simulation.py",
    "tests/node/test_one_process_per_game.py",
    "tests/node/test_spectate_relay.py",
)


# Byte code is cached even with PYTHONDONTWRITEBYTECODE set (as on the CI machine), in the
# usual (git-ignored) __pycache__ directories (issue 31). Without it every xdist worker
# rewrote and compiled all the test files again (about 7 s of CPU each), and every node, bot
# and `caravan` process the suite starts compiled our modules from source (about 0.3 s of
# CPU each, a node process's start being about 0.7 s): together about a fifth of the
# suite's CPU. An installed caravan has its byte code (pip compiles it); this gives the
# checkout the same. Python and pytest check each cached file against its source's mtime and
# size, so an edited file is compiled afresh as usual.
sys.dont_write_bytecode = False                 # this process: pytest's rewritten tests too


def pytest_configure(config: pytest.Config) -> None:
    """Compile the project before the workers start: the processes the tests start read the
    byte code (they still write none themselves)."""
    if getattr(config, "workerinput", None) is not None:
        return                                   # a worker: the controller did it
    root = Path(__file__).resolve().parents[1]
    for package in ("protocol", "node", "clients", "tests"):
        compileall.compile_dir(root / package, quiet=2)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if not getattr(config, "workerinput", None):          # only in an xdist worker
        return

    def rank(item: pytest.Item) -> int:
        path = item.nodeid.split("::")[0]
        return LONGEST_FIRST.index(path) if path in LONGEST_FIRST else len(LONGEST_FIRST)
    items.sort(key=rank)                                   # stable: each file keeps its order
