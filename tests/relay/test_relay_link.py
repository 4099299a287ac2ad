"""The relay link against what an untrusted broker (or anyone publishing on its topics) can
do: duplicate, drop, replay, forge or cross-inject frames. An established link refuses every
injected frame (logged) and keeps going; only a frame truly lost closes it (so the node
redials and resyncs)."""

import logging
import os
import struct

import nacl.bindings as sodium
import pytest
import trio
import trio.testing

from node.net import relay
from node.net.frames import FrameError
from node.net.handshake import handshake
from node.net.relay_link import GAP_WAIT
from node.net.relay_url import parse_relay_url
from protocol.identity import SigningKey
from tests.helpers import timeout, wait_until_async
from tests.relay.nodes import Outsider

SCOPE = os.urandom(32)


def test_a_failed_secretstream_pull_leaves_the_state_unchanged():
    """What dropping a forged frame (instead of the link) relies on: libsodium's pull does
    not advance its state when authentication fails."""
    key = os.urandom(32)
    push = sodium.crypto_secretstream_xchacha20poly1305_state()
    header = sodium.crypto_secretstream_xchacha20poly1305_init_push(push, key)
    pull = sodium.crypto_secretstream_xchacha20poly1305_state()
    sodium.crypto_secretstream_xchacha20poly1305_init_pull(pull, header, key)
    first = sodium.crypto_secretstream_xchacha20poly1305_push(push, b"first")
    second = sodium.crypto_secretstream_xchacha20poly1305_push(push, b"second")
    forged = bytearray(first)
    forged[-1] ^= 1
    for bad in (bytes(forged), second, os.urandom(len(first))):   # altered, out of order, random
        with pytest.raises(Exception):
            sodium.crypto_secretstream_xchacha20poly1305_pull(pull, bad)
    assert sodium.crypto_secretstream_xchacha20poly1305_pull(pull, first)[0] == b"first"
    with pytest.raises(Exception):
        sodium.crypto_secretstream_xchacha20poly1305_pull(pull, first)          # a replay
    assert sodium.crypto_secretstream_xchacha20poly1305_pull(pull, second)[0] == b"second"


async def _pair(url: str, nursery, served: list):
    """Two nodes' relays and one sealed link between them: (dialer's link, listener's link)."""
    ka, kb = SigningKey.generate(), SigningKey.generate()
    ra = await nursery.start(_open, url, ka)
    rb = await nursery.start(_open, url, kb)
    accepted = trio.Event()

    async def serve(link):
        await handshake(link, kb, SCOPE, dialer=False)
        served.append(link)
        accepted.set()
        await trio.sleep_forever()

    nursery.start_soon(rb.endpoint(SCOPE).serve, serve)
    link = await ra.endpoint(SCOPE).dial(kb.public)
    await handshake(link, ka, SCOPE, dialer=True)
    await accepted.wait()
    return link, served[-1]


async def _open(url, key, task_status=trio.TASK_STATUS_IGNORED):
    async with relay.connect(parse_relay_url(url), key.public) as r:
        task_status.started(r)
        await trio.sleep_forever()


async def test_injected_frames_are_refused_and_the_link_goes_on(broker, caplog):
    outsider = Outsider(broker.url)
    try:
        with trio.fail_after(timeout(30)):
            async with trio.open_nursery() as nursery:
                a, b = await _pair(broker.url, nursery, [])
                a.ping = lambda: None                # so the next seq is known: nothing else is sent
                await a.send({"n": 0})
                assert await b.recv() == {"n": 0}
                topic, last = a.topic, a._out_seq - 1        # the seq of {"n": 0}, the last frame sent

                def seen_last() -> list[bytes]:             # the outsider's copy of it has arrived
                    return [p for t, p in list(outsider.seen) if t == topic and struct.unpack_from(">Q", p)[0] == last]
                await wait_until_async(seen_last, 10, "the outsider to see a's last frame")
                frames = seen_last()
                seq = struct.unpack_from(">Q", frames[-1])[0]
                with caplog.at_level(logging.WARNING, "caravan.relay"):
                    for s in (seq + 1, seq + 2, seq + 50):                       # forged at and after the next seq
                        outsider.publish(topic, struct.pack(">Q", s) + os.urandom(40))
                    outsider.publish(topic, frames[-1])                          # a replay of the last frame
                    outsider.publish(topic, struct.pack(">Q", seq + 1) + frames[-1][8:])   # ... renumbered
                    # each publish returned once the broker had it (QoS 1): it reaches b ahead of a's next frame
                    for n in range(1, 6):
                        await a.send({"n": n})
                        assert await b.recv() == {"n": n}
                assert b.forged >= 2
                assert "fails authentication" in caplog.text
                nursery.cancel_scope.cancel()
    finally:
        outsider.close()


