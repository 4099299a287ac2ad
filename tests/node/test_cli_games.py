"""`caravan games`: each stored game's state read from its files, without changing them."""

from node.storage.stored import stored_games
from node.storage.store import GameStore
from protocol import genesis as G, transcript
from tests.node.procs import ROOT

VECTOR = ROOT / "specs" / "vectors" / "fixture-2p.caravan"


def _store(data_dir, messages, with_transcript=False, torn=b"") -> GameStore:
    genesis_raw, _ = transcript.load(VECTOR.read_bytes())
    gid = G.parse(genesis_raw).game_id
    store = GameStore.create(data_dir, genesis_raw, gid, {"secret": b"s" * 32}, {"peers": {}, "names": {"1": "Ada"}})
    for raw in messages:
        store.append(raw)
    store.close()
    with open(store.dir / "messages.log", "ab") as fh:
        fh.write(torn)
    if with_transcript:
        store.write_transcript(genesis_raw, messages)
    return store


def test_states_from_the_stored_files(tmp_path):
    from protocol import games
    from tests.fixture_game import ENGINE
    games.register(ENGINE)
    _, messages = transcript.load(VECTOR.read_bytes())

    store = _store(tmp_path / "half", messages[:len(messages) // 2], torn=b"\x00\x00\x01\x00partial")
    size = (store.dir / "messages.log").stat().st_size
    [half] = stored_games(tmp_path / "half")
    assert half.state == "playing" and half.waiting_for and half.transcript is None
    assert f"caravan resume {half.game_id[:16]}" in half.detail and 0 < half.messages <= len(messages) // 2
    assert half.names[1] == "Ada" and "-" in half.names[0]             # a name where known, else a fingerprint
    assert (store.dir / "messages.log").stat().st_size == size          # the torn tail is skipped, not cut

    _store(tmp_path / "ended", messages)
    [ended] = stored_games(tmp_path / "ended")
    assert ended.state == "finished" and ended.transcript is None and "resume" in ended.detail

    store = _store(tmp_path / "done", messages, with_transcript=True)
    [done] = stored_games(tmp_path / "done")
    assert done.state == "finished" and done.transcript == str(store.dir / "transcript.caravan")
    assert done.result["winners"] and done.detail.startswith("won by seat")

    (store.dir / "genesis.bin").write_bytes(b"garbage")
    [damaged] = stored_games(tmp_path / "done")
    assert damaged.state == "damaged"
    assert stored_games(tmp_path / "nothing-here") == []


def test_an_abandoned_game_is_listed_as_abandoned(tmp_path):
    """A stored transcript that ends in a valid abandon record: `caravan games` says
    "abandoned" and why (the stalled seat), not "playing" or "finished"."""
    from protocol import abandon
    from tests.fixture_game import ENGINE
    from tests.helpers import new_table, play
    table = new_table(ENGINE, 3, seed=5)
    assert play(table, lambda seat, legal: legal[0], stop=lambda seat, d: seat == 2 and d.kind == "commit")
    s = table.sessions[0]
    frames = abandon.state_frames(s)
    sigs = {i: abandon.sign(table.keys[i], s.game_id, [2], len(frames), abandon.log_digest(frames)) for i in (0, 1)}
    genesis_raw = table.genesis.to_wire()
    store = GameStore.create(tmp_path, genesis_raw, s.game_id, {"secret": b"s" * 32}, {"peers": {}})
    for raw in s.log:
        store.append(raw)
    store.close()
    (store.dir / "transcript.caravan").write_bytes(
        transcript.dump(genesis_raw, frames + [abandon.record([2], len(frames), sigs)]))
    [entry] = stored_games(tmp_path)
    assert entry.state == "abandoned" and "seat 2 sent nothing" in entry.detail, entry
    assert entry.transcript == str(store.dir / "transcript.caravan")

    (store.dir / "transcript.caravan").write_bytes(
        transcript.dump(genesis_raw, frames + [abandon.record([2], len(frames), {0: sigs[0]})]))
    [entry] = stored_games(tmp_path)            # a record one seat signed alone is no record
    assert entry.state == "playing", entry


def test_a_stored_game_says_whom_it_waits_for_and_for_what(tmp_path):
    """A person's decision ("seat 1: a move", and "you" with my_move for one's own) is told
    apart from a step a node takes by itself ("seat 0's node: a reveal"): it is a node that
    is not running, not its player, that holds such a game up (issue 33)."""
    from node.storage.stored import describe
    from protocol import games
    from protocol.session import Session
    from tests.fixture_game import ENGINE
    games.register(ENGINE)
    genesis_raw, messages = transcript.load(VECTOR.read_bytes())
    genesis = G.parse(genesis_raw)
    person = automatic = None
    session = Session(genesis, ENGINE)
    for n, raw in enumerate(messages):
        if session.need is not None and len(session.waiting_for()) == 1:
            if session.needs_a_person() and person is None:
                person = (n, session.waiting_for()[0], session.need_words())
            elif not session.needs_a_person() and automatic is None:
                automatic = (n, session.waiting_for()[0], session.need_words())
        session.receive(raw)
    assert person and automatic, "the vector has both kinds of wait"

    n, seat, what = person
    store = _store(tmp_path / "mine", messages[:n])
    mine = describe(store.dir, genesis.seats[seat])
    assert mine.my_move and mine.detail.startswith(f"waiting for you: {what};"), mine.detail
    theirs = describe(store.dir, genesis.seats[1 - seat])
    assert not theirs.my_move and theirs.detail.startswith(f"waiting for seat {seat}: {what};"), theirs.detail

    n, seat, what = automatic
    store = _store(tmp_path / "node", messages[:n])
    other = describe(store.dir, genesis.seats[1 - seat])
    assert not other.my_move and other.detail.startswith(f"waiting for seat {seat}'s node: {what};"), other.detail
    own = describe(store.dir, genesis.seats[seat])
    assert not own.my_move and own.detail.startswith(f"waiting for your node: {what};"), own.detail
