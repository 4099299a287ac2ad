"""The relay link's state machine alone (protocol/link/relay_frames.py): two ends wired in
memory, each message handed over by the test as a broker would (or would not: duplicated,
reordered, lost, forged, flooded), and the time given at each call. No broker, no trio."""

import struct

import pytest

from protocol.identity import SigningKey
from protocol.link.framing import FrameError, encode
from protocol.link.handshake import Handshake
from protocol.link.relay_frames import (ACCEPT, ACK_EVERY, CLOSE, CLOSED, DATA, PRESEAL, PRESEAL_HELD, WAIT,
                                        WINDOW, RelayFrames)

SCOPE = b"s" * 32


def take(frames: RelayFrames) -> list[bytes]:
    out, frames.outbox = frames.outbox, []
    return out


def carry(src: RelayFrames, dst: RelayFrames, now: float) -> None:
    """What `src` published, delivered to `dst` (a broker that loses nothing)."""
    for payload in take(src):
        dst.deliver(payload, now)


def handshake(a: RelayFrames, b: RelayFrames, now: float = 0.0) -> None:
    """The real handshake, its frames carried unsealed by the two state machines."""
    ends = ((a, Handshake(SigningKey(b"a" * 32), SCOPE, dialer=True, now=now, timeout=5, link=b"a/b/1")),
            (b, Handshake(SigningKey(b"b" * 32), SCOPE, dialer=False, now=now, timeout=5, link=b"a/b/1")))
    for frames, shake in ends:
        frames.send(DATA, encode(shake.hello), now)
    carry(a, b, now), carry(b, a, now)
    for frames, shake in ends:
        [auth] = shake.receive(frames.next_unsealed(shake.fits, now), now)
        frames.send(DATA, encode(auth), now)
    carry(a, b, now), carry(b, a, now)
    for frames, shake in ends:
        assert shake.receive(frames.next_unsealed(shake.fits, now), now) == []
        frames.seal(shake.push, shake.pull, now)
    carry(a, b, now), carry(b, a, now)                     # the SEALED marks
    assert a.peer_sealed and b.peer_sealed


def sealed_pair(now: float = 0.0) -> tuple[RelayFrames, RelayFrames]:
    a, b = RelayFrames(now=now), RelayFrames(now=now)
    handshake(a, b, now)
    return a, b


def send(frames: RelayFrames, value, now: float = 1.0) -> bytes:
    frames.send(DATA, encode(value), now)
    [payload] = take(frames)
    return payload


def test_a_handshake_and_data_through_the_state_machines():
    a, b = sealed_pair()
    for n in range(3):
        b.deliver(send(a, {"n": n}), 1.0)
    assert [b.next_sealed(1.0) for _ in range(3)] == [{"n": 0}, {"n": 1}, {"n": 2}]
    assert b.next_sealed(1.0) is WAIT and b.wake_at == 1.0 + b.idle_timeout


def test_duplicates_are_dropped_and_reordered_frames_come_in_order():
    a, b = sealed_pair()
    first, second = send(a, 1), send(a, 2)
    for payload in (second, first, first, second):
        b.deliver(payload, 1.0)
    assert [b.next_sealed(1.0), b.next_sealed(1.0)] == [1, 2]
    assert b.next_sealed(1.0) is WAIT and b.forged == 0


def test_a_forged_frame_is_counted_and_the_link_goes_on():
    a, b = sealed_pair()
    real = send(a, "real")
    b.deliver(real[:8] + bytes(len(real) - 8), 1.0)       # at the expected seq, sealed by nobody
    b.deliver(real[:-1] + bytes([real[-1] ^ 1]), 1.0)      # the real one altered
    assert b.forged == 2 and "fails authentication" in b.warnings[0]
    b.deliver(real, 1.0)
    assert b.next_sealed(1.0) == "real"