async def test_duplicates_are_dropped_and_a_lost_frame_closes_the_link(broker):
    with trio.fail_after(timeout(30)):
        async with trio.open_nursery() as nursery:
            a, b = await _pair(broker.url, nursery, [])
            publish = a._publish
            a._publish = lambda payload: (publish(payload), publish(payload))     # the broker sends twice
            for n in range(3):
                await a.send({"n": n})
            assert [await b.recv() for _ in range(3)] == [{"n": 0}, {"n": 1}, {"n": 2}]
            a._publish = lambda payload: None                                      # ... then loses one
            await a.send({"n": 3})
            a._publish = publish
            await a.send({"n": 4})
            start = trio.current_time()
            with pytest.raises(FrameError, match="lost"):
                while True:
                    await b.recv()
            assert trio.current_time() - start < GAP_WAIT + timeout(2)
            nursery.cancel_scope.cancel()


async def test_a_silent_peer_is_noticed(broker, monkeypatch):
    """A peer that vanished without a word (its process killed): the link fails within the idle timeout."""
    import node.net.relay_link as rl
    monkeypatch.setattr(rl, "IDLE_TIMEOUT", 2.0)
    with trio.fail_after(timeout(30)):
        async with trio.open_nursery() as nursery:
            a, b = await _pair(broker.url, nursery, [])
            a.ping = lambda: None                   # a dead process sends no pings
            with pytest.raises(FrameError, match="nothing heard"):
                await b.recv()
            nursery.cancel_scope.cancel()


async def test_a_lost_subscribe_answer_is_asked_again(broker, monkeypatch):
    """A broker (or a proxy) that loses the SUBACK after a connect: the node subscribes again
    instead of waiting for ever, and is ready within the dial timeout."""
    lost = []
    answer = relay.Relay._subscribed

    def lose_the_first(self, mid, failures):
        if not lost:
            lost.append(mid)
            return
        answer(self, mid, failures)

    monkeypatch.setattr(relay.Relay, "_subscribed", lose_the_first)
    with trio.fail_after(timeout(20)):
        async with relay.connect(parse_relay_url(broker.url), SigningKey.generate().public,
                                 timeout=relay.DIAL_TIMEOUT + 5) as r:
            assert lost and r.ready.is_set()


async def test_junk_sent_ahead_cannot_crowd_out_the_first_sealed_frame():
    """Before this side has sealed the link, sealed-looking frames are held in a small buffer;
    junk published ahead (more than it holds) must not make the real peer's first sealed
    frame, arriving last, be dropped (the oldest make room; issue 27)."""
    from node.net.relay_link import UNSEALED_HELD, RelayLink
    link = RelayLink(lambda payload: None, "test", lambda _: None, dialer=True)
    for _ in range(3 * UNSEALED_HELD):
        link.deliver(struct.pack(">Q", 1) + os.urandom(200))
    genuine = os.urandom(300)
    link.deliver(struct.pack(">Q", 1) + genuine)
    assert genuine in link._held[1]
    assert sum(map(len, link._held.values())) <= UNSEALED_HELD


def _linked_pair():
    """Two RelayLinks wired to each other in memory (a broker that never pushes back), not
    sealed yet, and the secretstream states each side seals with: {side: (push, pull)}."""
    from node.net.relay_link import RelayLink

    links: dict[str, RelayLink] = {}
    a = links["a"] = RelayLink(lambda p: links["b"].deliver(p), "a", lambda _: None, dialer=True)
    b = links["b"] = RelayLink(lambda p: links["a"].deliver(p), "b", lambda _: None, dialer=False)
    states = {}
    for side in ("a", "b"):                             # one secretstream per direction
        key = os.urandom(32)
        push = sodium.crypto_secretstream_xchacha20poly1305_state()
        header = sodium.crypto_secretstream_xchacha20poly1305_init_push(push, key)
        pull = sodium.crypto_secretstream_xchacha20poly1305_state()
        sodium.crypto_secretstream_xchacha20poly1305_init_pull(pull, header, key)
        states[side] = (push, pull)
    return a, b, states


async def test_a_burst_sent_before_the_peer_sealed_arrives_whole():
    """Each side seals when the other's auth arrives, so one may send while the other has not
    sealed yet, and that one holds only a few sealed frames (UNSEALED_HELD): a burst (a
    resync, a spectator's history) lost its first frames and the link closed as having lost
    one. A side now holds its data until the peer says it sealed."""
    from node.net.relay_link import UNSEALED_HELD

    a, b, states = _linked_pair()
    burst = 4 * UNSEALED_HELD
    got = []
    with trio.fail_after(GAP_WAIT + timeout(6)):
        async with trio.open_nursery() as nursery:
            a.seal(states["a"][0], states["b"][1])

            async def send_burst():
                for n in range(burst):
                    await a.send({"n": n, "pad": bytes(100)})
            nursery.start_soon(send_burst)
            await trio.testing.wait_all_tasks_blocked()  # the burst is sent as far as it goes; b has not sealed yet
            b.seal(states["b"][0], states["a"][1])
            for _ in range(burst):
                got.append((await b.recv())["n"])
    assert got == list(range(burst))


