"""Two browser tabs (two Chromiums, each its own profile, as two friends' phones) and one
desktop node play a whole game through a real broker (issue 32: "one game with two tabs"):
the tabs' seats link to each other over the broker as to the desktop node, deck proofs are
checked in both tabs' Pyodide, and all three seats end with the same transcript, which
verifies. The game is played by tests/web/test_tab_seat_relay.py's `play`."""

from __future__ import annotations

import pytest

from protocol.verify import verify_bytes
from tests.games.pick import games_with
from tests.tab_seats import N, genesis
from tests.web.tab_fixtures import bundle, driver, second_driver, second_tab, server, tab  # noqa: F401 - fixtures
from tests.web.test_tab_net import broker  # noqa: F401 - the fixture
from tests.web.test_tab_seat_relay import bundled, play

pytestmark = pytest.mark.xdist_group("tab")


def test_two_tabs_and_a_desktop_node_finish_a_game_through_the_broker(tab, second_tab, broker, tmp_path):  # noqa: F811
    (first, _), (second, _) = tab, second_tab
    profiles = {d.capabilities["chrome"]["userDataDir"] for d in (first, second)}
    assert len(profiles) == 2, profiles
    game = next(filter(bundled, games_with("deck", players=N)))      # deck proofs checked in both tabs
    keys, secrets, g = genesis(23, game=game, players=N)
    results, desk = play({0: first, 1: second}, broker, g, 23, keys, secrets, tmp_path)
    for seat, result in results.items():
        assert result["seat"] == seat and result["outcome"]["kind"] == "complete", result
        assert result["refused"] == [] and result["bad_frames"] == 0, result
    transcripts = {bytes.fromhex(result["transcript"]) for result in results.values()}
    assert transcripts == desk and len(desk) == 1
    report = verify_bytes(desk.pop())
    assert report.ok and report.messages == results[0]["messages"] > 0, report.to_json()
