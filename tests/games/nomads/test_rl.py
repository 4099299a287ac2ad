"""Nomads' RL action ids (clients.rl): a held tile is named by the tile it is, not its handle."""

from __future__ import annotations

import pytest

pytest.importorskip("pettingzoo")

from clients.rl import ActionIds  # noqa: E402


def test_action_ids_name_tiles_not_handles():
    """A held tile is the same id whatever handle the session gave it; every board space has its own."""
    nomads = ActionIds("nomads")
    assert nomads.id_of(["tile", 4, 3], {4: 3}) == nomads.id_of(["tile", 9, 3], {9: 3}) is not None
    assert nomads.id_of(["tile", 4, 3], {}) != nomads.id_of(["tile", 4, 5], {})
    assert len({nomads.id_of(["move", r, c], {}) for r in range(5) for c in range(7)}) == 35