def _sealed_pair():
    """Two RelayLinks wired to each other in memory (a broker that never pushes back), sealed."""
    a, b, states = _linked_pair()
    a.seal(states["a"][0], states["b"][1])
    b.seal(states["b"][0], states["a"][1])
    return a, b


async def test_a_burst_to_a_slow_receiver_waits_instead_of_losing_frames():
    """The fault of a CI run (issue 31): a player's node sent a late spectator the whole game
    at once through the broker, which never pushes back; the spectator's link held MAX_HELD
    frames, dropped the rest and closed as having lost one, and the spectator ended with an
    unverified transcript. The sender now waits for the receiver's acks (a window, like TCP's)."""
    from node.net.relay_link import MAX_HELD, WINDOW

    a, b = _sealed_pair()
    burst = 4 * MAX_HELD
    sent = []
    with trio.fail_after(timeout(20)):
        async with trio.open_nursery() as nursery:
            async def send_burst():
                for n in range(burst):
                    await a.send({"n": n, "pad": bytes(100)})
                    sent.append(n)
            nursery.start_soon(send_burst)
            await trio.testing.wait_all_tasks_blocked()  # the receiver has not read yet: the sender waits
            assert len(sent) == WINDOW
            got = [(await b.recv())["n"] for _ in range(burst)]
    assert got == list(range(burst))


async def test_a_sender_that_never_reads_its_link_still_sees_the_window_open():
    """A node answers a peer's frame from the task that reads the link (a resync): were acks
    taken only by `recv`, that task, waiting for its window, would wait for ever."""
    from node.net.relay_link import WINDOW

    a, b = _sealed_pair()
    with trio.fail_after(timeout(20)):
        async with trio.open_nursery() as nursery:
            async def read_all():
                for n in range(3 * WINDOW):
                    assert (await b.recv())["n"] == n
            nursery.start_soon(read_all)
            for n in range(3 * WINDOW):                    # a never calls recv
                await a.send({"n": n})


async def test_closing_an_endpoint_closes_the_links_nobody_served():
    """Links opened to an endpoint that only dials (a joiner's in a lobby) were registered with
    the relay and kept until the node left the broker; closing the endpoint closes them and
    tells their dialers."""
    from types import SimpleNamespace

    from node.net.relay import Endpoint

    published: list[tuple[str, bytes]] = []
    fake = SimpleNamespace(ready=trio.Event(), links={}, endpoints={},
                           publish=lambda topic, payload: published.append((topic, payload)))
    fake.ready.set()
    endpoint = Endpoint(fake, "scope", "me")
    for n in range(5):
        endpoint._opened(f"peer{n}", f"{n:016x}")
    assert len(fake.links) == 5
    published.clear()
    endpoint.close()
    assert fake.links == {}
    assert sorted(topic.split("/")[-3] for topic, _ in published) == [f"peer{n}" for n in range(5)]
    assert all(payload[8:] == b"C" for _, payload in published)                  # a close for each


async def test_a_link_waits_a_moment_after_this_process_was_not_run(mock_clock):
    """A machine suspended (or a process starved) for longer than the idle timeout: on waking,
    the link called itself dead before the frames that came meanwhile (still in the broker
    connection's thread) were delivered (a CI run on a busy machine lost a watcher so). The
    link now gives them WAKE_GRACE seconds first; silence after that still ends it."""
    from node.net.relay_link import IDLE_TIMEOUT

    a, b = _sealed_pair()
    a.ping = b.ping = lambda: None
    async with trio.open_nursery() as nursery:
        got = []

        async def receive():
            got.append(await b.recv())
        nursery.start_soon(receive)
        await trio.testing.wait_all_tasks_blocked()
        mock_clock.jump(IDLE_TIMEOUT + 30)             # the process was not run for 40 s
        await trio.testing.wait_all_tasks_blocked()
        assert not got                                  # still waiting (it raised here before)
        await a.send({"n": 1})                          # what came meanwhile arrives
        await trio.testing.wait_all_tasks_blocked()
    assert got == [{"n": 1}]
    mock_clock.autojump_threshold = 0                   # ...time passing as it should (on time):
    start = trio.current_time()
    with pytest.raises(FrameError, match="nothing heard"):
        await b.recv()                                  # a silent peer is still noticed
    assert trio.current_time() - start == pytest.approx(IDLE_TIMEOUT)
