"""clients/record.py: the record counts only transcripts that verify (a tampered or
unfinished one is skipped with its reason), counts each friend's games and results right,
rates in game-id order whatever order the files come in (so anyone recomputes it), and
shows a key with no known name by its fingerprint."""

from __future__ import annotations

import json
import random

import pytest

from clients.record import Source, record
from protocol import genesis as G, transcript as T
from protocol.identity import fingerprint
from protocol.verify import verify_bytes
from tests.clients.record_games import ME, PEOPLE, season


@pytest.fixture(scope="module")
def played():
    return season()


def _sources(played, order=None):
    games = list(played) if order is None else [played[i] for i in order]
    return [Source(f"game{i}.caravan", g.data, {s: n for s, n in enumerate(g.seats) if g.named and n != "Dee"},
                   when=1000.0 + played.index(g))
            for i, g in enumerate(games)]


def _key(name: str) -> str:
    return PEOPLE[name].public.hex()


def test_only_verified_finished_games_count_and_results_are_right(played):
    rec = record(_sources(played), PEOPLE[ME].public, "Ada")
    skipped = {s["file"]: s["reason"] for s in rec["skipped"]}
    assert set(skipped) == {"game6.caravan", "game7.caravan"}, skipped
    assert skipped["game6.caravan"].startswith("does not verify: message #4, signed by seat") \
        and "bad-signature" in skipped["game6.caravan"], skipped
    assert skipped["game7.caravan"].startswith("unfinished:"), skipped
    assert len(rec["games"]) == 6
    # expected, straight from each verified transcript's scores (the fixture's winners have the top score)
    expected: dict[str, list[int]] = {}
    for g in played:
        report = verify_bytes(g.data)
        if not report.ok or ME not in g.seats:
            continue
        scores, mine = report.result["scores"], report.result["scores"][g.seats.index(ME)]
        for seat, who in enumerate(g.seats):
            if who != ME:
                row = expected.setdefault(who, [0, 0, 0, 0])
                row[0] += 1
                row[1 if mine > scores[seat] else 2 if mine < scores[seat] else 3] += 1
    got = {f["name"]: [f["games"], f["wins"], f["losses"], f["draws"]] for f in rec["friends"]}
    dee = fingerprint(PEOPLE["Dee"].public)
    assert got == {"Bea" if k == "Bea" else "Cy" if k == "Cy" else dee: v for k, v in expected.items()}, got
    assert got["Bea"] == [3, 2, 1, 0] and got["Cy"] == [2, 0, 1, 1]      # the tampered game is not among them
    bea = next(f for f in rec["friends"] if f["name"] == "Bea")
    assert bea["key"] == _key("Bea") and bea["last_played"] == 1003.0       # game 3 (the 4th), not the tampered 6th
    assert rec["me"]["key"] == _key(ME) and rec["me"]["games"] == 5 and rec["me"]["won"] == 2
    assert rec["me"]["name"] == "Ada"


def test_the_rating_is_deterministic_and_recomputable(played):
    from openskill.models import PlackettLuce

    me = PEOPLE[ME].public
    first = record(_sources(played), me)
    shuffled = list(range(len(played)))
    random.Random(7).shuffle(shuffled)
    again = record(_sources(played, shuffled), me)
    assert [(p["key"], p["rating"]) for p in first["people"]] == [(p["key"], p["rating"]) for p in again["people"]]
    # recomputed by hand: verified games in game-id order, winners first then by score, openskill's defaults
    model, ratings = PlackettLuce(), {}
    done = []
    for g in played:
        report = verify_bytes(g.data)
        if report.ok:
            done.append((report.game_id, g, report.result))
    for gid, g, result in sorted(done, key=lambda d: d[0]):
        keys = [_key(s) for s in g.seats]
        order = sorted(set((0 if i in result["winners"] else 1, -s) for i, s in enumerate(result["scores"])))
        ranks = [order.index((0 if i in result["winners"] else 1, -s)) + 1 for i, s in enumerate(result["scores"])]
        new = model.rate([[ratings.get(k) or model.rating()] for k in keys], ranks=ranks)
        ratings.update({k: team[0] for k, team in zip(keys, new)})
    assert {p["key"]: (p["rating"]["mu"], p["rating"]["sigma"]) for p in first["people"]} == \
        {k: (round(r.mu, 3), round(r.sigma, 3)) for k, r in ratings.items()}
    ordinals = [p["rating"]["ordinal"] for p in first["people"]]
    assert ordinals == sorted(ordinals, reverse=True) and len(first["people"]) == 4
    # another order of the same games gives other numbers: the record's order is not an accident
    model, other = PlackettLuce(), {}
    for gid, g, result in sorted(done, key=lambda d: d[0], reverse=True):
        keys = [_key(s) for s in g.seats]
        ranks = [1 if i in result["winners"] else 2 for i in range(len(keys))]
        new = model.rate([[other.get(k) or model.rating()] for k in keys], ranks=ranks)
        other.update({k: team[0] for k, team in zip(keys, new)})
    assert {k: round(r.mu, 3) for k, r in other.items()} != {k: round(r.mu, 3) for k, r in ratings.items()}


