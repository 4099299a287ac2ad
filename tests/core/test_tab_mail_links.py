"""The tab's mail links (clients/tab/py/tab_mail_links.py) in CPython, over a stand-in postbox
and store: nothing is published or acknowledged before the store's flush returned, the state
file is written before it, and what is sealed while the flush runs waits for the next batch;
a letter is acknowledged only once the seat asked for the next one from its sender; a forged
envelope is acknowledged at once, named, and reaches no link."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from protocol.identity import SigningKey, fingerprint
from protocol.mail.mailbox import Mailbox
from tests.helpers import timeout
from tests.tab_seats import tab_module

links = tab_module("tab_mail_links")

GAME = bytes(32)


class Parcel:
    def __init__(self, envelope: bytes):
        self.envelope = envelope


class Box:
    """The postbox's side the links use: parcels in, what was published and acknowledged out."""

    def __init__(self) -> None:
        self.parcels: asyncio.Queue = asyncio.Queue()
        self.sent: list[tuple[str, bytes]] = []
        self.acked: list[Parcel] = []

    def took(self, parcel: Parcel) -> None:
        pass

    def send(self, inbox: str, envelope: bytes) -> None:
        self.sent.append((inbox, envelope))

    def ack(self, parcel: Parcel) -> None:
        self.acked.append(parcel)

    def unacknowledged(self) -> int:
        return 0


class Store:
    """A game folder whose flush may be told to do something while it runs."""

    def __init__(self, folder: Path):
        self.dir = folder
        self.flushes: list[tuple[int, bool]] = []     # (envelopes published, state file there) at each flush
        self.during: Any = None
        self.box: Box | None = None

    def write_file(self, name: str, data: bytes) -> None:
        (self.dir / name).write_bytes(data)

    async def flush(self) -> bool:
        self.flushes.append((len(self.box.sent), (self.dir / links.STATE_FILE).exists()))
        if self.during is not None:
            self.during()
            self.during = None
        await asyncio.sleep(0.01)
        return True


def seats() -> list[SigningKey]:
    return [SigningKey.from_seed(bytes([i + 1]) * 32) for i in range(3)]


def transport(tmp_path: Path, keys: list[SigningKey], me: int) -> tuple[Any, Box, Store]:
    box, store = Box(), Store(tmp_path)
    store.box = box
    mailbox = Mailbox(GAME, [k.public for k in keys], me, keys[me])
    return links.MailTransport(box, mailbox, store), box, store


def run(main) -> None:
    asyncio.run(asyncio.wait_for(main(), timeout(10)))


def test_a_batch_is_published_only_after_its_state_is_written_and_the_store_flushed(tmp_path):
    keys = seats()
    mail, box, store = transport(tmp_path, keys, 0)

    async def main() -> None:
        pump = asyncio.ensure_future(mail.pump(store.flush))
        store.during = lambda: mail.post(2, {"t": "heads", "h": [1, 0, 0]})    # sealed while the flush runs
        await mail.links[1].send({"t": "heads", "h": [0, 0, 0]})
        while len(box.sent) < 2:
            await asyncio.sleep(0.01)
        pump.cancel()
    run(main)
    assert store.flushes[0] == (0, True)                  # nothing out before the first flush; the state written
    assert [inbox for inbox, _ in box.sent] == [mail.courier.inboxes[1], mail.courier.inboxes[2]]
    assert store.flushes[1][0] == 1                       # the heads sealed meanwhile went with the next batch
    state = json.loads((tmp_path / links.STATE_FILE).read_bytes())
    assert state == json.loads(json.dumps(mail.mailbox.state(), sort_keys=True))


def test_a_letter_is_acknowledged_once_the_next_is_asked_for_and_a_forged_one_at_once(tmp_path):
    keys = seats()
    mail, box, store = transport(tmp_path, keys, 0)
    sender = Mailbox(GAME, [k.public for k in keys], 1, keys[1])
    outsider = SigningKey.generate()
    forged_seats = [k.public for k in keys]
    forged_seats[2] = outsider.public
    forged = Mailbox(GAME, forged_seats, 2, outsider).seal(0, {"t": "heads", "h": [0, 0, 0]})
    good = [Parcel(sender.seal(0, {"t": "heads", "h": [0, n, 0]})) for n in (1, 2)]

    async def main() -> None:
        tasks = [asyncio.ensure_future(mail.receive()), asyncio.ensure_future(mail.pump(store.flush))]
        bad = Parcel(forged)
        for parcel in (bad, *good):
            mail.postbox.parcels.put_nowait(parcel)
        first = await mail.links[1].inbox.get()
        assert first == {"t": "heads", "h": [0, 1, 0]}
        assert box.acked == [bad]                          # the forged one at once; the letter not yet
        await asyncio.sleep(0.2)
        assert box.acked == [bad]
        assert await mail.links[1].inbox.get() == {"t": "heads", "h": [0, 2, 0]}
        while len(box.acked) < 2:
            await asyncio.sleep(0.01)
        assert box.acked == [bad, good[0]]
        assert store.flushes                               # acknowledged after a flush
        for task in tasks:
            task.cancel()
    run(main)
    assert mail.courier.refused == 1 and mail.links[2].waiting() == 0
    assert mail.notes == [f"dropped an envelope: an envelope that claims seat 2 ({fingerprint(keys[2].public)}) "
                          "but is not signed by its key"]