def test_a_forgery_after_the_real_frame_is_counted_and_logged_sparingly():
    """A broker injects its altered copy right after the real frame (tests/relay/mqtt_proxy.py
    does): the real one is taken first, so the copy arrives at a seq already passed. It is not
    a duplicate (its bytes differ from the frame taken there), so it is refused and said, as
    a forgery at the expected seq is; a flood of them logs the first and every power of ten."""
    a, b = sealed_pair()
    real = send(a, "real")
    b.deliver(real, 1.0)
    altered = real[:-1] + bytes([real[-1] ^ 1])
    b.deliver(altered, 1.0)
    assert b.forged == 1 and ["fails authentication" in w for w in b.warnings] == [True]
    for _ in range(99):
        b.deliver(altered, 1.0)
    assert b.forged == 100 and len(b.warnings) == 3 and "100 frames" in b.warnings[-1]
    assert b.next_sealed(1.0) == "real" and b.next_sealed(1.0) is WAIT


def test_a_forgery_waiting_beside_the_real_frame_is_counted():
    """Both held at a seq ahead (an earlier frame is late): the real one is opened first and
    taken; the altered copy beside it is refused, not silently discarded."""
    a, b = sealed_pair()
    first, second = send(a, 1), send(a, 2)
    b.deliver(second, 1.0)
    b.deliver(second[:-1] + bytes([second[-1] ^ 1]), 1.0)
    b.deliver(first, 1.0)
    assert [b.next_sealed(1.0), b.next_sealed(1.0)] == [1, 2] and b.forged == 1


def test_a_replay_of_an_earlier_frame_is_ignored():
    a, b = sealed_pair()
    first = send(a, 1)
    b.deliver(first, 1.0)
    assert b.next_sealed(1.0) == 1
    b.deliver(first, 2.0)
    assert b.next_sealed(2.0) is WAIT and b.forged == 0


def test_a_lost_frame_fails_the_link_after_the_gap_wait():
    a, b = sealed_pair()
    send(a, "lost")
    b.deliver(send(a, "later"), 1.0)
    assert b.next_sealed(1.0) is WAIT and b.wake_at == 1.0 + b.gap_wait
    with pytest.raises(FrameError, match="frame 1 of this link was lost"):
        b.next_sealed(1.0 + b.gap_wait)


def test_silence_fails_the_link_unless_this_process_was_not_run():
    a, b = sealed_pair()
    assert b.next_sealed(5.0) is WAIT
    b.woke(b.wake_at, b.wake_at + 30)                     # suspended 30 s past the deadline
    now = b.wake_at + 30
    assert b.next_sealed(now) is WAIT                      # what came meanwhile gets a grace
    with pytest.raises(FrameError, match="nothing heard for 10 s"):
        b.next_sealed(b.wake_at)


def test_the_sender_waits_for_acks_beyond_its_window():
    a, b = sealed_pair()
    payloads = [send(a, n) for n in range(WINDOW)]
    assert a.window_full()
    for payload in payloads[:ACK_EVERY]:
        b.deliver(payload, 1.0)
    for n in range(ACK_EVERY):
        assert b.next_sealed(1.0) == n
    [ack] = take(b)
    a.deliver(ack, 1.0)
    assert a.acked == ACK_EVERY and not a.window_full()


def test_a_flood_of_unsealed_frames_cannot_displace_the_awaited_one():
    """Anyone may publish on the topic before it is sealed: while the handshake waits, each
    frame is checked as it comes; the others are dropped and counted, and only a few wait
    when nothing waits."""
    b = RelayFrames(now=0.0)
    b.awaiting = lambda f: f == {"t": "hello", "real": True}
    for n in range(1000):
        assert not b.deliver(struct.pack(">Q", PRESEAL | n) + DATA + encode({"t": "hello", "n": n}), 0.1)
    b.deliver(struct.pack(">Q", PRESEAL | 5000) + DATA + b"\xc1", 0.1)     # not msgpack
    assert b.deliver(struct.pack(">Q", PRESEAL | 1001) + DATA + encode({"t": "hello", "real": True}), 0.2)
    assert b.dropped == 1001
    assert b.next_unsealed(b.awaiting, 0.3) == {"t": "hello", "real": True}
    b.awaiting = None
    for n in range(100):
        b.deliver(struct.pack(">Q", PRESEAL | n) + DATA + encode(n), 0.4)
    assert len(b.pre) == PRESEAL_HELD and list(b.pre)[0] == 100 - PRESEAL_HELD


