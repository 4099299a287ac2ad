"""A lobby host's side, without the link (issue 32): what a host decides between its links,
so the trio node (node/app/lobby.py `Lobby`) and the browser tab
(clients/tab/py/tab_lobby.py) host exactly alike.

The caller owns the links (and the bounds on them: handshake slots, frame sizes, timeouts)
and the randomness (the lobby id, the per-game secret, the nonce). `Hosting` holds the
advert, seats the joiners (`admit`, `leave`: names cleaned, a full lobby refused, a key
seated once), says who sits where (`seats_frame`), and, once full, builds the genesis:
`begin` gives each seat its "seated" frame, `take_tip` each joiner's beacon tip, then
`sign_frames` the body to sign, `take_signature` each joiner's signature (a bad one names
the key), and `genesis` / `start_frame` the signed genesis everyone plays from. Anything a
joiner does wrong is a `HostRefused` of one line naming its key; the host's own bad choices
are refused when the lobby is made (players, pace: HostRefused; the game: games.UnknownGame;
the options: the engine's own BadOptions).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .. import games, genesis as G
from ..identity import SigningKey, fingerprint, verify
from ..link.handshake import key_pin
from ..player import beacon_chain
from .joiner import clean_name

BEACON_LENGTH = 8192
"""Each seat's beacon chain length in a lobby's genesis."""
FULL = "the lobby is full"
SEATED_TWICE = "this key already holds a seat"
NOT_A_FRIEND = "this table plays a game again: only its players may join it"
NOT_A_DECLINER = "only a player of the last game declines its Play again, once"


class HostRefused(ValueError):
    """A join, tip or signature the host will not take (or a lobby it cannot open): `why` is
    the one line told the joiner (None: nothing is told it), str() the line the host logs."""

    def __init__(self, log: str, why: str | None = None):
        super().__init__(log)
        self.why = why


def named(name: str, key: bytes) -> str:
    """Someone by the name they chose, with their key's fingerprint (which is what counts) beside it."""
    return f"{name} (key {fingerprint(key)})" if name else f"key {fingerprint(key)}"


@dataclass(eq=False)
class Guest:
    """A joiner holding a seat in the lobby: its proven key, its chosen name, and where it
    said it listens (host, port; 0 through a broker). A shell subclasses it with its link."""
    key: bytes = b""
    name: str = ""
    host: str = ""
    port: int = 0


