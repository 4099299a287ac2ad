"""A node's broker connections take only what they are for (issue 31): a lobby's connection
only its lobby's links and no message over its largest frame (MQTT 5 Maximum Packet Size: the
broker drops bigger ones, so a flood of junk megabytes costs the lobby host nothing), and a
game's connection nothing until it listens in the game's scope."""

import logging
import os

import trio

from node.app import lobby
from node.net import relay
from node.net.relay_link import PRESEAL, RelayLink
from node.net.relay_url import parse_relay_url
from protocol.identity import SigningKey
from tests.helpers import timeout, wait_until_async
from tests.relay.nodes import Outsider

OPEN = bytes(8) + b"O"


async def _served(endpoint: relay.Endpoint, into: list[RelayLink], task_status=trio.TASK_STATUS_IGNORED) -> None:
    async def keep(link: RelayLink) -> None:
        link.max_frame = 16            # any real frame is now "oversized": counted when it arrives
        into.append(link)
        await trio.sleep_forever()
    await endpoint.serve(keep, task_status=task_status)


async def test_a_lobby_connection_takes_only_its_lobby_and_no_message_over_its_largest_frame(broker):
    key, lobby_id, other = SigningKey.generate(), os.urandom(16), os.urandom(16)
    outsider = Outsider(broker.url)
    try:
        with trio.fail_after(timeout(30)):
            async with relay.connect(parse_relay_url(broker.url), key.public, scopes=[lobby_id],
                                     max_frame=lobby.LOBBY_FRAME) as r, trio.open_nursery() as nursery:
                links: list[RelayLink] = []
                await nursery.start(_served, r.endpoint(lobby_id), links)
                r.endpoint(other)             # an endpoint in another scope: nothing reaches it
                base = f"caravan/v1/{lobby_id.hex()}/{r.inbox}/0123456789abcdef"
                outsider.publish(f"caravan/v1/{other.hex()}/{r.inbox}/0123456789abcdef/aaaaaaaaaaaaaaaa", OPEN)
                outsider.publish(f"{base}/bbbbbbbbbbbbbbbb", OPEN)
                await wait_until_async(lambda: links, 10, "the lobby's link to be served")
                link = links[0]
                near = (PRESEAL | 1).to_bytes(8, "big") + b"D" + bytes(lobby.LOBBY_FRAME - 100)
                over = (PRESEAL | 2).to_bytes(8, "big") + b"D" + bytes(lobby.LOBBY_FRAME + 4096)
                outsider.publish(f"{base}/bbbbbbbbbbbbbbbb", over)
                outsider.publish(f"{base}/bbbbbbbbbbbbbbbb", near)
                outsider.publish(f"{base}/bbbbbbbbbbbbbbbb", near)
                outsider.publish(f"{base}/cccccccccccccccc", OPEN)     # a marker: one publisher's messages
                await wait_until_async(lambda: len(links) >= 2, 10, "the marker's link")   # come in order
                assert link.oversized == 2, "the message over the connection's largest frame reached the node"
                assert [x.address[-6:] for x in links] == ["bbbbbb", "cccccc"], \
                    "a link of another lobby was served on this lobby's connection"
                nursery.cancel_scope.cancel()
    finally:
        outsider.close()


async def test_a_game_connection_takes_links_only_once_it_listens_in_the_game(broker):
    key, game_id = SigningKey.generate(), os.urandom(32)
    outsider = Outsider(broker.url)
    try:
        with trio.fail_after(timeout(30)):
            async with relay.connect(parse_relay_url(broker.url), key.public, scopes=[]) as r, \
                    trio.open_nursery() as nursery:
                links: list[RelayLink] = []
                await nursery.start(_served, r.endpoint(game_id), links)
                topic = f"caravan/v1/{game_id[:16].hex()}/{r.inbox}/0123456789abcdef"
                outsider.publish(f"{topic}/aaaaaaaaaaaaaaaa", OPEN)        # before it listens: not for it
                await r.listen(game_id)
                outsider.publish(f"{topic}/bbbbbbbbbbbbbbbb", OPEN)
                await wait_until_async(lambda: links, 10, "the game's link to be served")
                outsider.publish(f"{topic}/cccccccccccccccc", OPEN)        # a marker after both
                await wait_until_async(lambda: len(links) >= 2, 10, "the marker's link")
                assert [link.address[-6:] for link in links] == ["bbbbbb", "cccccc"]
                nursery.cancel_scope.cancel()
    finally:
        outsider.close()


async def test_a_flood_trio_cannot_keep_up_with_is_dropped_in_pahos_thread(caplog):
    """paho's thread queues every message for trio; when trio falls behind (a flood on a slow
    machine) the queue grew without bound. Now past INBOUND_BYTES new messages are dropped
    there, counted and logged once, and trio still drains what was queued."""
    from types import SimpleNamespace

    r = relay.Relay(parse_relay_url("mqtt://127.0.0.1:1"), "0" * 16)
    junk = SimpleNamespace(topic="caravan/v1/x/y/z/w", payload=bytes(64 << 10))
    with caplog.at_level(logging.WARNING, "caravan.relay"):
        for _ in range(2 * (relay.INBOUND_BYTES // len(junk.payload))):   # no checkpoint: trio cannot drain
            r._on_message(None, None, junk)
    assert sum(len(p) for _, p in r._inbound) <= relay.INBOUND_BYTES
    assert r.dropped_inbound >= relay.INBOUND_BYTES // len(junk.payload) - 1
    assert caplog.text.count("dropping new ones") == 1
    await wait_until_async(lambda: not r._inbound, 10, "trio to drain the queue")
    r._on_message(None, None, junk)                  # room again
    assert len(r._inbound) == 1
