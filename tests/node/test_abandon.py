"""A seat that never answers is named in an abandon record the others co-sign; every node
ends with the same transcript, which verifies as abandoned, not as a finished game."""

import random

import trio

from node.app.game import GameNode
from node.storage.store import GameStore
from protocol import abandon, transcript, wire
from protocol.session import Session
from protocol.verify import verify_bytes
from tests.fixture_game import ENGINE
from tests.helpers import make_genesis, timeout as scaled
from tests.node.conftest import bot_decider


async def test_a_stalled_seat_is_abandoned(tmp_path):
    keys, secrets, genesis = make_genesis("fixture", {"rounds": 3}, 3, random.Random(4), beacon_length=512)
    # rebuild the genesis with a 1-second time limit
    from protocol import genesis as G
    body = G.make_body("fixture", {"rounds": 3}, genesis.seats, genesis.beacon_tips, genesis.nonce, 512, time_limit=1)
    raw = G.Genesis("fixture", {"rounds": 3}, genesis.seats, genesis.beacon_tips, 512, genesis.nonce, body,
                    [G.sign(k, body) for k in keys], 1).to_wire()
    gen = G.parse(raw)
    ports: dict[int, tuple[str, int]] = {}
    moves = {"n": 0}

    async def stalls_after_two(view, legal, kind):
        moves["n"] += 1
        if moves["n"] > 2:
            await trio.sleep_forever()
        return legal[0]

    nodes = []
    with trio.fail_after(scaled(30)):
        async with trio.open_nursery() as nursery:
            for i in range(3):
                d = tmp_path / f"n{i}"
                store = GameStore.create(d, raw, gen.game_id, {"secret": secrets[i], "committed": wire.encode([])}, {})
                decider = stalls_after_two if i == 2 else bot_decider(i)
                node = GameNode(store, keys[i], decider, ("127.0.0.1", 0), ports)
                nodes.append(node)
                ports[i] = ("127.0.0.1", await nursery.start(lambda task_status, n=node: n.run(task_status=task_status)))
    files = [(tmp_path / f"n{i}" / "games" / gen.game_id.hex() / "transcript.caravan").read_bytes() for i in range(3)]
    assert len(set(files)) == 1
    g, frames = transcript.load(files[0])
    stalled, length, sigs = abandon.parse_record(frames[-1])
    assert stalled == [2] and sorted(sigs) == [0, 1] and length == len(frames) - 1
    s = Session(gen, ENGINE)
    for m in frames[:-1]:
        s.receive(m)
    abandon.check(s, stalled, length, sigs)
    assert not s.complete
    report = verify_bytes(files[0])
    assert report.valid and not report.complete and report.abandoned_by == [2]
    assert report.error["code"] == "abandoned"
    # a forged record (a signature removed, or one seat's signature replaced) is invalid
    forged = transcript.dump(g, frames[:-1] + [abandon.record([2], length, {0: sigs[0]})])
    assert verify_bytes(forged).error["code"] == "bad-abandon"
    forged = transcript.dump(g, frames[:-1] + [abandon.record([2], length, {0: sigs[0], 1: sigs[0]})])
    bad = verify_bytes(forged)
    assert not bad.valid and bad.error["seat"] == 1 and bad.error["code"] == "bad-signature"
    # a record that names a seat the game was not waiting for
    forged = transcript.dump(g, frames[:-1] + [abandon.record([1], length, {0: sigs[0], 2: sigs[0]})])
    assert verify_bytes(forged).error["code"] == "bad-abandon"


