"""A seat's postbox on an MQTT broker, named (issue 33, specs/node.md "Turn-based tables: store
and forward"): its inbox topic, its persistent session's client id and expiry, and how much a
node queues before it drops. Pure, so the desktop's postbox (node/net/postbox.py) and the
browser tab's (clients/tab/py/tab_postbox.py) name the same topics and sessions byte for byte:
otherwise a tab and a desktop at one table could not reach each other's seats."""

from __future__ import annotations

from ..link.relay_url import ROOT, scope_of

MIN_EXPIRY = 7 * 24 * 3600
"""A postbox session outlives its node by at least this many seconds (plus 4 time limits)."""
MAX_EXPIRY = 0xFFFFFFFE
"""MQTT's largest finite Session Expiry Interval."""
INBOUND = 4096
INBOUND_BYTES = 32 << 20
"""Envelopes (and their bytes) queued for the node, not yet taken: more are dropped (a flood
the node cannot keep up with) and, never acknowledged, delivered again at the next connection."""


def inbox_topic(game_id: bytes, inbox: str) -> str:
    return f"{ROOT}/{scope_of(game_id)}/box/{inbox}"


def client_id(game_id: bytes, inbox: str) -> str:
    return f"caravan-box-{scope_of(game_id)}-{inbox}"


def session_expiry(time_limit: float) -> int:
    """How long the broker keeps a postbox session after its node left (seconds)."""
    return int(min(MAX_EXPIRY, 4 * max(0.0, time_limit) + MIN_EXPIRY))
