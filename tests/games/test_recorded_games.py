"""Every recorded random game (tests/games/recorded_games.py) replays to the same legal
actions and the same states: an engine made faster plays exactly the games it played before."""

import pytest

from tests.games.recorded_games import records, replay_one

RECORDS = records()


@pytest.mark.parametrize("record", RECORDS, ids=lambda r: f"{r['game']}-{r['players']}p-{r['seed']}")
def test_recorded_game_replays_identically(record):
    replay_one(record)


def test_a_changed_state_is_noticed():
    record = dict(RECORDS[0])
    steps = list(record["steps"])
    i = next(k for k, s in enumerate(steps) if not s.startswith("L"))
    steps[i] = "000000000000"
    record["steps"] = steps
    with pytest.raises(AssertionError, match="state differs"):
        replay_one(record)
