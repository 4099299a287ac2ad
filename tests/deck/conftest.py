"""Fixtures for the mental-deck tests."""

import pytest

from tests.deck.deck_table import Table


@pytest.fixture(scope="module")
def table4() -> Table:
    """4 players, the 22-card deck of the benchmark."""
    return Table(4, 22)
