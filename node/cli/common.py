"""What the commands share (node/cli/main.py and the commands defined beside it: watch, the
home): their common arguments and which part of a failure to report. Kept apart from
node/cli/main.py so that those modules need not import the CLI that imports them."""

from __future__ import annotations

import argparse

from . import checks as check


def leaves(exc: BaseException) -> list[BaseException]:
    """The exceptions inside (nested) exception groups, in order."""
    if isinstance(exc, BaseExceptionGroup):
        return [leaf for sub in exc.exceptions for leaf in leaves(sub)]
    return [exc]


def main_exception(exc: BaseException) -> BaseException:
    """What to report for an exception that may be a trio exception group: an interrupt
    if any part is one, else the first part that is not a cancellation."""
    import trio
    parts = leaves(exc)
    for leaf in parts:
        if isinstance(leaf, (KeyboardInterrupt, EOFError)):
            return leaf
    return next((leaf for leaf in parts if not isinstance(leaf, trio.Cancelled)), parts[0])


def json_arg(p: argparse.ArgumentParser, text: str = "JSON lines on stdout (specs/cli.md)") -> None:
    """`--json`, said the same way by every command."""
    p.add_argument("--json", action="store_true", help=text)


def discovery_args(p: argparse.ArgumentParser) -> None:
    """How a command listens for lobbies on the LAN (discover, join, watch)."""
    p.add_argument("--discovery-port", type=check.udp_port, default=check.DISCOVERY_PORT,
                   help="UDP port of lobby announcements")
    p.add_argument("--discovery-bind", default="0.0.0.0", help="address to listen for announcements on")
    p.add_argument("--wait", type=check.seconds, default=3.0, help="seconds to listen for announcements")
    p.add_argument("--via", choices=["udp", "mdns", "both"], default="both",
                   help="UDP beacon, mDNS/DNS-SD (needs python-zeroconf), or both (default)")