class Hosting:
    """One lobby's host (see the module doc). `lobby_id` comes from the caller's randomness."""

    def __init__(self, key: SigningKey, game: str, players: int, options: dict[str, Any], lobby_id: bytes, *,
                 name: str = "", time_limit: int = 0, pace: str = G.LIVE, spectators: bool = True,
                 spectators_chat: bool = True, friends: frozenset[bytes] = frozenset()):
        engine = games.get(game)                   # UnknownGame (one line naming the known ones)
        if type(players) is not int or not engine.min_players <= players <= engine.max_players:
            raise HostRefused(f"{engine.title} is for {engine.min_players}-{engine.max_players} players")
        engine.new_game(options, players)          # BadOptions now, not after everyone joined
        if pace not in G.PACES:
            raise HostRefused(f"unknown pace {pace!r} (use {' or '.join(G.PACES)})")
        self.key, self.game, self.players, self.options = key, game, players, options
        self.lobby_id, self.name, self.title = lobby_id, clean_name(name), engine.title
        self.time_limit, self.pace = time_limit, pace
        self.spectators = spectators
        self.spectators_chat = spectators and spectators_chat
        self.pin = key_pin(key.public)
        """The pin of the host's key: what an invite tells joiners to expect."""
        self.friends = friends
        """The seats of the game this lobby plays again: only they may join it, or decline it (once)."""
        self.declined: set[bytes] = set()
        self.places: dict[bytes, int] = {}
        """Joiners whose seat is chosen beforehand (the home's bots): key -> seat."""
        self.guests: list[Guest] = []
        self.order: list[Guest] = []
        """Once full (`begin`): the joiners by seat, 1.."""
        self.nonce = b""
        self.tips: dict[int, bytes] = {}
        self.body = b""
        self.sigs: dict[int, bytes] = {}

    @property
    def full(self) -> bool:
        return 1 + len(self.guests) >= self.players

    # the advert and the seats

    def status(self, port: int = 0) -> dict[str, Any]:
        return {"lobby": self.lobby_id.hex(), "game": self.game, "title": self.title, "players": self.players,
                "seated": 1 + len(self.guests), "port": port, "spectators": self.spectators}

    def advert(self, port: int = 0) -> dict[str, Any]:
        """The "lobby" frame a joiner checks (protocol/seat/joiner.py `sealed_advert`)."""
        advert = {"t": "lobby", **self.status(port), "options": self.options, "time_limit": self.time_limit,
                  "spectators_chat": self.spectators_chat}
        if self.pace != G.LIVE:
            advert["pace"] = self.pace                 # absent for a live table, as before tables had a pace
        return advert

    def seating(self) -> list[Guest | None]:
        """Seats 1.. in order: a joiner with a chosen seat (`places`) sits there, the others in
        the order they joined; None for a seat still empty."""
        seats: list[Guest | None] = [None] * (self.players - 1)
        rest = []
        for g in self.guests:
            want = self.places.get(g.key)
            if want is not None and 1 <= want < self.players and seats[want - 1] is None:
                seats[want - 1] = g
            else:
                rest.append(g)
        for i, seat in enumerate(seats):
            if seat is None and rest and not (i + 1) in self.places.values():
                seats[i] = rest.pop(0)
        for i, seat in enumerate(seats):               # a chosen seat whose bot never came: whoever is left
            if seat is None and rest:
                seats[i] = rest.pop(0)
        return seats

    def seats_text(self) -> str:
        """"2/3 seated: seat 0 Ann (host), seat 1 Bob; empty: seat 2" — for the lobby's lines."""
        taken = [f"seat 0 {self.name or 'the host'}" + (" (host)" if self.name else "")]
        seating = self.seating()
        taken += [f"seat {i} {g.name or fingerprint(g.key)}" for i, g in enumerate(seating, start=1) if g]
        empty = [f"seat {i}" for i, g in enumerate(seating, start=1) if g is None]
        return (f"{1 + len(self.guests)}/{self.players} seated: {', '.join(taken)}"
                + (f"; empty: {', '.join(empty)}" if empty else ""))

    def seats_for(self, me: Guest | None = None) -> list[dict[str, Any]]:
        """The seats as a waiting joiner `me` is shown them (its own marked `you`)."""
        seats = [{"seat": 0, "name": self.name, "taken": True, "you": False}]
        for i, g in enumerate(self.seating(), start=1):
            seats.append({"seat": i, "name": (g.name or fingerprint(g.key)) if g else "", "taken": g is not None,
                          "you": g is not None and g is me})
        return seats

    def seats_frame(self, me: Guest) -> dict[str, Any]:
        return {"t": "seats", "seats": self.seats_for(me)}

    # joiners come and go

    def admit(self, key: bytes, join: dict[str, Any], *, relayed: bool, guest: Guest | None = None) -> Guest:
        """Seat the joiner of proven `key` that sent `join` ({"t": "join", "port", "name"}):
        its Guest (`guest`, a shell's subclass, filled in; else a new one), or HostRefused."""
        fp = fingerprint(key)
        if self.friends and key not in self.friends:   # Play again: only the last game's seats
            raise HostRefused(f"join from {fp}, not a player of the last game", NOT_A_FRIEND)
        port = join.get("port")
        if not relayed and (type(port) is not int or not 0 < port < 65536):
            raise HostRefused("join without a valid port")
        if self.full:
            raise HostRefused("lobby full", FULL)
        if key == self.key.public or any(g.key == key for g in self.guests):
            raise HostRefused("key already seated", SEATED_TWICE)
        guest = guest if guest is not None else Guest()
        guest.key, guest.name = key, clean_name(join.get("name"))
        guest.port = port if type(port) is int else 0
        self.guests.append(guest)
        return guest

    def leave(self, guest: Guest) -> None:
        """A joiner left before the lobby was full: its seat is free again."""
        if guest in self.guests and not self.order:
            self.guests.remove(guest)

    def decline(self, key: bytes) -> None:
        """A friend's "not this time" to a Play again (once each), or HostRefused."""
        if key not in self.friends or key in self.declined:
            raise HostRefused(f"decline from {fingerprint(key)}, not a player of the last game (or said already)",
                              NOT_A_DECLINER)
        self.declined.add(key)

    # the genesis, once full

    def begin(self, secret: bytes, nonce: bytes) -> list[tuple[Guest, dict[str, Any]]]:
        """The lobby is full: each joiner's "seated" frame (the host's own tip from `secret`)."""
        if not self.full or self.order:
            raise HostRefused("the lobby is not full" if not self.full else "the genesis is already under way")
        self.order = [g for g in self.seating() if g is not None]
        self.nonce = nonce
        self.tips = {0: beacon_chain(secret, nonce, 0, BEACON_LENGTH)[0]}
        return [(g, {"t": "seated", "seat": seat, "nonce": nonce, "players": self.players,
                     "beacon_length": BEACON_LENGTH}) for seat, g in enumerate(self.order, start=1)]

    def seat_of(self, guest: Guest) -> int:
        return self.order.index(guest) + 1

    def keys(self) -> list[bytes]:
        return [self.key.public] + [g.key for g in self.order]

    def take_tip(self, guest: Guest, tip: Any) -> None:
        if type(tip) is not bytes or len(tip) != 32:
            raise HostRefused(f"{fingerprint(guest.key)} sent no valid beacon tip")
        self.tips[self.seat_of(guest)] = tip

    def sign_frames(self) -> list[tuple[Guest, dict[str, Any]]]:
        """Every tip in: the body (signed by the host now) and each joiner's "sign" frame."""
        if len(self.tips) != self.players:
            raise HostRefused("not every seat sent its beacon tip")
        tips = [self.tips[s] for s in range(self.players)]
        self.body = G.make_body(self.game, self.options, self.keys(), tips, self.nonce, BEACON_LENGTH,
                                self.time_limit, self.pace)
        self.sigs = {0: G.sign(self.key, self.body)}
        return [(g, {"t": "sign", "body": self.body}) for g in self.order]

    @property
    def game_id(self) -> bytes:
        return G.game_id_of(self.body)

    def take_signature(self, guest: Guest, sig: Any) -> None:
        """A joiner's signature of the body, checked against its key (a bad one names it)."""
        if not self.body or type(sig) is not bytes or not verify(guest.key, sig,
                                                                  b"caravan/genesis-sig/v1" + self.game_id):
            raise HostRefused(f"{fingerprint(guest.key)} did not sign the genesis")
        self.sigs[self.seat_of(guest)] = sig

    def genesis(self) -> bytes:
        """Every signature in: the signed genesis (parsed once more, so a bad one never leaves)."""
        if len(self.sigs) != self.players:
            raise HostRefused("not every seat signed the genesis")
        tips = [self.tips[s] for s in range(self.players)]
        raw = G.Genesis(self.game, self.options, self.keys(), tips, BEACON_LENGTH, self.nonce, self.body,
                        [self.sigs[s] for s in range(self.players)], self.time_limit, self.pace).to_wire()
        G.parse(raw)
        return raw

    def names(self) -> list[str]:
        return [self.name] + [g.name for g in self.order]

    def start_frame(self, raw: bytes) -> dict[str, Any]:
        """The "start" frame every joiner gets: the genesis, where the seats listen, their names."""
        peers = [None] + [[g.host, g.port] for g in self.order]
        return {"t": "start", "genesis": raw, "peers": peers, "names": self.names(),
                "spectators": self.spectators, "spectators_chat": self.spectators_chat}