def test_messages_that_are_not_frames_are_counted_and_logged_once():
    b = RelayFrames(now=0.0, max_frame=16)
    for payload in (b"short", bytes(9 + 16 + 17 + 1 + 1)) * 5:
        assert not b.deliver(payload, 0.1)
    assert b.oversized == 10 and len(b.warnings) == 1 and "dropped" in b.warnings[0]


def test_a_dialer_nobody_accepts_names_the_inbox():
    a = RelayFrames(now=0.0)
    a.peer_inbox, a.accept_by = "0123abcd", 3.0
    assert a.next_unsealed(None, 1.0) is WAIT and a.wake_at == 3.0
    with pytest.raises(FrameError, match="nobody answered at inbox 0123abcd in time"):
        a.next_unsealed(None, 3.0)
    a.deliver(struct.pack(">Q", 0) + ACCEPT, 3.5)
    assert a.accepted and a.next_unsealed(None, 3.5) is WAIT


def test_close_and_failure_end_the_reads():
    a, b = sealed_pair()
    a.send(CLOSE, b"", 1.0)
    for payload in take(a):
        b.deliver(payload, 1.0)
    assert b.next_sealed(1.0) is None and b.next_sealed(2.0) is None
    c = RelayFrames(now=0.0)
    c.deliver(struct.pack(">Q", PRESEAL | 1) + CLOSE, 0.1)
    assert c.next_unsealed(None, 0.2) is CLOSED
    c.fail("the broker connection broke")
    with pytest.raises(FrameError, match="the broker connection broke"):
        c.next_unsealed(None, 0.3)


def test_sealed_junk_sent_before_sealing_cannot_crowd_out_the_first_real_frame():
    a, b = RelayFrames(now=0.0), RelayFrames(now=0.0)
    for n in range(100):
        b.deliver(struct.pack(">Q", 1) + bytes([n]) * 200, 0.1)
    handshake(a, b, 0.2)
    b.deliver(send(a, "first"), 0.3)
    assert b.next_sealed(0.3) == "first" and b.forged >= 1


def test_the_wire_layout_is_the_documented_one():
    """specs/node.md "Links": an 8-byte big-endian seq, then a type byte and msgpack; the
    handshake's frames numbered 2^63 + n in the clear, an open at seq 0, sealed ones from 1."""
    a = RelayFrames(now=0.0)
    a.send_open(b"O", 0.0)
    a.send(DATA, encode({"t": "hello"}), 0.0)
    a.send(DATA, encode(7), 0.0)
    assert take(a) == [bytes(8) + b"O", struct.pack(">Q", PRESEAL | 1) + b"D" + encode({"t": "hello"}),
                       struct.pack(">Q", PRESEAL | 2) + b"D\x07"]
    a, b = sealed_pair()
    payload = send(a, "x")
    assert payload[:8] == struct.pack(">Q", 1) and len(payload) == 8 + 17 + 1 + len(encode("x"))


def test_a_flood_of_sealed_frames_ahead_is_bounded():
    """Frames ahead of the expected seq wait, at most MAX_HELD of them: more are dropped
    with a warning (memory per link stays bounded whatever is published on its topic)."""
    from protocol.link.relay_frames import MAX_HELD
    _, b = sealed_pair()
    for n in range(MAX_HELD + 10):
        b.deliver(struct.pack(">Q", 1000 + n) + bytes(40), 1.0)
    assert b.held_count == MAX_HELD and f"over {MAX_HELD} frames held; one dropped" in b.warnings
    assert b.warnings.count(b.warnings[-1]) == 10
