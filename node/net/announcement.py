"""An open lobby as a listener heard it, by the UDP beacon (node/net/discovery.py) or by mDNS
(node/net/mdns.py): its own module so that the two announcers share it without importing each other."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Announcement:
    lobby: str          # lobby id, hex
    game: str
    title: str
    players: int
    seated: int
    host: str           # the sender's address, as seen by the listener
    port: int           # the lobby's TCP port
    name: str           # the host's machine name
    spectators: bool | None = None
    """The host's --spectators choice; None: an older node that did not say (try, and read its refusal)."""
    player: str = ""
    """The host's own name (who hosts it: "Ada"); "" when it chose none, or an older node."""

    def describe(self) -> str:
        return (f"{self.lobby[:8]}  {self.title} ({self.game}), {self.seated}/{self.players} seated, "
                f"{self.host}:{self.port} ({self.name})" + (", no spectators" if self.spectators is False else ""))
