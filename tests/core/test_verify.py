"""`caravan verify` on a finished transcript, and on transcripts tampered in many ways."""

import json

import pytest

from node.cli.main import main
from protocol import chain, games, genesis as G, transcript
from protocol.identity import SigningKey, fingerprint
from protocol.verify import verify_bytes
from tests.core.conftest import finished_table
from tests.core.test_session import first_index, resign
from tests.games.pick import games_with
from tests.helpers import make_genesis


@pytest.fixture(scope="module")
def t():
    return finished_table(4, seed=21)


def parts(t):
    return t.genesis.to_wire(), list(t.sessions[0].log)


def check(data: bytes, position: int, code: str, seat: int | None, t):
    r = verify_bytes(data)
    assert not r.ok
    assert r.error["code"] == code, r.error
    assert r.error["position"] == position, r.error
    assert r.error["seat"] == seat, r.error
    if seat is not None:
        assert r.error["fingerprint"] == fingerprint(t.genesis.seats[seat])
    return r


def seat_of(t, raw):
    return t.genesis.seats.index(chain.parse(raw).author)


def test_valid_transcript(t, tmp_path, capsys):
    g, log = parts(t)
    path = tmp_path / "game.caravan"
    path.write_bytes(transcript.dump(g, log))
    assert main(["verify", str(path)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("VALID") and "seat 3" in out and "won by" in out
    assert main(["verify", str(path), "--json"]) == 0
    obj = json.loads(capsys.readouterr().out)
    assert obj["valid"] and obj["complete"] and obj["game"] == "fixture" and obj["error"] is None
    assert obj["result"] == t.sessions[0].result() and len(obj["seats"]) == 4


def test_flipped_byte(t):
    g, log = parts(t)
    k = 9
    b = bytearray(log[k])
    b[-5] ^= 0x40                                  # in the signature
    check(transcript.dump(g, log[:k] + [bytes(b)] + log[k + 1:]), k + 1, "bad-signature", seat_of(t, log[k]), t)


def test_dropped_message(t):
    g, log = parts(t)
    k = first_index(t, "act")
    r = verify_bytes(transcript.dump(g, log[:k] + log[k + 1:]))
    assert not r.valid and r.error["position"] == k + 1
    # the file's gap is named, not the seat whose message comes next (issue 16, item 8)
    assert r.error["code"] in ("gap", "bad-order") and r.error["seat"] is None, r.error


def test_duplicated_message(t):
    g, log = parts(t)
    check(transcript.dump(g, log[:6] + [log[5]] + log[6:]), 7, "duplicate", None, t)


def test_reordered_messages(t):
    g, log = parts(t)
    k = first_index(t, "act")
    swapped = log[:k] + [log[k + 1], log[k]] + log[k + 2:]
    r = verify_bytes(transcript.dump(g, swapped))
    # a reordered file is the file's fault, not a signer's (issue 16, items 6 and 8)
    assert not r.valid and r.error["position"] == k + 1 and r.error["seat"] is None, r.error
    assert r.error["code"] in ("gap", "bad-order"), r.error


def test_message_spliced_from_another_game(t):
    g, log = parts(t)
    # the same four people play a second game (other options, so another game id)
    k = 5
    import random
    from tests.fixture_game import ENGINE
    from tests.helpers import Table, play
    from protocol.session import Session
    from protocol.player import Player
    keys, secrets, gen2 = make_genesis("fixture", {"rounds": 3}, 4, random.Random(21))
    assert [k_.public for k_ in keys] == t.genesis.seats
    sessions = [Session(gen2, ENGINE) for _ in range(4)]
    t2 = Table(keys, secrets, gen2, sessions, [Player(sessions[i], i, keys[i], secrets[i]) for i in range(4)])
    rng = random.Random(0)
    play(t2, lambda seat, legal: rng.choice(legal))
    foreign = t2.sessions[0].log[k]
    check(transcript.dump(g, log[:k] + [foreign] + log[k + 1:]), k + 1, "wrong-game", seat_of(t, foreign), t)


def test_forged_equivocation_is_a_bad_signature_not_an_accusation(t):
    g, log = parts(t)
    k = first_index(t, "act")
    env, sig = chain.wire.decode(log[k])
    m = chain.parse(log[k])
    # same author and seq, other body, but the original signature: a forgery
    forged_env = chain.wire.encode([1, m.game_id, m.author, m.seq, m.prev, m.refs, m.kind,
                                    {"a": "reroll" if m.body["a"] == "keep" else "keep", "o": []}])
    forged = chain.wire.encode([forged_env, sig])
    check(transcript.dump(g, log[:k + 1] + [forged] + log[k + 1:]), k + 2, "bad-signature", seat_of(t, log[k]), t)


def test_real_equivocation_is_named(t):
    g, log = parts(t)
    k = first_index(t, "act")
    m = chain.parse(log[k])
    twin = resign(t, log[k], body={"a": "reroll" if m.body["a"] == "keep" else "keep", "o": []})
    check(transcript.dump(g, log[:k + 1] + [twin] + log[k + 1:]), k + 2, "equivocation", seat_of(t, log[k]), t)


def test_wrong_opening(t):
    g, log = parts(t)
    k = first_index(t, "reveal")
    m = chain.parse(log[k])
    bad = resign(t, log[k], body={"v": m.body["v"] % 3 + 1, "s": m.body["s"]})
    check(transcript.dump(g, log[:k] + [bad] + log[k + 1:]), k + 1, "bad-opening", seat_of(t, log[k]), t)


def test_wrong_beacon_preimage(t):
    g, log = parts(t)
    k = first_index(t, "beacon")
    m = chain.parse(log[k])
    bad = resign(t, log[k], body={"k": m.body["k"], "x": bytes(32)})
    check(transcript.dump(g, log[:k] + [bad] + log[k + 1:]), k + 1, "bad-beacon", seat_of(t, log[k]), t)


def test_illegal_move_signed_by_its_author(t):
    g, log = parts(t)
    k = first_index(t, "act")
    bad = resign(t, log[k], body={"a": "double", "o": []})
    r = check(transcript.dump(g, log[:k] + [bad] + log[k + 1:]), k + 1, "illegal-move", seat_of(t, log[k]), t)
    assert "keep or reroll" in r.error["reason"]


def test_message_by_a_non_seat_key(t):
    g, log = parts(t)
    outsider = SigningKey.from_seed(b"\x42" * 32)
    m = chain.parse(log[3])
    bad = chain.seal(outsider, m.game_id, m.seq, m.prev, m.refs, m.kind, m.body).raw
    check(transcript.dump(g, log[:3] + [bad] + log[4:]), 4, "unknown-author", None, t)


def test_bad_genesis_signature(t):
    _, log = parts(t)
    gen = t.genesis
    sigs = list(gen.signatures)
    sigs[2] = bytes(64)
    bad = G.Genesis(gen.game, gen.options, gen.seats, gen.beacon_tips, gen.beacon_length, gen.nonce,
                    gen.body, sigs).to_wire()
    check(transcript.dump(bad, log), 0, "bad-genesis", 2, t)


def test_forged_final_state(t):
    g, log = parts(t)
    k = first_index(t, "final")
    m = chain.parse(log[k])
    bad = resign(t, log[k], body={"state": bytes(32), "result": m.body["result"]})
    check(transcript.dump(g, log[:k] + [bad] + log[k + 1:]), k + 1, "bad-final", seat_of(t, log[k]), t)


def test_unfinished_game_names_whom_it_waits_for(t, tmp_path, capsys):
    g, log = parts(t)
    k = first_index(t, "act")
    waiting = seat_of(t, log[k])
    r = verify_bytes(transcript.dump(g, log[:k]))
    assert r.valid and not r.complete and r.waiting_for == [waiting]
    path = tmp_path / "half.caravan"
    path.write_bytes(transcript.dump(g, log[:k]))
    assert main(["verify", str(path)]) == 1
    out = capsys.readouterr().out
    assert out.startswith("UNFINISHED") and f"a move from seat {waiting}" in out


def test_truncated_file_and_garbage_are_invalid_not_crashes(t, tmp_path, capsys):
    g, log = parts(t)
    data = transcript.dump(g, log)
    # 1: a readable transcript that is invalid; 2: not a readable transcript (specs/cli.md)
    for bad, code in ((data[:-7], 2), (b"not a transcript", 2), (transcript.MAGIC + b"\x00\x00\x00\x03abc", 1)):
        path = tmp_path / "bad.caravan"
        path.write_bytes(bad)
        assert main(["verify", str(path), "--json"]) == code
        obj = json.loads(capsys.readouterr().out)
        assert obj["valid"] is False and obj["error"]["reason"]


def test_every_unreadable_file_exits_2_wherever_it_breaks(t, tmp_path, capsys):
    """Issue 23 P2: an oversized or torn frame after a good genesis is as unreadable as bad
    magic (code `unreadable`, no seat named) and exits 2 like it; it used to exit 1."""
    g, log = parts(t)
    good = transcript.dump(g, log[:3])
    oversized = good + (transcript.MAX_FRAME + 1).to_bytes(4, "big") + b"x" * 16
    for bad, position in ((oversized, 4), (good[:-1], 3), (transcript.MAGIC + b"\x00\x00", 0)):
        path = tmp_path / "bad.caravan"
        path.write_bytes(bad)
        assert main(["verify", str(path), "--json"]) == 2
        obj = json.loads(capsys.readouterr().out)
        assert obj["error"]["code"] == "unreadable" and obj["error"]["seat"] is None
        assert obj["error"]["position"] == position
        assert main(["verify", str(path)]) == 2
        assert "not a readable Caravan transcript" in capsys.readouterr().err


def test_unsorted_or_repeated_refs_are_malformed_naming_nobody(t):
    """specs/protocol.md §14 P1: refs out of seat order (or a seat twice) are refused by the
    parser, before the signature: `malformed`, no seat; a ref to the author's own seat is
    `bad-chain` naming the author."""
    g, log = parts(t)
    k = next(i for i, raw in enumerate(log) if len(chain.parse(raw).refs) >= 2)
    refs = chain.parse(log[k]).refs
    for bad_refs in (refs[::-1], [refs[0], refs[0]] + refs[1:]):
        check(transcript.dump(g, log[:k] + [resign(t, log[k], refs=bad_refs)]), k + 1, "malformed", None, t)
    author = seat_of(t, log[k])
    own = sorted(refs + [[author, 0, chain.parse(log[k]).prev]], key=lambda r: r[0])
    check(transcript.dump(g, log[:k] + [resign(t, log[k], refs=own)]), k + 1, "bad-chain", author, t)


def test_messages_count_and_the_position_of_incomplete(t):
    """§14 P3, P4: `messages` counts every frame after the genesis, valid or not; `incomplete`
    stands where the next message would."""
    g, log = parts(t)
    r = verify_bytes(transcript.dump(g, log[:10]))
    assert (r.messages, r.error["code"], r.error["position"], r.error["seat"]) == (10, "incomplete", 11, None)
    flipped = bytearray(log[3])
    flipped[-5] ^= 0x40
    r = verify_bytes(transcript.dump(g, log[:3] + [bytes(flipped)] + log[4:10]))
    assert (r.messages, r.error["position"]) == (10, 4)
    assert verify_bytes(transcript.dump(g, log[:3])[:-1]).messages == 0      # unreadable


def test_partial_genesis_options_mean_defaults_and_refused_ones_blame_nobody():
    """§14 P5: a genesis naming only some options is valid (defaults for the rest); an
    unknown option or value refuses the whole genesis as `bad-genesis`, no seat named."""
    import random

    rng = random.Random(5)
    game = next(g for g in games_with(players=2) if len(games.get(g).default_options(2)) > 1)
    key, value = next(iter(games.get(game).default_options(2).items()))
    _, _, partial_genesis = make_genesis(game, {key: value}, 2, rng)
    r = verify_bytes(transcript.dump(partial_genesis.to_wire(), []))
    assert r.valid and r.error["code"] == "incomplete"
    for options in ({key: {"no": "such value"}}, {"no_such_option": 1}):
        _, _, g = make_genesis(game, options, 2, rng)
        r = verify_bytes(transcript.dump(g.to_wire(), []))
        assert (r.valid, r.error["code"], r.error["position"], r.error["seat"]) == (False, "bad-genesis", 0, None)


def test_usage_errors_exit_2(tmp_path, capsys):
    assert main(["verify", str(tmp_path / "missing.caravan")]) == 2
    assert "cannot open" in capsys.readouterr().err
    assert main(["verify"]) == 2
    assert main(["frobnicate"]) == 2           # (no command at all opens the home: caravan app)


def test_an_engine_bug_is_reported_as_such_not_blamed_on_a_player(t):
    from tests.fixture_game import DiceDuel

    class Broken(DiceDuel):
        def expected(self, s):
            if s.phase == "bet":
                return "not a step"
            return super().expected(s)

    g, log = parts(t)
    r = verify_bytes(transcript.dump(g, log), lambda name: Broken())
    assert not r.valid and r.error["code"] == "engine-fault" and r.error["seat"] is None
    assert "bug" in r.error["reason"]
