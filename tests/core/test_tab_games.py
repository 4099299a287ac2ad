"""The tab's game store (clients/tab/py/tab_games.py) in CPython, its data folder in tmp_path
behind a stand-in for the worker's IDBFS: writes land in a memory folder, `sync()` copies it
to the "IndexedDB" folder, and a reload puts back only what was synced. A stored game comes
back whole; a torn last record is dropped and other damage names the file; a TabSeat stopped
as its commitment leaves and rebuilt from its store finishes the game with the others, with
identical transcripts that verify, never having signed two different messages at one seq."""

from __future__ import annotations

import asyncio
import random
import shutil
import sys
import time
from pathlib import Path

import pytest

from clients.bot import make_bot
from protocol import chain, games, message_log
from protocol.verify import verify_bytes
from tests.helpers import timeout, wait_until_asyncio
from tests.tab_seats import N, Net, genesis, seat, tab_module, tab_seat

tab_module("tab_backup", "tab_backup")
tab_store = tab_module("tab_store", "tab_store")
tab_games = tab_module("tab_games", "tab_games")


class FakeIDB:
    """The worker's `_caravan_store` (worker.js mountStore): `dir` is in memory, `sync()` writes
    it to IndexedDB; `reload()` is the page reloaded (memory lost, IndexedDB read back)."""
    busy = None

    def __init__(self, tmp: Path):
        self.mem, self.saved = tmp / "mem", tmp / "idb"
        self.mem.mkdir()
        self.dir = str(self.mem)
        self.syncs = 0

    async def sync(self) -> None:
        await asyncio.sleep(0)                               # IndexedDB answers later (a reload may come first)
        shutil.rmtree(self.saved, ignore_errors=True)
        shutil.copytree(self.mem, self.saved)
        self.syncs += 1

    def reload(self) -> None:
        shutil.rmtree(self.mem)
        shutil.copytree(self.saved, self.mem) if self.saved.exists() else self.mem.mkdir()


@pytest.fixture
def idb(tmp_path, monkeypatch) -> FakeIDB:
    fake = FakeIDB(tmp_path)
    monkeypatch.setitem(sys.modules, "_caravan_store", fake)
    return fake


def stored(seed: int = 3):
    keys, secrets, g = genesis(seed)
    game = tab_games.create(g.to_wire(), 0, secrets[0], ["ann", "bob", "cy"], "ws://broker:9001")
    return keys, secrets, g, game


def test_a_stored_game_comes_back_after_a_reload_with_what_was_flushed(idb):
    keys, secrets, g, game = stored()
    game.append(b"first message")
    game.append(b"second")
    assert game.save_committed(b"committed values") and not game.save_committed(b"committed values")
    asyncio.run(game.flush())
    game.append(b"never flushed")
    idb.reload()
    back = tab_games.load(g.game_id.hex()[:10])
    assert back.genesis() == g.to_wire() and back.messages() == [b"first message", b"second"]
    assert back.secrets() == {"secret": secrets[0], "committed": b"committed values"}
    assert back.meta() == {"seat": 0, "names": ["ann", "bob", "cy"], "broker": "ws://broker:9001"}
    [summary] = tab_games.games()
    assert summary == {"game_id": g.game_id.hex(), "game": g.game, "title": games.get(g.game).title, "pace": "",
                       "seat": 0, "names": ["ann", "bob", "cy"], "broker": "ws://broker:9001", "messages": 2}
    assert secrets[0].hex() not in repr(summary)
    with pytest.raises(ValueError, match="stored in this tab already: resume it"):
        tab_games.create(g.to_wire(), 0, secrets[0], [], None)
    with pytest.raises(LookupError, match="no stored game 'ffff'"):
        tab_games.load("ffff")
    with pytest.raises(LookupError, match=r"'\*' is not a game id"):
        tab_games.load("*")


