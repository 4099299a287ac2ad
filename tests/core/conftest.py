import random

import pytest

from protocol import games
from tests.fixture_game import ENGINE
from tests.helpers import new_table, play

games.register(ENGINE)


def finished_table(n: int, seed: int = 0, shuffle: bool = True):
    t = new_table(ENGINE, n, seed=seed)
    rng = random.Random(seed)
    play(t, lambda seat, legal: rng.choice(legal), rng=random.Random(seed + 99) if shuffle else None)
    return t


@pytest.fixture(scope="session")
def table3():
    return finished_table(3, seed=3)
