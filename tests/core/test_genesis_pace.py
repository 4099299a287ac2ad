"""A table's pace in the signed genesis (issue 33): a live table's genesis is byte for byte
what it was before tables had a pace (the fixture vector's bytes, and so every game id, stay);
a turn-based table's carries `"pace": "turn-based"`, signed with the rest, its `time_limit`
being the time per move (up to 14 days)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from protocol import genesis as G, transcript, wire
from protocol.errors import BadGenesis
from protocol.identity import SigningKey
from protocol.verify import verify_bytes
from tests.helpers import make_genesis

VECTOR = Path(__file__).resolve().parents[2] / "specs" / "vectors" / "fixture-2p.caravan"


def _signed(fields: dict, keys: list[SigningKey]) -> bytes:
    """A genesis record over a hand-made body, signed by every seat (so only its fields are judged)."""
    body = wire.encode(fields)
    return wire.encode(["caravan/genesis/v1", body, [G.sign(k, body) for k in keys]])


def _fields(pace: str = G.LIVE, time_limit: int = 0) -> tuple[dict, list[SigningKey]]:
    keys, _, genesis = make_genesis("fixture", {"rounds": 1}, 2, random.Random(3), time_limit=time_limit, pace=pace)
    return wire.decode(genesis.body), keys


def test_a_live_genesis_is_byte_identical_to_the_vector():
    raw, _ = transcript.load(VECTOR.read_bytes())
    g = G.parse(raw)
    assert g.pace == G.LIVE and not g.turn_based
    assert "pace" not in wire.decode(g.body)
    again = G.make_body(g.game, g.options, g.seats, g.beacon_tips, g.nonce, g.beacon_length, g.time_limit)
    assert again == g.body
    assert G.make_body(g.game, g.options, g.seats, g.beacon_tips, g.nonce, g.beacon_length, g.time_limit,
                       G.LIVE) == g.body
    rebuilt = G.Genesis(g.game, g.options, g.seats, g.beacon_tips, g.beacon_length, g.nonce, again, g.signatures,
                        g.time_limit)
    assert rebuilt.to_wire() == raw and rebuilt.game_id == g.game_id


def test_a_turn_based_genesis_round_trips_signed():
    keys, _, g = make_genesis("fixture", {"rounds": 1}, 3, random.Random(4), time_limit=2 * 3600, pace=G.TURN_BASED)
    assert wire.decode(g.body)["pace"] == G.TURN_BASED
    again = G.parse(g.to_wire())
    assert again.pace == G.TURN_BASED and again.turn_based and again.time_limit == 2 * 3600
    assert again.game_id == g.game_id
    # the same table, live: another body, so another game id (the pace is part of what was signed)
    live = G.make_body(g.game, g.options, g.seats, g.beacon_tips, g.nonce, g.beacon_length, g.time_limit)
    assert G.game_id_of(live) != g.game_id
    # the seats' signatures of the turn-based body do not hold for the live one
    with pytest.raises(BadGenesis, match="did not sign"):
        G.parse(wire.encode(["caravan/genesis/v1", live, g.signatures]))


def test_the_pace_is_checked():
    fields, keys = _fields(G.TURN_BASED, 3600)
    assert G.parse(_signed(fields, keys)).turn_based
    for bad, why in [({"pace": "live"}, "exactly the fields"),                # live is said by its absence
                     ({"pace": "slow"}, "exactly the fields"),
                     ({"pace": ["turn-based"]}, "exactly the fields"),
                     ({"time_limit": 0}, "time per move"),                     # turn-based needs a time per move
                     ({"time_limit": G.MAX_MOVE_TIME + 1}, "time per move"),
                     ({"time_limit": True}, "time per move")]:
        with pytest.raises(BadGenesis, match=why):
            G.parse(_signed({**fields, **bad}, keys))
    assert G.parse(_signed({**fields, "time_limit": G.MAX_MOVE_TIME}, keys)).time_limit == G.MAX_MOVE_TIME
    live, keys = _fields(G.LIVE, 300)
    assert G.parse(_signed({**live, "time_limit": G.MAX_LIVE_LIMIT}, keys)).pace == G.LIVE
    with pytest.raises(BadGenesis, match="0 \\(none\\) to 86400"):               # a live limit stays at most a day
        G.parse(_signed({**live, "time_limit": G.MAX_LIVE_LIMIT + 1}, keys))
    with pytest.raises(ValueError, match="unknown pace"):
        G.make_body("fixture", {}, [], [], b"\0" * 16, 1, 60, "slow")


def test_the_pace_in_words():
    assert G.pace_text(G.TURN_BASED, 86400) == "turn-based, 1 d per move"
    assert G.pace_text(G.TURN_BASED, 36 * 3600) == "turn-based, 36 h per move"
    assert G.pace_text(G.TURN_BASED, 5400) == "turn-based, 90 min per move"
    assert G.pace_text(G.TURN_BASED, 7) == "turn-based, 7 s per move"
    assert G.pace_text(G.LIVE, 300) == "live, 300 s time limit"
    assert G.pace_text(G.LIVE, 0) == "live, no time limit"


def test_the_verifier_reports_the_pace():
    _, _, g = make_genesis("fixture", {"rounds": 1}, 2, random.Random(5), time_limit=7200, pace=G.TURN_BASED)
    report = verify_bytes(transcript.dump(g.to_wire(), []))
    assert (report.pace, report.time_limit) == (G.TURN_BASED, 7200)
    assert report.to_json()["pace"] == G.TURN_BASED and report.to_json()["time_limit"] == 7200
    live = verify_bytes(VECTOR.read_bytes())
    assert live.ok and live.pace == G.LIVE