def test_a_torn_last_record_is_dropped_and_other_damage_names_the_file(idb):
    _, _, g, game = stored()
    for raw in (b"one", b"two", b"three"):
        game.append(raw)
    log = game.dir / "messages.log"
    whole = log.read_bytes()
    log.write_bytes(whole[:-2])                              # a crash mid-write: the last record cut short
    assert tab_games.load(g.game_id).messages() == [b"one", b"two"]
    log.write_bytes(whole[:-1] + bytes([whole[-1] ^ 1]))     # the last record torn (fails its checksum)
    assert tab_games.load(g.game_id).messages() == [b"one", b"two"]
    log.write_bytes(whole + bytes(12))                       # zeros a crash left
    assert tab_games.load(g.game_id).messages() == [b"one", b"two", b"three"]
    bad = bytearray(whole)
    bad[len(message_log.MAGIC) + 8] ^= 1                     # the first record damaged, more after it
    log.write_bytes(bytes(bad))
    with pytest.raises(tab_games.GameFileError, match=rf"{log} is damaged at offset {len(message_log.MAGIC)} "):
        tab_games.load(g.game_id)
    log.write_bytes(whole)
    for name, junk, why in (("meta.json", b"{", "not JSON"), ("secrets.bin", b"\xc1", "malformed msgpack"),
                            ("genesis.bin", b"junk", "")):
        path = game.dir / name
        kept = path.read_bytes()
        path.write_bytes(junk)
        with pytest.raises(tab_games.GameFileError, match=rf"^{path} is damaged.*{why}"):
            tab_games.load(g.game_id)
        [listed] = tab_games.games()
        assert listed["game_id"] == g.game_id.hex() and listed["error"].startswith(f"{path} is damaged"), listed
        path.write_bytes(kept)
    (game.dir / "secrets.bin").unlink()
    with pytest.raises(tab_games.GameFileError, match=rf"^{game.dir / 'secrets.bin'} is missing$"):
        tab_games.load(g.game_id)


def test_a_seat_stopped_as_its_commitment_leaves_and_rebuilt_from_its_store_finishes_the_game(idb):
    """Seat 0 is stopped as its first commitment (a choice made in secret) leaves (the page
    reloaded): what it had not flushed is lost. Rebuilt from its store with another bot, it
    replays its log and plays on, revealing the value it committed to (kept before the
    commitment left), and never signs a second message at a seq it used."""
    seed = 11
    keys, secrets, g = genesis(seed)
    net = Net(random.Random(seed), delay=0.005)
    sent: dict[int, set[bytes]] = {}
    stop, running, commitment = asyncio.Event(), [], []
    carry = net.carry

    def watching(src: int, dst: int, frame: dict) -> None:
        if src == 0 and frame.get("t") == "msg":
            msg = chain.parse(frame["m"])
            if msg.author == keys[0].public:
                sent.setdefault(msg.seq, set()).add(frame["m"])
                if msg.kind == "commit" and not stop.is_set():
                    commitment.append(frame["m"])
                    running[0].cancel()                      # the page reloads as this commitment leaves
                    stop.set()
        carry(src, dst, frame)

    net.carry = watching
    game = tab_games.create(g.to_wire(), 0, secrets[0], ["tab", "b", "c"], None)
    first = tab_seat.TabSeat(g.to_wire(), keys[0], secrets[0],
                             tab_seat.bot_decider(make_bot("random", g.game, seed=1)), net.links(0),
                             time.monotonic, sync_interval=0.02, linger=2.0, store=game)
    others = [seat(g, keys, secrets, i, net.links(i), seed) for i in (1, 2)]

    async def main() -> tab_seat.TabSeat:
        playing = [asyncio.ensure_future(s.run()) for s in others]
        task = asyncio.ensure_future(first.run())
        running.append(task)
        await asyncio.wait_for(stop.wait(), timeout(60))
        await asyncio.gather(task, return_exceptions=True)
        assert first.outcome is None
        idb.reload()
        await wait_until_asyncio(lambda: all(commitment[0] in s.session.log for s in others), 10,
                                 "the others to go on with the commitment that left")
        again = tab_seat.TabSeat.resume(tab_games.load(g.game_id), keys[0],
                                        tab_seat.bot_decider(make_bot("random", g.game, seed=999)),
                                        net.links(0), time.monotonic, sync_interval=0.02, linger=2.0)
        assert again.replayed >= 1
        await asyncio.wait_for(asyncio.gather(again.run(), *playing), timeout(90))
        return again

    again = asyncio.run(main())
    seats = [again] + others
    assert [s.outcome.kind for s in seats] == ["complete"] * N, [s.outcome for s in seats]
    assert {s.transcript() for s in seats} == {others[0].transcript()}
    report = verify_bytes(again.transcript())
    assert report.ok and report.complete, report.to_json()
    assert all(len(raws) == 1 for raws in sent.values()), {seq: len(r) for seq, r in sent.items()}
    assert len(tab_games.load(g.game_id).messages()) == len(again.session.log)


