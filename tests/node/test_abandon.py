"""A seat that never answers is named in an abandon record the others co-sign; every node
ends with the same transcript, which verifies as abandoned, not as a finished game."""

import random

import trio

from node.game import GameNode
from node.store import GameStore
from protocol import abandon, transcript, wire
from protocol.session import Session
from protocol.verify import verify_bytes
from tests.fixture_game import ENGINE
from tests.helpers import make_genesis
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
    with trio.fail_after(30):
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
