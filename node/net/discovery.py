"""LAN discovery: a host announces its open lobby in a UDP datagram once a second, and
`caravan discover` listens for them. Every address and port is a parameter, so tests run
on loopback or in network namespaces they create. Joining by HOST:PORT needs none of it."""

from __future__ import annotations

import ipaddress
import json
import logging
import socket
from typing import Callable

import trio

log = logging.getLogger("caravan.discovery")

from .announcement import Announcement  # noqa: E402
from ..cli.checks import DISCOVERY_PORT  # noqa: E402 - one definition
BROADCAST = "255.255.255.255"
INTERVAL = 1.0


def _payload(lobby: str, game: str, title: str, players: int, seated: int, port: int,
             spectators: bool = True, player: str = "") -> bytes:
    return json.dumps({"caravan": 1, "lobby": lobby, "game": game, "title": title, "players": players,
                       "seated": seated, "port": port, "name": socket.gethostname(),
                       "spectators": spectators, "player": player}).encode()


def parse(data: bytes, sender: str) -> Announcement | None:
    """An announcement from a datagram, or None for anything else (never raises)."""
    try:
        obj = json.loads(data.decode())
        if obj.get("caravan") != 1:
            return None
        return Announcement(str(obj["lobby"]), str(obj["game"]), str(obj["title"]), int(obj["players"]),
                            int(obj["seated"]), sender, int(obj["port"]), str(obj.get("name", "?")),
                            spectators if isinstance(spectators := obj.get("spectators"), bool) else None,
                            _clean(obj.get("player")))
    except (ValueError, KeyError, TypeError, AttributeError):
        return None


def _clean(name: object) -> str:
    """A host's name as heard: text, one line, at most 32 characters (the lobby's own rule)."""
    from ..app.lobby import clean_name
    return clean_name(name) if isinstance(name, str) else ""


def broadcast_targets() -> list[tuple[str, str]]:
    """(interface, broadcast address) for every IPv4 interface that has one, loopback
    included (a lobby on this machine); the limited broadcast when none can be listed."""
    try:
        import ifaddr                          # a dependency of zeroconf; optional here
    except ImportError:
        return [("default route", BROADCAST)]
    targets = []
    for adapter in ifaddr.get_adapters():
        for ip in adapter.ips:
            if not isinstance(ip.ip, str) or ip.network_prefix >= 31:
                continue                       # IPv6, or a point-to-point link: no broadcast
            net = ipaddress.IPv4Network(f"{ip.ip}/{ip.network_prefix}", strict=False)
            targets.append((adapter.nice_name, str(net.broadcast_address)))
    return sorted(set(targets)) or [("default route", BROADCAST)]


async def announce(status, target: str | None = BROADCAST, port: int = DISCOVERY_PORT,
                   warn: Callable[[str], None] | None = None) -> None:
    """Announce until cancelled; `status()` returns the current fields for _payload.

    `target` None: every interface's broadcast address (re-read each round, so an interface
    that comes up later is used). A send that fails is reported once per interface through
    `warn` (default: a logged warning), and tried again each round."""
    warn = warn or log.warning
    failed: set[tuple[str, str]] = set()
    sock = trio.socket.socket(trio.socket.AF_INET, trio.socket.SOCK_DGRAM)
    with sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_BROADCAST, 1)
        while True:
            targets = broadcast_targets() if target is None else [(target, target)]
            payload = _payload(**status())
            for name, address in targets:
                try:
                    await sock.sendto(payload, (address, port))
                    failed.discard((name, address))
                except OSError as exc:
                    if (name, address) not in failed:
                        failed.add((name, address))
                        where = f"{name} ({address})" if name != address else address
                        warn(f"cannot announce the lobby on {where}: {exc.strerror or exc}; "
                             f"others can still join with HOST:PORT")
            await trio.sleep(INTERVAL)


def methods(via: str, port: int) -> list[str]:
    """The discovery methods `discover` listens with for `via`, in words."""
    from . import mdns
    used = []
    if via in ("udp", "both"):
        used.append(f"UDP beacon on port {port}")
    if via in ("mdns", "both") and mdns.available():
        used.append("mDNS/DNS-SD (_caravan._tcp)")
    return used


async def discover(timeout: float = 3.0, port: int = DISCOVERY_PORT, bind: str = "0.0.0.0",
                   until_first: bool = False, via: str = "both") -> list[Announcement]:
    """Lobbies heard within `timeout` seconds, one per lobby: from the UDP beacon ("udp"),
    from mDNS/DNS-SD when python-zeroconf is installed ("mdns"), or both."""
    from . import mdns
    found: dict[str, Announcement] = {}
    use_mdns = via in ("mdns", "both") and mdns.available()
    if via == "mdns" and not use_mdns:
        raise ValueError("mDNS discovery needs python-zeroconf (pip install zeroconf)")
    async with trio.open_nursery() as nursery:
        if use_mdns:
            async def by_mdns() -> None:
                try:
                    heard = await trio.to_thread.run_sync(mdns.browse, timeout, bind, abandon_on_cancel=True)
                except Exception as exc:          # zeroconf raises its own types too
                    log.warning("mDNS discovery failed (%s); the UDP beacon is unaffected", exc)
                    return
                for a in heard:
                    found.setdefault(a.lobby, a)
            nursery.start_soon(by_mdns)
        if via in ("udp", "both"):
            found.update({a.lobby: a for a in await _listen(timeout, port, bind, until_first)})
            if until_first and found:
                nursery.cancel_scope.cancel()
    return sorted(found.values(), key=lambda a: a.lobby)


async def find_one(target: str | None, command: str, timeout: float = 3.0, port: int = DISCOVERY_PORT,
                   bind: str = "0.0.0.0", via: str = "both") -> Announcement:
    """The one open lobby whose id starts with `target` (or the only one, for None); a
    LookupError saying what to do when there is none, or several (`command`: join or watch)."""
    found = await discover(timeout, port, bind, until_first=bool(target), via=via)
    if target:
        found = [a for a in found if a.lobby.startswith(target.lower())]
    if not found:
        raise LookupError(f"no open lobby found; try caravan {command} HOST:PORT")
    if len(found) > 1:
        raise LookupError("several lobbies are open; name one:\n  " + "\n  ".join(a.describe() for a in found))
    return found[0]


async def _listen(timeout: float, port: int, bind: str, until_first: bool) -> list[Announcement]:
    found: dict[str, Announcement] = {}
    sock = trio.socket.socket(trio.socket.AF_INET, trio.socket.SOCK_DGRAM)
    with sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if hasattr(socket, "SO_REUSEPORT"):
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        await sock.bind((bind, port))
        with trio.move_on_after(timeout):
            while True:
                data, (sender, _) = await sock.recvfrom(4096)
                a = parse(data, sender)
                if a is not None:
                    found[a.lobby] = a
                    if until_first:
                        break
    return sorted(found.values(), key=lambda a: a.lobby)
