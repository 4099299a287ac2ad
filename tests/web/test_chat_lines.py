"""node/app/chat.py without a network: what a peer's chat frame must be to be shown, and the bounds
that hold whatever a peer sends."""

from __future__ import annotations

import tracemalloc
from pathlib import Path

import pytest
import trio

from node.app import chat as C
from protocol import wire
from protocol.identity import SigningKey

GAME = b"g" * 32


@pytest.fixture(autouse=True)
def _default_window(monkeypatch):
    """These tests move a fake clock through the real window, whatever the environment says."""
    monkeypatch.delenv(C.WINDOW_ENV, raising=False)


def _table(tmp_path: Path, n: int = 2):
    keys = [SigningKey.from_seed(bytes([i + 1]) * 32) for i in range(n)]
    seats = [k.public for k in keys]
    now = [1000.0]
    chats = []
    for i, k in enumerate(keys):
        (tmp_path / f"s{i}").mkdir(parents=True)
        chats.append(C.Chat(tmp_path / f"s{i}", k, GAME, seats, ["Ann", "Bob", "Cy"][:n], clock=lambda: now[0]))
    return keys, chats, now


def _frame(key: SigningKey, text: str, n: int, game: bytes = GAME) -> dict:
    body = wire.encode([C.DOMAIN, game, key.public, n, text])
    return {"t": "chat", "b": body, "s": key.sign(body)}


def test_a_signed_line_is_shown_with_the_name_and_kept_beside_the_game(tmp_path: Path):
    keys, (ann, bob), now = _table(tmp_path)
    sent = []

    async def send(frame):
        sent.append(frame)
    ann.send = send
    line = trio.run(ann.say, "  hello\nBob  ")
    assert line["text"] == "hello Bob" and line["name"] == "Ann"
    shown = bob.receive(0, sent[0])
    assert shown is not None and shown["seat"] == 0 and shown["text"] == "hello Bob"
    assert "hello Bob" in (tmp_path / "s1" / C.FILE).read_text()
    # a reloaded node keeps the talk and refuses the same line again (a replay)
    again = C.Chat(tmp_path / "s1", keys[1], GAME, [k.public for k in keys], ["Ann", "Bob"], clock=lambda: now[0])
    assert [x["text"] for x in again.lines] == ["hello Bob"]
    assert again.receive(0, sent[0]) is None


@pytest.mark.parametrize("why,frame", [
    ("no seat", lambda keys: _frame(SigningKey.from_seed(b"\x09" * 32), "hi", 5)),
    ("forged", lambda keys: {**_frame(keys[0], "hi", 5), "s": keys[1].sign(b"other")}),
    ("other game", lambda keys: _frame(keys[0], "hi", 5, game=b"h" * 32)),
    ("control characters", lambda keys: _frame(keys[0], "\x1b[31mred", 5)),
    ("too long", lambda keys: _frame(keys[0], "x" * (C.MAX_TEXT + 1), 5)),
    ("not bytes", lambda keys: {"t": "chat", "b": "text", "s": b"x" * 64}),
    ("garbage", lambda keys: {"t": "chat", "b": b"\xc1\xc1", "s": b"x" * 64}),
])
def test_lines_that_are_refused(tmp_path: Path, why, frame):
    keys, (ann, bob), _ = _table(tmp_path)
    shown = []
    bob.listeners.append(shown.append)
    assert bob.receive(0, frame(keys)) is None
    assert shown == [] and bob.refused == 1 and not (tmp_path / "s1" / C.FILE).exists()


def test_a_flood_is_cut_off_and_memory_and_disk_stay_bounded(tmp_path: Path):
    keys, (ann, bob), now = _table(tmp_path)
    got = sum(bob.receive(0, _frame(keys[0], f"line {i}", int(now[0] * 1000) + i)) is not None for i in range(50))
    assert got == C.RATE_LINES                                     # the rest of the burst is dropped
    tracemalloc.start()
    base = tracemalloc.take_snapshot()
    for i in range(5000):                                         # a long flood, at the allowed pace
        now[0] += C.RATE_WINDOW / C.RATE_LINES
        bob.receive(0, _frame(keys[0], "y" * C.MAX_TEXT, int(now[0] * 1000)))   # signed at that pace
    grown = sum(s.size_diff for s in tracemalloc.take_snapshot().compare_to(base, "filename"))
    tracemalloc.stop()
    assert len(bob.lines) == C.KEEP
    assert grown < 2 * C.KEEP * (C.MAX_TEXT + 1000)
    assert (tmp_path / "s1" / C.FILE).stat().st_size <= C.MAX_FILE
    with pytest.raises(C.ChatError, match="slow down"):
        for _ in range(C.RATE_LINES + 1):
            trio.run(ann.say, "me too")


def test_a_flood_of_refused_lines_is_logged_a_few_times_only(tmp_path: Path, caplog):
    """Each refused line is counted, but the log gets the 1st, 2nd, 4th, 8th… only: a peer
    that floods cannot flood this node's log."""
    _, (_, bob), _ = _table(tmp_path)
    for _ in range(1000):
        bob.receive(0, {"b": b"junk", "s": bytes(64)})
    assert bob.refused == 1000
    assert len([r for r in caplog.records if "refused" in r.getMessage()]) == 10    # 1, 2, 4, …, 512


def test_five_lines_per_10_s_unless_a_test_shortens_the_window(tmp_path: Path, monkeypatch):
    """The documented limit (specs/node.md "Chat"); $CARAVAN_CHAT_WINDOW, which the browser
    tests set so as not to wait out real 10 s windows, changes only the window's length."""
    assert (C.RATE_LINES, C.RATE_WINDOW) == (5, 10.0)
    _, (ann, _), now = _table(tmp_path / "default")
    for _ in range(5):
        trio.run(ann.say, "hi")
    with pytest.raises(C.ChatError, match=r"^slow down: at most 5 chat lines per 10 s$"):
        trio.run(ann.say, "hi")
    now[0] += 9.9
    with pytest.raises(C.ChatError):
        trio.run(ann.say, "hi")
    now[0] += 0.2
    trio.run(ann.say, "hi")

    monkeypatch.setenv(C.WINDOW_ENV, "0.5")
    _, (ann, _), now = _table(tmp_path / "short")
    for _ in range(5):
        trio.run(ann.say, "hi")
    with pytest.raises(C.ChatError, match=r"per 0\.5 s$"):
        trio.run(ann.say, "hi")
    now[0] += 0.5
    trio.run(ann.say, "hi")
    for nonsense in ("", "ten", "0", "-1", "inf", "nan"):
        monkeypatch.setenv(C.WINDOW_ENV, nonsense)
        assert C.rate_window() == C.RATE_WINDOW
