"""The worker's postbox ops (tab_worker.handle_async): one seat's postbox (tab_postbox) under
the tab's own key, for the page and the tests. Each op takes msgpack bytes and answers a
JSON-able dict (an envelope as hex); every wait is bounded by the op's `timeout`. Bad input
or a refusal is {"error": one line}."""

from __future__ import annotations

from contextlib import AsyncExitStack
from typing import Any

from protocol.identity import fingerprint
from protocol.mail.postbox_names import INBOUND

import tab_store
from tab_broker import CONNECT_TIMEOUT, BrokerError
from tab_postbox import Parcel, TabPostbox, open_postbox
from tab_requests import request

WAIT = 30.0
"""The longest an op waits when the page names no `timeout`."""


class _State:
    def __init__(self) -> None:
        self.box: TabPostbox | None = None
        self.stack: AsyncExitStack | None = None
        self.taken: dict[tuple[int, int], Parcel] = {}   # (connection, mid) -> a parcel the page took, not acked


_state = _State()


def _box() -> TabPostbox:
    if _state.box is None:
        raise BrokerError("no postbox open: call postbox_open first")
    return _state.box


async def _close() -> None:
    stack, _state.stack, _state.box = _state.stack, None, None
    _state.taken = {}
    if stack is not None:
        await stack.aclose()


async def postbox_open(data: bytes | None) -> dict[str, Any]:
    """{url, game, time_limit, timeout?, max_queued?}: the tab's seat's postbox for `game`
    (closing one open)."""
    args = request(data, "postbox_open", "url", "game", "time_limit")
    await _close()
    key = tab_store.identity()
    stack = AsyncExitStack()
    _state.box = await stack.enter_async_context(open_postbox(
        args["url"], args["game"], key.public, args["time_limit"], args.get("timeout", CONNECT_TIMEOUT),
        args.get("max_queued", INBOUND)))
    _state.stack = stack
    return {"key": fingerprint(key.public), **_state_of(_state.box)}


async def postbox_close(_: bytes | None) -> dict[str, Any]:
    box = _box()
    await _close()
    return {"closed": box.url}


async def postbox_next(data: bytes | None) -> dict[str, Any]:
    """{timeout?}: the next parcel {mid, envelope (hex), redelivered, connection, qos}, taken
    but not acknowledged, or {"parcel": None} if none came in time."""
    args = request(data, "postbox_next") if data else {}
    box = _box()
    parcel = await box.next_parcel(args.get("timeout", WAIT))
    if parcel is None:
        return {"parcel": None, **_state_of(box)}
    _state.taken[(parcel.connection, parcel.mid)] = parcel
    return {"parcel": {"mid": parcel.mid, "envelope": parcel.envelope.hex(), "redelivered": parcel.redelivered,
                       "connection": parcel.connection, "qos": parcel.qos}, **_state_of(box)}


async def postbox_ack(data: bytes | None) -> dict[str, Any]:
    """{connection, mid}: acknowledge a parcel postbox_next gave ({"acked": whether a PUBACK went out})."""
    args = request(data, "postbox_ack", "connection", "mid")
    parcel = _state.taken.pop((args["connection"], args["mid"]), None)
    if parcel is None:
        raise BrokerError(f"no parcel {args['mid']} of connection {args['connection']} waits for its ack")
    return {"acked": _box().ack(parcel)}


async def postbox_send(data: bytes | None) -> dict[str, Any]:
    """{inbox, envelope}: sent to seat `inbox`'s postbox (postbox_flush waits for the broker)."""
    args = request(data, "postbox_send", "inbox", "envelope")
    box = _box()
    box.send(args["inbox"], args["envelope"])
    return _state_of(box)


async def postbox_retain(data: bytes | None) -> dict[str, Any]:
    """{topic, payload, expiry}: left retained at `topic` for `expiry` s."""
    args = request(data, "postbox_retain", "topic", "payload", "expiry")
    box = _box()
    box.retain(args["topic"], args["payload"], args["expiry"])
    return _state_of(box)


async def postbox_flush(data: bytes | None) -> dict[str, Any]:
    """{timeout?}: {"flushed": whether the broker acknowledged all this tab sent in time}."""
    args = request(data, "postbox_flush") if data else {}
    box = _box()
    return {"flushed": await box.flush(args.get("timeout", WAIT)), **_state_of(box)}


async def postbox_drained(data: bytes | None) -> dict[str, Any]:
    """{quiet, timeout?}: {"drained": whether nothing came for `quiet` s since ready}."""
    args = request(data, "postbox_drained", "quiet")
    box = _box()
    return {"drained": await box.drained(args["quiet"], args.get("timeout", WAIT)), **_state_of(box)}


async def postbox_state(_: bytes | None) -> dict[str, Any]:
    return _state_of(_box())


def _state_of(box: TabPostbox) -> dict[str, Any]:
    return {"inbox": box.inbox, "topic": box.topic, "ready": box.ready.is_set(), "session_present": box.session_present,
            "connection": box.connection, "dropped": box.dropped, "queued": box.parcels.qsize(),
            "unacknowledged": box.unacknowledged(), "log": list(box.log), "events": list(box.broker.events)}


OPS = {"postbox_open": postbox_open, "postbox_close": postbox_close, "postbox_next": postbox_next,
       "postbox_ack": postbox_ack, "postbox_send": postbox_send, "postbox_retain": postbox_retain,
       "postbox_flush": postbox_flush, "postbox_drained": postbox_drained, "postbox_state": postbox_state}
