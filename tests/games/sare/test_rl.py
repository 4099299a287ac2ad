"""Sa-Rê's RL action ids (clients.rl): a Temple card is named by the card it is, not its handle."""

from __future__ import annotations

import pytest

pytest.importorskip("pettingzoo")

from clients.rl import ActionIds  # noqa: E402


def test_action_ids_name_cards_not_handles():
    """A Temple card is the same id whatever handle the session gave it."""
    sare = ActionIds("sare")
    assert sare.id_of(11, {11: 7}) == sare.id_of(40, {40: 7}) != sare.id_of(40, {40: 8})