def test_names_fall_back_to_the_fingerprint_and_the_latest_name_wins(played):
    me = PEOPLE[ME].public
    rec = record(_sources(played), me)
    names = {p["key"]: p["name"] for p in rec["people"]}
    assert names[_key("Dee")] == fingerprint(PEOPLE["Dee"].public)
    assert not next(p for p in rec["people"] if p["key"] == _key("Dee"))["named"]
    assert names[_key("Bea")] == "Bea" and names[_key(ME)] == "Ada"
    sources = _sources(played)
    sources[0] = Source(sources[0].label, sources[0].data, {1: "Beatrix\x1b[31m"}, when=5000.0)   # her newer name
    sources[3] = Source(sources[3].label, sources[3].data, {}, when=1003.0)
    renamed = {p["key"]: p["name"] for p in record(sources, me)["people"]}
    assert renamed[_key("Bea")] == "Beatrix[31m"                 # no control character, ever
    nameless = record([Source(s.label, s.data, {}, s.when) for s in _sources(played)], me)
    assert {p["name"] for p in nameless["people"]} == {fingerprint(k.public) for k in PEOPLE.values()}


def test_the_same_game_twice_counts_once_and_a_watched_game_only_rates(played):
    me = PEOPLE[ME].public
    sources = _sources(played)
    copy = Source("watched/copy.caravan", played[0].data)
    rec = record(sources + [copy], me)
    assert len(rec["games"]) == 6
    assert any(s["file"] in ("watched/copy.caravan", "game0.caravan") and "counted once" in s["reason"]
               for s in rec["skipped"]), rec["skipped"]
    assert next(f for f in rec["friends"] if f["name"] == "Bea")["games"] == 3
    watched = next(g for g in rec["games"] if g["my_seat"] is None)
    assert [s["name"] for s in watched["seats"]] == ["Bea", "Cy"]
    # nobody's secret: no private key, no hidden value; every key shown is a public one
    text = json.dumps(rec)
    assert all(k.seed().hex() not in text for k in PEOPLE.values())
    assert "hidden_cards" not in text and "secret" not in text


def test_without_an_identity_there_is_no_you_but_there_are_ratings(played):
    rec = record(_sources(played), None)
    assert rec["me"] is None and rec["friends"] == [] and len(rec["people"]) == 4


def test_junk_is_skipped_not_fatal():
    g = T.load(season()[0].data)[0]
    rec = record([Source("junk", b"PK\x03\x04"), Source("genesis-only", T.dump(g, [])),
                  Source("bad-genesis", T.dump(b"\x00" * 40, []))], PEOPLE[ME].public)
    assert rec["games"] == [] and len(rec["skipped"]) == 3
    reasons = {s["file"]: s["reason"] for s in rec["skipped"]}
    assert "unreadable" in reasons["junk"] and reasons["genesis-only"].startswith("unfinished:")
    assert reasons["bad-genesis"].startswith("does not verify: the genesis"), reasons
    assert G.parse(g).game == "fixture"


def test_an_abandoned_game_is_skipped_with_who_stalled():
    """A transcript ending in a valid co-signed abandon record verifies, but has no result:
    not counted, and the reason names the stalled seat."""
    from protocol import abandon
    from tests.fixture_game import ENGINE
    from tests.helpers import new_table, play

    table = new_table(ENGINE, 3, seed=5)
    assert play(table, lambda seat, legal: legal[0], stop=lambda seat, d: seat == 2 and d.kind == "commit")
    s = table.sessions[0]
    frames = abandon.state_frames(s)
    sigs = {i: abandon.sign(table.keys[i], s.game_id, [2], len(frames), abandon.log_digest(frames)) for i in (0, 1)}
    data = T.dump(table.genesis.to_wire(), frames + [abandon.record([2], len(frames), sigs)])
    assert verify_bytes(data).valid
    rec = record([Source("abandoned.caravan", data)], table.keys[0].public)
    assert rec["games"] == [] and rec["friends"] == [] and rec["people"] == []
    [skipped] = rec["skipped"]
    assert skipped["reason"].startswith("abandoned: seat 2 sent nothing in time"), skipped
