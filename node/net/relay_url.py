"""Relay URLs and invites for the desktop node: the parsing is protocol/link/relay_url.py's
(pure, shared with the browser tab); here the broker login read from a --relay-auth file."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from protocol.link.relay_url import (DEFAULT_PORTS, INVITE_PREFIX, LOBBY_ID_HEX, SCHEMES, WS_PATH, Invite, RelayUrl,
                                     is_invite, parse_invite, parse_relay_url)

__all__ = ["DEFAULT_PORTS", "INVITE_PREFIX", "LOBBY_ID_HEX", "SCHEMES", "WS_PATH", "Invite", "RelayUrl", "is_invite",
           "parse_invite", "parse_relay_url", "read_auth_file", "with_auth"]


def read_auth_file(path: str) -> tuple[str, str]:
    """--relay-auth FILE: its first line is USER:PASSWORD (kept off the command line)."""
    try:
        line = Path(path).read_text(encoding="utf-8").splitlines()[0].strip()
    except (OSError, UnicodeDecodeError, IndexError) as exc:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else "it is empty or not text"
        raise ValueError(f"--relay-auth {path}: cannot read it ({why})") from None
    user, sep, password = line.partition(":")
    if not sep or not user:
        raise ValueError(f"--relay-auth {path}: its first line must be USER:PASSWORD")
    return user, password


def with_auth(url: RelayUrl, auth_file: str | None) -> RelayUrl:
    """The URL with the credentials of --relay-auth FILE (which win over any in the URL)."""
    if auth_file is None:
        return url
    user, password = read_auth_file(auth_file)
    return replace(url, username=user, password=password)
