"""The worker's asynchronous ops (tab_worker.handle_async): the tab's broker connection
(tab_broker) and one relay link over it (tab_relay), for the page and the tests.

Each op takes msgpack bytes (or nothing) and answers a JSON-able dict; a frame's value goes
back as the hex of its msgpack encoding (JSON has no bytes). Bad input or a refusal is
{"error": one line}, never a traceback."""

from __future__ import annotations

import asyncio
from typing import Any

import msgpack

from protocol.identity import SigningKey, fingerprint
from protocol.link.framing import FrameError
from protocol.link.handshake import HandshakeError, inbox_of
from protocol.link.relay_url import RelayUrl

import tab_store
from tab_backup import BackupError
from tab_broker import CONNECT_TIMEOUT, BrokerError, TabBroker
from tab_relay import TabEndpoint, TabRelayLink, dial, handshake
from tab_requests import request

RECV_TIMEOUT = 30.0


class _State:
    broker: TabBroker | None = None
    link: TabRelayLink | None = None
    endpoint: TabEndpoint | None = None


_state = _State()


def _key() -> SigningKey:
    """The tab's identity key (tab_store: kept in IndexedDB)."""
    return tab_store.identity()


def _broker() -> TabBroker:
    if _state.broker is None:
        raise BrokerError("not connected to a broker: call broker_connect first")
    return _state.broker


def broker() -> TabBroker:
    """The tab's broker connection (BrokerError before `broker_connect`): a game's relay links
    (tab_seat_ops) go over it too."""
    return _broker()


async def broker_connect(data: bytes | None) -> dict[str, Any]:
    """{url, client_id?, clean_start?, session_expiry?, timeout?}: connect (replacing any connection)."""
    args = request(data, "broker_connect", "url")
    _drop_link()
    _state.endpoint = None
    if _state.broker is not None:
        await _state.broker.close()
        _state.broker = None
    key = _key()
    broker = TabBroker()
    await broker.connect(args["url"], args.get("client_id") or f"caravan-tab-{inbox_of(key.public)}",
                         clean_start=args.get("clean_start", True), session_expiry=args.get("session_expiry", 0),
                         timeout=args.get("timeout", CONNECT_TIMEOUT))
    _state.broker = broker
    return {"connected": broker.url, "inbox": inbox_of(key.public), "key": fingerprint(key.public)}


def reachable(url: RelayUrl, whose: str, ask: str) -> None:
    """A tab reaches a broker by websockets only: else a refusal naming the URL."""
    if not url.websockets:
        raise BrokerError(f"{whose} {url} is not reachable from a tab: a tab reaches a broker by ws:// or wss:// "
                          f"only ({ask})")


async def connected(url: str) -> TabBroker:
    """The tab's broker connection to `url`: the one open, or made now (replacing another)."""
    if _state.broker is not None and _state.broker.url == url:
        return _state.broker
    await broker_connect(msgpack.packb({"url": url}))
    return _broker()


async def broker_close(_: bytes | None) -> dict[str, Any]:
    broker = _broker()
    _drop_link()
    _state.broker = None
    _state.endpoint = None
    await broker.close()
    return {"closed": broker.url}


async def broker_subscribe(data: bytes | None) -> dict[str, Any]:
    args = request(data, "broker_subscribe", "topic")
    return {"granted": await _broker().subscribe(args["topic"], args.get("qos", 1))}


async def broker_publish(data: bytes | None) -> dict[str, Any]:
    args = request(data, "broker_publish", "topic", "payload")
    await _broker().publish(args["topic"], args["payload"], args.get("qos", 1))
    return {"published": len(args["payload"])}


async def broker_next(data: bytes | None) -> dict[str, Any]:
    """{timeout?}: the next queued message {topic, payload (hex)}, or {"message": None}."""
    args = msgpack.unpackb(data, raw=False) if data else {}
    got = await _broker().next_message(args.get("timeout", RECV_TIMEOUT))
    return {"message": None if got is None else {"topic": got[0], "payload": got[1].hex()},
            "dropped": _broker().dropped}


async def relay_dial(data: bytes | None) -> dict[str, Any]:
    """{scope, peer (an inbox)}: a sealed relay link to that node (see tab_relay.dial)."""
    args = request(data, "relay_dial", "scope", "peer")
    _drop_link()
    _state.link = await dial(_broker(), _key(), args["scope"], args["peer"])
    return _link_state()


async def relay_listen(data: bytes | None) -> dict[str, Any]:
    """{scope}: take the links peers open to this tab's inbox in `scope` (its lobby or game)."""
    args = request(data, "relay_listen", "scope")
    endpoint = TabEndpoint(_broker(), _key(), args["scope"])
    await endpoint.listen()
    _state.endpoint = endpoint
    return {"inbox": endpoint.me, "key": fingerprint(_key().public)}


async def relay_accept(data: bytes | None) -> dict[str, Any]:
    """{timeout?}: the next link a peer opened, once its handshake proved the peer's key."""
    args = msgpack.unpackb(data, raw=False) if data else {}
    if _state.endpoint is None:
        raise BrokerError("not listening: call relay_listen first")
    link = await _state.endpoint.next_link(args.get("timeout", RECV_TIMEOUT))
    if link is None:
        return {"error": f"nobody opened a link to inbox {_state.endpoint.me} in {args.get('timeout', RECV_TIMEOUT):g} s"}
    _drop_link()
    _state.link = await handshake(link, _key(), _state.endpoint.scope, dialer=False)
    return _link_state()


def _drop_link() -> None:
    """Close the link (telling its peer, while the broker still carries it)."""
    link, _state.link = _state.link, None
    if link is not None:
        link.close()


def _link() -> TabRelayLink:
    if _state.link is None:
        raise FrameError("no relay link: call relay_dial first")
    return _state.link


async def relay_send(data: bytes | None) -> dict[str, Any]:
    """The msgpack bytes of one value: sent sealed on the link."""
    if data is None:
        raise ValueError("relay_send needs a value as msgpack")
    await _link().send(msgpack.unpackb(data, raw=False))
    return _link_state()


async def relay_recv(data: bytes | None) -> dict[str, Any]:
    """{timeout?}: the next frame the link took, as msgpack hex ({"frame": None}: the peer closed)."""
    args = msgpack.unpackb(data, raw=False) if data else {}
    link = _link()
    try:
        value = await asyncio.wait_for(link.recv(), args.get("timeout", RECV_TIMEOUT))
    except asyncio.TimeoutError:
        return {"error": f"nothing from the relay link {link.address} in {args.get('timeout', RECV_TIMEOUT):g} s",
                **_link_state()}
    return {"frame": None if value is None else msgpack.packb(value, use_bin_type=True).hex(), **_link_state()}


async def relay_state(_: bytes | None) -> dict[str, Any]:
    return _link_state()


def _link_state() -> dict[str, Any]:
    link = _link()
    return {"peer": fingerprint(link.peer_key) if link.peer_key else None, "forged": link.forged,
            "log": list(link.log), "key": fingerprint(_key().public), "address": link.address}


ASYNC_OPS = {"broker_connect": broker_connect, "broker_close": broker_close, "broker_subscribe": broker_subscribe,
             "broker_publish": broker_publish, "broker_next": broker_next, "relay_dial": relay_dial,
             "relay_listen": relay_listen, "relay_accept": relay_accept, "relay_send": relay_send,
             "relay_recv": relay_recv, "relay_state": relay_state, **tab_store.OPS}
REFUSALS = (BrokerError, HandshakeError, FrameError, BackupError, tab_store.StoreError, ValueError)
