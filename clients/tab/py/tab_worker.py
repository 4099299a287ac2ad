"""The Python side of the tab's Web Worker: one entry point, `handle(op, data)`, that the
worker's JavaScript calls for each message from the page, answering JSON text.

Ops: "selftest" (tab_checks: the project's crypto checks in this tab), "verify" (a
transcript's bytes through protocol.verify, the report `caravan verify --json` gives),
"bench" (one of tab_bench's measures, named with its arguments in JSON bytes: `make bench`),
and "link_start", "link_feed" (tab_link: one link end on the transport-free core); the
ops that wait are tab_net's (the broker, a relay link, the store), tab_postbox_ops' (a
turn-based seat's postbox) and tab_seat_ops' (one seat of a game whose frames the page carries).
Bad input gives {"error": ...}, never a traceback to the page."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
VECTORS = HERE / "tab_vectors"


def _selftest(_: bytes | None) -> dict[str, Any]:
    import tab_checks
    start = time.perf_counter()
    checks = tab_checks.run(VECTORS)
    return {"checks": checks, "ok": all(c["ok"] for c in checks), "ms": (time.perf_counter() - start) * 1000}


def _verify(data: bytes | None) -> dict[str, Any]:
    from protocol.verify import verify_bytes
    if data is None:
        return {"error": "verify needs the transcript's bytes"}
    start = time.perf_counter()
    report = verify_bytes(data).to_json()
    return {"report": report, "ms": (time.perf_counter() - start) * 1000}


def _bench(data: bytes | None) -> dict[str, Any]:
    import tab_bench
    if data is None:
        return {"error": 'bench needs JSON bytes: {"what": MEASURE, ...its arguments}'}
    return tab_bench.run(**json.loads(data))


def _versions(_: bytes | None) -> dict[str, Any]:
    import sys

    import msgpack
    return {"python": sys.version.split()[0], "msgpack": msgpack.version,
            "msgpack_c": msgpack.Packer.__module__ != "msgpack.fallback"}   # its C extension, not pure Python


def _link_start(data: bytes | None) -> dict[str, Any]:
    import tab_link
    return tab_link.start(data)


def _link_feed(data: bytes | None) -> dict[str, Any]:
    import tab_link
    return tab_link.feed(data)


OPS = {"selftest": _selftest, "verify": _verify, "bench": _bench, "versions": _versions,
       "link_start": _link_start, "link_feed": _link_feed}


# ---------------------------------------------------------------- turn-based mail (tab_mail)
# "mail_key", "mail_start", "mail_seal", "mail_open" (a seat's envelopes, protocol/mail/mailbox)
# and "letter_seal", "letter_open", "advert_hide", "advert_open" (the mail lobby's letters),
# "mail_join_start", "mail_join_feed", "mail_join_sign" (a friend's side of the lobby by mail,
# without a postbox: the tab's own is tab_mail_lobby's, below)
MAIL_OPS = ("mail_key", "mail_start", "mail_seal", "mail_open", "letter_seal", "letter_open", "advert_hide",
            "advert_open", "mail_join_start", "mail_join_feed", "mail_join_sign")


def _mail_op(op: str):
    def run(data: bytes | None) -> dict[str, Any]:
        import tab_mail
        return tab_mail.handle(op, data)
    return run


OPS.update({op: _mail_op(op) for op in MAIL_OPS})


def handle(op: str, data: Any = None) -> str:
    """Run `op` on `data` (a JS Uint8Array, or None) and answer JSON text."""
    fn = OPS.get(op)
    if fn is None:
        return json.dumps({"error": f"unknown op {op!r}; known: {', '.join(sorted(OPS))}"})
    raw = data.to_bytes() if hasattr(data, "to_bytes") else data
    try:
        return json.dumps(fn(raw))
    except Exception as e:                   # noqa: BLE001 - one line to the page, not a traceback
        return json.dumps({"error": f"{op} failed: {type(e).__name__}: {e}"})


# ---------------------------------------------------------------- asynchronous ops (tab_net)
# The broker and relay-link ops wait (for the broker, for frames): the worker awaits them on
# its event loop (Pyodide's asyncio runs there) and keeps taking the page's other calls.
# The seat ops (tab_seat_ops: one seat of a game whose frames the page carries) wait too, and
# the lobby ops (tab_lobby: join a relayed lobby by its invite, then play the joined game), and
# the table page's (tab_table) take their turn with them, as do a turn-based seat's postbox
# ops (tab_postbox_ops) and a turn-based table's lobby by mail (tab_mail_lobby).
def _async_table() -> dict[str, Any]:
    import tab_lobby
    import tab_mail_lobby
    import tab_net
    import tab_postbox_ops
    import tab_seat_ops
    import tab_table
    return {**tab_net.ASYNC_OPS, **tab_seat_ops.OPS, **tab_lobby.OPS, **tab_table.OPS, **tab_postbox_ops.OPS,
            **tab_mail_lobby.OPS}


def async_ops() -> list[str]:
    return sorted(_async_table())


def handle_async(op: str, data: Any = None) -> Any:
    """Run the asynchronous `op` on `data`: a future of its answer, JSON text."""
    import asyncio
    return asyncio.ensure_future(_run_async(op, data.to_bytes() if hasattr(data, "to_bytes") else data))


async def _run_async(op: str, raw: bytes | None) -> str:
    import tab_net
    fn = _async_table().get(op)
    if fn is None:
        return json.dumps({"error": f"unknown op {op!r}"})
    try:
        return json.dumps(await fn(raw))
    except tab_net.REFUSALS as e:
        return json.dumps({"error": f"{op}: {e}"})
    except Exception as e:                   # noqa: BLE001 - one line to the page, not a traceback
        return json.dumps({"error": f"{op} failed: {type(e).__name__}: {e}"})
