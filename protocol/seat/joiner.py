"""A joiner's side of a lobby, without the link (issue 32): what a node taking a seat checks
and sends, as a state machine fed the host's decoded frames, so the trio node
(node/app/lobby.py `join`) and the browser tab (clients/tab/py/tab_lobby.py) check a host's
offer exactly alike.

The caller runs the handshake (pinned to the host's key) and reads the sealed advert;
`sealed_advert` checks it; `Joiner.start` gives the "join" frame; `feed` takes each frame the
host sends ("seats", "seated", "sign", "start", "refused", None when the link closed) and
answers the frames to send. After a "sign" whose body is the advertised game with this key
and tip at this seat, the joiner is `ready`: the caller makes itself reachable in the game
(`game_id`), then takes `signature()`, the only frame that signs anything. The "start" frame
ends it: `joined`. Anything else is a `JoinRefused` of one line, after which nothing is signed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .. import games, genesis as G
from ..identity import SigningKey, strong_key
from ..link.handshake import key_pin
from ..player import beacon_chain

ANSWER_TIMEOUT = 30.0
"""Seconds the host has for each answer once the lobby is full (the desktop's LOBBY_TIMEOUT)."""
SEATS_TIMEOUT = 24 * 3600.0
"""Seconds a joiner waits for the lobby to fill."""
MAX_NAME = 32
WRONG_HOST = "the lobby's host is key"
"""How the refusal of a lobby whose host is not the expected key begins (Play again stops at it)."""


class JoinRefused(Exception):
    """Why this joiner will not (or can no longer) take the seat: one line. `wrapped`: a
    malformed frame rather than a refusal (the desktop prefixes it with the lobby's address)."""

    def __init__(self, why: str, wrapped: bool = False):
        super().__init__(why)
        self.wrapped = wrapped


def clean_name(name: Any) -> str:
    """A player's chosen name as shown to others: printable, at most MAX_NAME characters, ""
    when none (a name is a courtesy, never trusted: seats are keys)."""
    if type(name) is not str:
        return ""
    return "".join(c for c in name if c.isprintable()).strip()[:MAX_NAME]


def host_key_problem(host_key: bytes, host_pin: bytes | None) -> str | None:
    """Why `host_key` is not the host this joiner was told to expect (None when it is)."""
    if host_pin is None or key_pin(host_key) == host_pin:
        return None
    return (f"{WRONG_HOST} {key_pin(host_key).hex()}, not {host_pin.hex()}, the one you were given: "
            "nothing was sent or signed (someone else answered at that address, or the host started again)")


def advert(frame: Any, where: str) -> dict:
    """A lobby's advert, or a JoinRefused saying what was sent instead."""
    not_lobby = f"{where} is not a Caravan lobby"
    if type(frame) is not dict or type(frame.get("t")) is not str:
        raise JoinRefused(f"{not_lobby}: it answered with something else")
    if frame["t"] == "hello":
        raise JoinRefused(f"{where} is a game in progress, not a lobby; to continue a game you are seated "
                          "in, run: caravan resume GAME_ID")
    if frame["t"] != "lobby":
        raise JoinRefused(f"{not_lobby}: it sent a {frame['t']!r} frame (a different Caravan version?)")
    if frame.get("v", 1) != 1:
        raise JoinRefused(f"{where} is a lobby of another Caravan protocol version ({frame.get('v')!r}, "
                          "this is version 1)")
    if type(frame.get("game")) is str and frame["game"] not in games.names():
        raise JoinRefused(f"{where} is a lobby for {frame['game']!r}, a game this Caravan does not have "
                          "(a different version?)")
    return frame


def sealed_advert(frame: Any, host_key: bytes, host_pin: bytes | None, lobby_id: str | None,
                  expect_game: str | None, where: str) -> dict:
    """The advert the host sent after the handshake (the one a joiner trusts), checked: the
    host's key is the pinned one (before anything else), the advert names lobby `lobby_id`
    and, when given, `expect_game`."""
    why = host_key_problem(host_key, host_pin)
    if why:
        raise JoinRefused(why)
    if type(frame) is not dict or frame.get("t") != "lobby" or frame.get("lobby") != lobby_id:
        raise JoinRefused("the host sent no lobby advert after the handshake (a different Caravan version?)")
    info = advert(frame, where)
    if expect_game and info.get("game") != expect_game:
        raise JoinRefused(f"the lobby is for {info.get('game')!r}, not {expect_game!r}")
    return info


def advert_pace(info: dict) -> str | None:
    """"turn-based, 24 h per move" for a turn-based lobby's advert (None for a live one: what
    is shown of it stays as it was), so a joiner knows the table's pace before it starts."""
    limit = info.get("time_limit")
    if info.get("pace") != G.TURN_BASED or type(limit) is not int:
        return None
    return G.pace_text(G.TURN_BASED, limit)


def seats_shape_ok(seats: Any) -> bool:
    """A `seats` frame as a page may show it: at most 16 seats of a short name each."""
    return (type(seats) is list and 0 < len(seats) <= 16
            and all(type(s) is dict and type(s.get("seat")) is int and type(s.get("name")) is str
                    and len(s["name"]) <= 64 and type(s.get("taken")) is bool and type(s.get("you")) is bool
                    for s in seats))


def offered_genesis_problem(fields: Any, info: dict, *, seat: int, key: bytes, tip: bytes,
                            host_key: bytes, nonce: bytes, beacon_length: int) -> str | None:
    """What is wrong with a genesis body the host asks this joiner to sign, checked field by
    field against the lobby it advertised and the seat it assigned (None if nothing): a
    joiner's signature must never seat an extra player, change the beacon or list a key
    twice (issue 16, item 7)."""
    if type(fields) is not dict or not G.body_fields_ok(fields) or fields["v"] != 1:
        return f"the body must have exactly the fields {sorted(G.BODY_FIELDS)}, version 1"
    for name in ("game", "options", "time_limit"):
        if fields[name] != info.get(name):
            return f"{name} is not the lobby's"
    if fields.get("pace", G.LIVE) != info.get("pace", G.LIVE):
        return "pace is not the lobby's"
    seats, tips = fields["seats"], fields["beacon"]
    players = info.get("players")
    if type(seats) is not list or len(seats) != players:
        return f"it seats {len(seats) if type(seats) is list else '?'} players; the lobby is for {players}"
    if type(tips) is not list or len(tips) != len(seats):
        return "it does not hold one beacon tip per seat"
    if not all(strong_key(k) for k in seats):
        return "a seat's key is not a valid Ed25519 key"
    if not 0 < seat < len(seats) or seats[seat] != key or tips[seat] != tip:
        return "my key and beacon tip are not at my seat"
    if len(set(seats)) != len(seats):
        return "a key holds two seats"
    if seats[0] != host_key:
        return "seat 0 is not the host's key"
    if fields["beacon_length"] != beacon_length or fields["nonce"] != nonce:
        return "the beacon length or nonce is not the one assigned"
    return None


@dataclass
class Joined:
    """A signed genesis with this joiner's seat: what it needs to play."""
    genesis_raw: bytes
    genesis: G.Genesis
    seat: int
    names: list[str]
    start: dict
    """The host's "start" frame as sent (its peers and spectator choices: the caller's to read)."""

    @property
    def game_id(self) -> bytes:
        return self.genesis.game_id


WAITING, TIPPED, READY, SIGNED, JOINED, REFUSED = "waiting", "tipped", "ready", "signed", "joined", "refused"


@dataclass
class Joiner:
    """One joiner's steps in one lobby (see the module doc)."""
    key: SigningKey
    secret: bytes
    info: dict
    """The checked sealed advert (`sealed_advert`)."""
    host_key: bytes
    answer_timeout: float = ANSWER_TIMEOUT
    state: str = WAITING
    deadline: float = 0.0
    """The time (the caller's clock) by which the host's next frame must come."""
    seats: list[dict[str, Any]] = field(default_factory=list)
    """Who sits where, from the host's latest well-formed "seats" frame (names cleaned)."""
    seat: int = -1
    body: bytes = b""
    refusal: str | None = None
    joined: Joined | None = None
    _tip: bytes = b""
    _nonce: bytes = b""
    _length: int = 0

    def start(self, now: float, port: int = 0, name: str = "") -> list[dict]:
        """The "join" frame (`port`: where this node listens, 0 through a broker)."""
        self.deadline = now + SEATS_TIMEOUT
        return [{"t": "join", "port": port, "name": clean_name(name)}]

    @property
    def game_id(self) -> bytes:
        """The game about to start (once `ready`)."""
        return G.game_id_of(self.body)

    def expired(self, now: float) -> str | None:
        """Why the join failed when the host said nothing by `deadline` (None before that)."""
        if now < self.deadline or self.state in (JOINED, REFUSED, READY):
            return None
        return self._refuse("the host did not answer in time" if self.state != WAITING
                            else "the lobby did not fill in time")

    def _refuse(self, why: str) -> str:
        self.state, self.refusal = REFUSED, why
        return why

    def _fail(self, why: str, wrapped: bool = False) -> JoinRefused:
        self._refuse(why)
        return JoinRefused(why, wrapped)

    def feed(self, frame: Any, now: float) -> list[dict]:
        """Take the host's next frame (None: the link closed): the frames to send."""
        if self.state in (REFUSED, READY, JOINED):
            raise JoinRefused(f"no frame is taken now (the join is {self.state})")
        if self.state == WAITING:
            return self._waiting(frame, now)
        kind = "sign" if self.state == TIPPED else "start"
        if type(frame) is not dict or frame.get("t") != kind:
            got = frame.get("t") if type(frame) is dict else type(frame).__name__
            raise self._fail(f"expected {kind!r}, got {got!r}")
        if self.state == TIPPED:
            self._offered(frame.get("body"))
            return []
        self._started(frame)
        return []

    def _waiting(self, frame: Any, now: float) -> list[dict]:
        if type(frame) is dict and frame.get("t") == "seats":
            if seats_shape_ok(frame.get("seats")):
                self.seats = [{"seat": s["seat"], "name": clean_name(s["name"]), "taken": s["taken"], "you": s["you"]}
                              for s in frame["seats"]]
            return []
        if type(frame) is dict and frame.get("t") == "refused":
            raise self._fail(f"the host refused: {frame.get('why')}")
        if frame is None:
            raise self._fail("the host closed the lobby before the game started (cancelled, or its caravan stopped)")
        if type(frame) is not dict or frame.get("t") != "seated":
            raise self._fail("the host sent no seat")
        seat, nonce, length = frame.get("seat"), frame.get("nonce"), frame.get("beacon_length")
        if type(seat) is not int or type(nonce) is not bytes or type(length) is not int or not 0 < length <= 1 << 16:
            raise self._fail("malformed seat assignment")
        self.seat, self._nonce, self._length = seat, nonce, length
        self._tip = beacon_chain(self.secret, nonce, seat, length)[0]
        self.state, self.deadline = TIPPED, now + self.answer_timeout
        return [{"t": "tip", "tip": self._tip}]

    def _offered(self, body: Any) -> None:
        try:
            fields = G.wire.decode(body)
        except Exception:                              # noqa: BLE001 - any undecodable body
            raise self._fail("the genesis body does not decode") from None
        why = offered_genesis_problem(fields, self.info, seat=self.seat, key=self.key.public, tip=self._tip,
                                      host_key=self.host_key, nonce=self._nonce, beacon_length=self._length)
        if why:
            raise self._fail(f"the genesis offered for signing is not the advertised game with my seat: {why}")
        self.body, self.state = body, READY

    def signature(self, now: float) -> dict:
        """The signature of the checked body (only when `ready`: the caller listens first)."""
        if self.state != READY:
            raise JoinRefused(f"nothing to sign (the join is {self.state})")
        self.state, self.deadline = SIGNED, now + self.answer_timeout
        return {"t": "signature", "sig": G.sign(self.key, self.body)}

    def _started(self, start: dict) -> None:
        try:
            genesis = G.parse(start["genesis"])
        except (G.BadGenesis, KeyError, TypeError, ValueError) as exc:
            raise self._fail(str(exc) or type(exc).__name__, wrapped=True) from None
        if genesis.body != self.body:
            raise self._fail("the host started a different genesis than the one signed")
        names = start.get("names")
        names = [clean_name(n) for n in names] if type(names) is list and len(names) == len(genesis.seats) else []
        self.joined = Joined(start["genesis"], genesis, self.seat, names, start)
        self.state = JOINED