def test_a_seat_stopped_as_its_abandon_signature_leaves_still_holds_it_when_resumed(idb):
    """Seat 2 stops early; seats 0 and 1 propose to abandon it and sign. Seat 0 is stopped as
    its signature leaves (the page reloaded): rebuilt from its store, it holds that
    signature (kept and flushed before it left) and signs no move past it."""
    seed = 4
    keys, secrets, g = genesis(seed, time_limit=1)
    net = Net(random.Random(seed), delay=0.005)
    stop, running = asyncio.Event(), []
    carry = net.carry

    def watching(src: int, dst: int, frame: dict) -> None:
        signs = frame.get("t") == "record" or (frame.get("t") == "abandon" and frame.get("by") == 0)
        if src == 0 and signs and not stop.is_set():      # its vote, or the record it is in
            running[0].cancel()                              # the page reloads as the signature leaves
            stop.set()
        carry(src, dst, frame)

    net.carry = watching
    game = tab_games.create(g.to_wire(), 0, secrets[0], ["tab", "b", "c"], None)
    first = tab_seat.TabSeat(g.to_wire(), keys[0], secrets[0],
                             tab_seat.bot_decider(make_bot("random", g.game, seed=1)), net.links(0),
                             time.monotonic, sync_interval=0.02, linger=2.0, store=game)
    others = [seat(g, keys, secrets, i, net.links(i), seed) for i in (1, 2)]

    async def main() -> tab_seat.TabSeat:
        playing = [asyncio.ensure_future(s.run()) for s in others]
        running.append(asyncio.ensure_future(first.run()))
        await wait_until_asyncio(lambda: len(others[1].session.log) >= 2, 30, "seat 2 to play a while")
        playing[1].cancel()                                  # seat 2 is gone
        await asyncio.wait_for(stop.wait(), timeout(60))
        await asyncio.gather(running[0], return_exceptions=True)
        for task in playing:
            task.cancel()
        await asyncio.gather(*playing, return_exceptions=True)
        idb.reload()
        return tab_seat.TabSeat.resume(tab_games.load(g.game_id), keys[0],
                                       tab_seat.bot_decider(make_bot("random", g.game, seed=999)),
                                       net.links(0), time.monotonic, sync_interval=0.02, linger=2.0)

    again = asyncio.run(main())
    signature = first.ballot.votes[first.ballot.vote.counts][0]
    assert again.ballot.vote is not None and again.ballot.vote.stalled == (2,)
    assert again.ballot.votes[again.ballot.vote.counts][0] == signature
    assert not again.turn.may_sign()
    assert tab_games.load(g.game_id).votes().vote["sig"] == signature


def test_a_turn_based_seat_holds_its_state_since_when_it_first_did_across_a_resume(idb, monkeypatch):
    """A turn-based table's silence is measured across reloads: the held-since time is kept
    on the wall clock and, resumed an hour later, the seat has held its state for an hour."""
    keys, secrets, g = genesis(6, time_limit=3600, pace="turn-based")
    wall, clock = [1_800_000_000.0], [0.0]
    monkeypatch.setattr(tab_seat, "time", type("WallClock", (), {"time": staticmethod(lambda: wall[0])}))
    game = tab_games.create(g.to_wire(), 0, secrets[0], ["tab", "b", "c"], None)
    net = Net(random.Random(6))

    def on_store(path: Path) -> bool:
        try:
            return tab_games.StoredGame(path).votes().held is not None
        except tab_games.GameFileError:
            return False

    async def main() -> None:
        first = tab_seat.TabSeat.resume(game, keys[0], tab_seat.bot_decider(make_bot("random", g.game, seed=1)),
                                        net.links(0), lambda: clock[0], sync_interval=0.02)
        task = asyncio.ensure_future(first.run())
        await wait_until_asyncio(lambda: on_store(idb.saved / "games" / g.game_id.hex()), 20,
                                 "the held-since time to be flushed")
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)

    asyncio.run(main())
    idb.reload()
    kept = tab_games.load(g.game_id)
    assert kept.votes().held == ([0, 0, 0], 1_800_000_000_000)
    wall[0] += 3600
    clock[0] = 50.0
    again = tab_seat.TabSeat.resume(kept, keys[0], tab_seat.bot_decider(make_bot("random", g.game, seed=2)),
                                    net.links(0), lambda: clock[0], sync_interval=0.02)
    assert again.ballot.history[-1].since == 50.0 - 3600
