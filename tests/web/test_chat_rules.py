"""node/app/chat.py (issue 34, item 5d): one rate rule that the sender and every receiver apply to
the same signed times, so no line the sender's window allowed is dropped by a receiver whose
links delivered lines in a bunch; forged times do not get around it; and past the on-disk cap
chat.jsonl keeps the newest lines, so a restarted node shows the recent talk."""

from __future__ import annotations

from pathlib import Path

import pytest
import trio

from node.app import chat as C
from protocol.seat import chat as core
from protocol.identity import SigningKey

GAME = b"g" * 32


@pytest.fixture(autouse=True)
def _default_window(monkeypatch):
    monkeypatch.delenv(C.WINDOW_ENV, raising=False)


def _pair(tmp_path: Path):
    keys = [SigningKey.from_seed(bytes([i + 1]) * 32) for i in range(2)]
    clocks = [[1000.0], [1000.0]]
    chats = []
    for i, k in enumerate(keys):
        (tmp_path / f"s{i}").mkdir(parents=True, exist_ok=True)
        chats.append(C.Chat(tmp_path / f"s{i}", k, GAME, [k.public for k in keys], ["Ann", "Bob"],
                            clock=lambda c=clocks[i]: c[0]))
    return keys, chats, clocks


def _say(chat: C.Chat, text: str) -> dict:
    sent = []

    async def send(frame):
        sent.append(frame)
    chat.send = send
    trio.run(chat.say, text)
    return sent[0]


def test_what_the_sender_allowed_no_receiver_drops_when_lines_arrive_bunched(tmp_path):
    keys, (ann, bob), (ann_clock, bob_clock) = _pair(tmp_path)
    frames = []
    for t in (0.0, 0.1, 0.2, 0.3, 0.4, 10.0, 10.1, 10.2, 10.3, 10.4):   # 5 lines per 10 s: all allowed
        ann_clock[0] = 1000.0 + t
        frames.append(_say(ann, f"line at {t}"))
    assert len(ann.lines) == 10
    bob_clock[0] = 1009.0                       # the first five reach Bob late, in a bunch …
    shown = [bob.receive(0, f) for f in frames[:5]]
    bob_clock[0] = 1010.5                       # … the next five on time
    shown += [bob.receive(0, f) for f in frames[5:]]
    assert all(shown) and [x["text"] for x in bob.lines] == [x["text"] for x in ann.lines]
    assert bob.refused == 0


def test_the_receiver_applies_the_senders_rule_to_the_signed_times(tmp_path):
    """A sixth line within 10 s of signed time is dropped, however slowly it arrives."""
    keys, (ann, bob), (ann_clock, bob_clock) = _pair(tmp_path)
    bodies = [C.wire.encode([C.DOMAIN, GAME, keys[0].public, 1_000_000 + 1000 * i, f"x{i}"]) for i in range(6)]
    for i, body in enumerate(bodies):
        bob_clock[0] = 1000.0 + 20 * i                          # 20 s apart on Bob's clock
        got = bob.receive(0, {"t": "chat", "b": body, "s": keys[0].sign(body)})
        assert (got is not None) == (i < 5), i


def test_lines_dated_ahead_to_get_around_the_rate_are_dropped(tmp_path):
    keys, (ann, bob), (ann_clock, bob_clock) = _pair(tmp_path)
    shown = 0
    for i in range(100):                        # all at once, each dated 10 s after the last
        body = C.wire.encode([C.DOMAIN, GAME, keys[0].public, 1_000_000 + 10_000 * i, f"x{i}"])
        shown += bob.receive(0, {"t": "chat", "b": body, "s": keys[0].sign(body)}) is not None
    assert shown <= C.AHEAD / C.RATE_WINDOW + 1
    assert bob.refused == 100 - shown


def test_past_the_cap_the_file_keeps_the_newest_lines(tmp_path, monkeypatch):
    monkeypatch.setattr(C, "MAX_FILE", 8192)
    keys, (ann, bob), (ann_clock, _) = _pair(tmp_path)
    for i in range(200):
        ann_clock[0] += C.RATE_WINDOW
        _say(ann, f"line {i:03d} " + "x" * 40)
    path = tmp_path / "s0" / C.FILE
    assert path.stat().st_size <= C.MAX_FILE
    again = C.Chat(tmp_path / "s0", keys[0], GAME, [k.public for k in keys], ["Ann", "Bob"],
                   clock=lambda: ann_clock[0])
    texts = [x["text"] for x in again.lines]
    assert texts[-1].startswith("line 199 ") and not any(t.startswith("line 000 ") for t in texts)
    assert [int(t.split()[1]) for t in texts] == list(range(200 - len(texts), 200))     # whole, in order
    # the restarted node goes on where the kept lines end (no repeated or older n)
    ann_clock[0] += C.RATE_WINDOW
    assert _say(again, "after the restart")


def test_a_flood_past_the_rate_costs_no_signature_check(tmp_path, monkeypatch):
    keys, (ann, bob), _ = _pair(tmp_path)
    checked = []
    real = core.verify                          # the rules live in protocol/seat/chat.py
    monkeypatch.setattr(core, "verify", lambda *a: checked.append(1) or real(*a))
    for i in range(105):
        body = C.wire.encode([C.DOMAIN, GAME, keys[0].public, 1_000_000 + i, f"x{i}"])
        bob.receive(0, {"t": "chat", "b": body, "s": keys[0].sign(body) if i < 5 else bytes(64)})
    assert len(bob.lines) == 5 and len(checked) == 5