def test_a_record_made_inside_a_joint_step_verifies():
    """Seats 0 and 1 have sent their part of a joint step (pending, not logged) and seat 2
    has not: the statement covers the pending parts too, so the record verifies; the old
    statement over the logged messages alone named seats the verifier did not see waited for."""
    from tests.helpers import new_table, play
    table = new_table(ENGINE, 3, seed=5)
    found = play(table, lambda seat, legal: legal[0], stop=lambda seat, d: seat == 2 and d.kind == "commit")
    assert found is not None
    s = table.sessions[0]
    assert sorted(s.pending) == [0, 1] and s.waiting_for() == [2]
    frames = abandon.state_frames(s)
    assert len(frames) == len(s.log) + 2
    digest = abandon.log_digest(frames)
    sigs = {i: abandon.sign(table.keys[i], s.game_id, [2], len(frames), digest) for i in (0, 1)}
    good = transcript.dump(table.genesis.to_wire(), frames + [abandon.record([2], len(frames), sigs)])
    report = verify_bytes(good)
    assert report.valid and report.abandoned_by == [2], report.error
    # every replica of the two live seats computes the same statement
    assert abandon.state_frames(table.sessions[1]) == frames
    # the statement over the logged messages alone does not verify (the bug this replaces)
    short = abandon.log_digest(s.log)
    old = {i: abandon.sign(table.keys[i], s.game_id, [2], len(s.log), short) for i in (0, 1)}
    bad = verify_bytes(transcript.dump(table.genesis.to_wire(), s.log + [abandon.record([2], len(s.log), old)]))
    assert not bad.valid and bad.error["code"] == "bad-abandon"


def test_a_record_where_the_lowest_seat_stalls_inside_a_joint_step_verifies():
    """Seats 1 and 2 have sent their part of a joint step and seat 0 has not: the record's
    state frames hold seats 1 and 2's parts in seat order, which is the canonical order even
    though seat 0's part never came (found over an MQTT relay that lost seat 0's messages:
    verify called the record's file "bad-order")."""
    from tests.helpers import new_table
    table = new_table(ENGINE, 3, seed=5)
    sessions, players = table.sessions, table.players
    silent = False
    for _ in range(1000):
        if silent and sorted(sessions[1].pending) == [1, 2]:
            break
        for seat, p in enumerate(players):
            if silent and seat == 0:
                continue
            out = p.automatic()
            d = p.decision()
            if d is not None and seat == 0 and d.kind == "commit":
                silent = True                  # seat 0 goes quiet at its first commitment
                d = None
            if d is not None:
                out.append(p.decide(d.legal[0]))
                out.extend(p.automatic())
            for raw in out:
                for other in range(3):
                    if other != seat:
                        sessions[other].receive(raw)
    s = sessions[1]
    assert sorted(s.pending) == [1, 2] and s.waiting_for() == [0]
    frames = abandon.state_frames(s)
    assert abandon.state_frames(sessions[2]) == frames
    digest = abandon.log_digest(frames)
    sigs = {i: abandon.sign(table.keys[i], s.game_id, [0], len(frames), digest) for i in (1, 2)}
    report = verify_bytes(transcript.dump(table.genesis.to_wire(), frames + [abandon.record([0], len(frames), sigs)]))
    assert report.valid and report.abandoned_by == [0], report.error
    # the parts out of seat order are still refused: one canonical file per game
    swapped = frames[:-2] + [frames[-1], frames[-2]]
    bad = verify_bytes(transcript.dump(table.genesis.to_wire(), swapped + [abandon.record([0], len(frames), sigs)]))
    assert not bad.valid and bad.error["code"] == "bad-order", bad.error


def test_no_record_at_the_final_signatures():
    """A stall at the final signatures cannot be abandoned: a late final would complete the
    game beside the record (two outcomes)."""
    from tests.helpers import new_table, play
    table = new_table(ENGINE, 3, seed=6)
    found = play(table, lambda seat, legal: legal[0])
    assert found is None and table.sessions[0].complete
    # rebuild the state just before seat 2's final: replay all but the last finals
    s = Session(table.genesis, ENGINE)
    log = table.sessions[0].log
    finals = [i for i, raw in enumerate(log) if abandon.wire.decode(abandon.wire.decode(raw)[0])[6] == "final"]
    for raw in log[:finals[0]] + [log[f] for f in finals[:2]]:
        s.receive(raw)
    assert s.need.kind == "final" and s.waiting_for() == [2]
    assert abandon.stalled_seats(s) == []
    frames = abandon.state_frames(s)
    digest = abandon.log_digest(frames)
    sigs = {i: abandon.sign(table.keys[i], s.game_id, [2], len(frames), digest) for i in (0, 1)}
    bad = verify_bytes(transcript.dump(table.genesis.to_wire(), frames + [abandon.record([2], len(frames), sigs)]))
    assert not bad.valid and bad.error["code"] == "bad-abandon"
