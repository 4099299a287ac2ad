"""mDNS/DNS-SD lobby announcements through python-zeroconf, when it is installed.

The UDP beacon (node/net/discovery.py) always runs; this adds a `_caravan._tcp.local.` service
that ordinary service browsers (avahi-browse, dns-sd) also see. zeroconf's API blocks, so
the node calls it from a worker thread.
"""

from __future__ import annotations

import importlib.util
import logging
import socket
import time
from typing import Any

from .announcement import Announcement

log = logging.getLogger("caravan.mdns")

SERVICE = "_caravan._tcp.local."

# zeroconf is imported on first use (a tenth of a node's start: issue 31): only an announcing
# host and `discover` need it, not a node started with --no-discovery nor one that joins
try:
    _FOUND = importlib.util.find_spec("zeroconf") is not None
except (ImportError, ValueError):  # optional: pip install zeroconf
    _FOUND = False


def _zeroconf(bind: str) -> Any:
    """A Zeroconf on the interface of `bind` only (all interfaces for 0.0.0.0)."""
    from zeroconf import InterfaceChoice, Zeroconf
    return Zeroconf(interfaces=InterfaceChoice.All if bind in ("", "0.0.0.0") else [bind])


def available() -> bool:
    return _FOUND


def addresses(bind: str) -> list[str]:
    """The IPv4 addresses to announce: the bound one, else every non-loopback interface's."""
    if bind not in ("", "0.0.0.0"):
        return [bind]
    import ifaddr
    found = [ip.ip for adapter in ifaddr.get_adapters() for ip in adapter.ips
             if isinstance(ip.ip, str) and not ip.ip.startswith("127.")]
    return found or ["127.0.0.1"]


class Announcer:
    """Registers the lobby as a DNS-SD service until closed (blocking calls: use a thread)."""

    def __init__(self, status: dict[str, Any], bind: str = "0.0.0.0"):
        from zeroconf import ServiceInfo
        self.zc = _zeroconf(bind)
        self.info = ServiceInfo(
            SERVICE, f"caravan-{status['lobby'][:16]}.{SERVICE}",
            addresses=[socket.inet_aton(a) for a in addresses(bind)], port=status["port"],
            properties={k: str(status[k]) for k in ("lobby", "game", "title", "players", "seated")}
            | {"name": socket.gethostname(), "spectators": "yes" if status.get("spectators", True) else "no"})
        self.zc.register_service(self.info)

    def close(self) -> None:
        try:
            self.zc.unregister_service(self.info)
        finally:
            self.zc.close()


def browse(timeout: float, bind: str = "0.0.0.0") -> list[Announcement]:
    """Lobbies announced over mDNS within `timeout` seconds (blocking: use a thread)."""
    from zeroconf import ServiceBrowser
    zc = _zeroconf(bind)
    names: set[str] = set()

    def on_change(zeroconf: Any, service_type: str, name: str, state_change: Any) -> None:
        names.add(name)

    found: list[Announcement] = []
    try:
        ServiceBrowser(zc, SERVICE, handlers=[on_change])
        time.sleep(timeout)
        for name in sorted(names):
            info = zc.get_service_info(SERVICE, name, timeout=1000)
            if info is None or not info.parsed_addresses():
                continue
            p = {k.decode(): (v or b"").decode() for k, v in info.properties.items()}
            try:
                found.append(Announcement(p["lobby"], p["game"], p.get("title", p["game"]), int(p["players"]),
                                          int(p.get("seated", 0)), info.parsed_addresses()[0], info.port,
                                          p.get("name", "?"), {"yes": True, "no": False}.get(p.get("spectators", ""))))
            except (KeyError, ValueError):
                log.warning("mDNS: ignoring a malformed caravan service %s", name)
    finally:
        zc.close()
    return found
