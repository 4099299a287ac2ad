"""Relay URLs and invites (issue 14), parsed without any network: `mqtt://[USER[:PASSWORD]@]HOST[:PORT]`
(`mqtts://` for TLS; `ws://` and `wss://` for MQTT over websockets, path /mqtt, the listener a
browser tab reaches the broker through) names a broker; `caravan+mqtt://HOST:PORT/LOBBY_ID/HOST_KEY`
(`caravan+mqtts://`) is what a host hands its friends: the broker, the lobby, and the pin of
the host's key (handshake.key_pin), the only key a joiner accepts as that lobby's host
(issue 27: without it, anyone on the broker could answer as the host). The host and port are used verbatim (no lookup, no
rewriting), so a test or an operator can put a proxy in between. Each problem is a
ValueError of one line.

Pure (no file or network): the desktop node (node/net/relay_url.py adds --relay-auth files)
and the browser tab (clients/tab/py/tab_lobby.py) parse invites alike."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import quote, unquote, urlsplit

from .handshake import parse_pin

DEFAULT_PORTS = {"mqtt": 1883, "mqtts": 8883, "ws": 80, "wss": 443}
SCHEMES = tuple(DEFAULT_PORTS)
WS_PATH = "/mqtt"
"""The websockets path (mqtt.js's default; Mosquitto takes any)."""
ROOT = "caravan/v1"
"""The root of every topic Caravan uses on a broker (relay links, lobbies, postboxes)."""
PACKET_OVERHEAD = 1024
"""What an MQTT PUBLISH adds to a link's frame (header, topic, properties, the link's own seq,
type byte and seal), with room to spare: a connection's Maximum Packet Size is its largest
frame plus this."""
INVITE_PREFIX = "caravan+"
LOBBY_ID_HEX = 32


def scope_of(scope: bytes) -> str:
    """A game's (or lobby's) level in a topic: its first 16 bytes in hex."""
    return scope[:16].hex()


def lobby_topic(lobby: bytes) -> str:
    """Where lobby `lobby`'s announcement is retained on the broker (the desktop and the tab
    read and leave it alike)."""
    return f"{ROOT}/{scope_of(lobby)}/lobby"


@dataclass(frozen=True)
class RelayUrl:
    """Where the broker is and how to log in (credentials never appear in `str`)."""
    host: str
    port: int
    tls: bool = False
    username: str | None = None
    password: str | None = None
    websockets: bool = False

    @property
    def scheme(self) -> str:
        return ("ws" if self.websockets else "mqtt") + ("s" if self.tls else "")

    @property
    def hostport(self) -> str:
        return f"[{self.host}]:{self.port}" if ":" in self.host else f"{self.host}:{self.port}"

    def __str__(self) -> str:
        return f"{self.scheme}://{self.hostport}"

    def with_credentials(self) -> str:
        """The URL with its user and password (for the game's private peers.json only)."""
        if self.username is None:
            return str(self)
        auth = quote(self.username, safe="") + (f":{quote(self.password, safe='')}" if self.password is not None else "")
        return f"{self.scheme}://{auth}@{self.hostport}"

    def invite(self, lobby_id: str, host_pin: bytes) -> str:
        """The invite for a lobby on this broker, hosted by the key with pin `host_pin`, never with
        credentials: each player brings its own (the host's own bots get its login in a 0600 file)."""
        return f"{INVITE_PREFIX}{self}/{lobby_id}/{host_pin.hex()}"


@dataclass(frozen=True)
class Invite:
    """A parsed invite: the broker, the lobby id (lower-case hex) and the host's key pin."""
    url: RelayUrl
    lobby: str
    host_pin: bytes


def _split(text: str, schemes: tuple[str, ...], what: str):
    try:
        parts = urlsplit(text)
        port = parts.port
    except ValueError as exc:
        raise ValueError(f"{text!r}: {exc} (the port must be a number 1-65535)") from None
    if parts.scheme not in schemes:
        raise ValueError(f"{text!r} is not {what}: it must start with {' or '.join(s + '://' for s in schemes)}")
    if not parts.hostname:
        raise ValueError(f"{text!r}: the {what} needs a host")
    if port == 0:
        raise ValueError(f"{text!r}: the port must be a number 1-65535, not 0")
    if parts.query or parts.fragment:
        raise ValueError(f"{text!r}: the {what} takes no ?query or #fragment")
    return parts, port


def _url(parts, port: int | None, scheme: str) -> RelayUrl:
    user = unquote(parts.username) if parts.username is not None else None
    password = unquote(parts.password) if parts.password is not None else None
    return RelayUrl(parts.hostname, port or DEFAULT_PORTS[scheme], scheme in ("mqtts", "wss"), user or None, password,
                    scheme.startswith("ws"))


def parse_relay_url(text: str) -> RelayUrl:
    """`mqtt://[USER[:PASSWORD]@]HOST[:PORT]`, `mqtts://...`, `ws://...` or `wss://...` (default
    ports 1883, 8883, 80 and 443)."""
    parts, port = _split(text, SCHEMES, "an MQTT broker URL")
    if parts.path not in ("", "/", WS_PATH) or parts.path == WS_PATH and not parts.scheme.startswith("ws"):
        raise ValueError(f"{text!r}: a broker URL has no path (the lobby is chosen by caravan host)")
    return _url(parts, port, parts.scheme)


def is_invite(text: str) -> bool:
    return text.startswith(INVITE_PREFIX)


def parse_invite(text: str) -> Invite:
    """`caravan+mqtt://HOST:PORT/LOBBY_ID/HOST_KEY` -> the broker, the lobby and the host's key
    pin. An invite of an older Caravan (no host key) is refused: anyone on its broker could
    answer it as the host."""
    parts, port = _split(text, tuple(INVITE_PREFIX + s for s in SCHEMES), "a Caravan invite")
    path = parts.path.strip("/").lower().split("/")
    lobby = path[0]
    if len(lobby) != LOBBY_ID_HEX or any(c not in "0123456789abcdef" for c in lobby) or len(path) > 2:
        raise ValueError(f"{text!r}: the invite must end with /LOBBY_ID/HOST_KEY, the lobby's {LOBBY_ID_HEX} hex "
                         "digits and the host's key (copy the whole line the host printed)")
    if len(path) == 1:
        raise ValueError(f"{text!r} names no host key (an invite of an older Caravan, which anyone on the "
                         "broker could answer as the host): ask the host for the invite it prints now, "
                         "which ends with /LOBBY_ID/HOST_KEY")
    pin = parse_pin(path[1], repr(text))
    return Invite(_url(parts, port, parts.scheme.removeprefix(INVITE_PREFIX)), lobby, pin)


def tab_address(tab: str) -> str:
    """`tab` if it is the address of a browser tab (an http(s) URL with no #fragment, where a
    group keeps a copy of `make tab`'s bundle); ValueError of one line otherwise."""
    parts = urlsplit(tab)
    if parts.scheme not in ("https", "http") or not parts.netloc or parts.fragment:
        raise ValueError(f"{tab!r} is not a tab's address: an https:// (or http://) URL with no #fragment, "
                         "where your group keeps a copy of the tab (make tab; caravan tab --check URL)")
    return tab


def tab_link(tab: str, invite: str) -> str:
    """The link that opens the browser tab at `tab` with `invite` filled in (`#invite=`,
    URL-encoded): what a friend on a phone follows. ValueError (one line) for an address that
    is not a tab's, or an invite through a broker a tab cannot reach (not ws:// or wss://)."""
    if not parse_invite(invite).url.websockets:
        raise ValueError("a tab reaches a broker by its websockets listener only: host with --relay ws://... or "
                         "wss://...")
    return f"{tab_address(tab)}#invite={quote(invite, safe='')}"
