"""A joiner's side of a turn-based table's lobby by mail (issue 33), without any I/O: what a
friend's node checks, keeps and posts, so the desktop (node/app/mail_lobby.py) and a browser
tab take a seat at such a table alike.

The shell reads the lobby's announcement and gives `read_advert` the hidden advert in it (and
`full_problem` the seats it says are taken); `MailJoiner.fresh` makes the state of a new join
(`state`: lobby.json's content, which the shell stores as it is and may add its own keys to),
`MailJoiner(key, state)` takes it back at a later run. `join` is the letter to post once the
joiner's own lobby postbox exists; `feed` takes each letter's sealed bytes and says what it did
(a `Step`): the letters to post (to whose inbox), whether `state` changed (the shell saves it
before it acknowledges the letter), and what happened. A genesis body the host offers that is
the advertised table with this key and tip at its seat is `TO_SIGN`: the shell makes its seat
reachable in the game (its game postbox, what it needs to take its seat back), then `sign`
gives the only letter that signs anything; this seat signs one body per lobby, ever. The
host's signed genesis of that body is `STARTED`. Nothing here reads a clock, a file or a random
source: the beacon secret is the caller's."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .. import games, genesis as G, wire
from ..identity import SigningKey, fingerprint
from ..player import beacon_chain
from ..seat.hosting import BEACON_LENGTH
from ..seat.joiner import clean_name, offered_genesis_problem
from .lobby_letters import open_advert, open_frame, seal
from .mailbox import MailError

ROLE = "join"
"""The `role` a joiner's state holds (the host's is "host")."""
MAX_WHY = 200
"""Characters of the host's refusal shown."""

NOTHING, UNREADABLE, DROPPED, NOT_SIGNED, TO_SIGN, SIGNED, STARTED, REFUSED = (
    "nothing", "unreadable", "dropped", "not signed", "to sign", "signed", "started", "refused")
"""What a letter did: nothing to do (not expected now); it does not open, or is no lobby frame
(`text` says why); it is dropped (`text`: why); the offered body is not the advertised table
(`text`, for the person); a body to sign once the seat is reachable (`offer`); signed (`text`);
the game starts (`started`); the host refused this join (`text`)."""


class MailRefused(Exception):
    """Why this node will not join the lobby: one line, nothing was sent or signed."""


def by_mail(announcement: dict[str, Any] | None) -> bytes | None:
    """The sealed advert in a lobby's announcement (its retained JSON) when it is joined by
    mail (None: a live lobby)."""
    mail = (announcement or {}).get("mail")
    try:
        return bytes.fromhex(mail) if type(mail) is str else None
    except ValueError:
        return None


def read_advert(hidden: bytes | None, pin: bytes, lobby_id: bytes) -> tuple[dict[str, Any], bytes]:
    """(fields, signed advert) of the lobby `lobby_id` whose announcement holds `hidden`, once
    it proves to be signed by the key with the invite's `pin` and to be a table this Caravan
    has; MailRefused (one line) otherwise."""
    try:
        fields, signed = open_advert(hidden or b"", pin, lobby_id)
    except MailError as exc:
        raise MailRefused(str(exc)) from None
    if fields.get("game") not in games.names() or type(fields.get("players")) is not int or \
            not 1 < fields["players"] <= 16 or fields.get("beacon_length") != BEACON_LENGTH:
        raise MailRefused(f"lobby {lobby_id.hex()[:8]} is for {fields.get('game')!r}, a game or table this "
                          "Caravan does not have (a different version?)")
    return fields, signed


def full_problem(fields: dict[str, Any], seated: Any) -> str | None:
    """Why a new join is not posted, when the announcement says every seat is taken (the host
    refuses it too, when it next runs); None otherwise."""
    if seated != fields["players"]:
        return None
    return f"lobby {fields['lobby'].hex()[:8]} is full: its {fields['players']} seats are taken"


@dataclass
class Post:
    """A letter to post: to the inbox of the key `to`."""
    to: bytes
    letter: bytes


@dataclass
class Offer:
    """A checked genesis body and the seat it gives this key: what the shell prepares before
    `sign` (the game's postbox, and what takes the seat back: the body, the secret, the seat)."""
    body: bytes
    seat: int
    secret: bytes

    @property
    def game_id(self) -> bytes:
        return G.game_id_of(self.body)


@dataclass
class Started:
    """The host's signed genesis of the body this seat signed: what it needs to play."""
    genesis_raw: bytes
    game_id: bytes
    seat: int
    secret: bytes
    names: list[str]


@dataclass
class Step:
    """What one letter did (see the module doc)."""
    what: str
    text: str = ""
    posts: list[Post] = field(default_factory=list)
    save: bool = False
    """`state` changed: saved before the letter is acknowledged."""
    signer: bytes | None = None
    """The key the letter is signed by, or claims to be (None when it does not open)."""
    offer: Offer | None = None
    started: Started | None = None


class MailJoiner:
    """One joiner in one lobby by mail, across its node's runs (see the module doc)."""

    def __init__(self, key: SigningKey, state: dict[str, Any]):
        self.key, self.state = key, state
        self.fields: dict[str, Any] = wire.decode(state["advert"])[1]
        """The advert's fields, checked by `read_advert` when the join began."""
        self._offer: Offer | None = None

    @classmethod
    def fresh(cls, key: SigningKey, signed: bytes, secret: bytes) -> "MailJoiner":
        """A new join of the lobby whose signed advert `read_advert` checked; `secret`: 32
        random bytes, this seat's beacon secret."""
        return cls(key, {"role": ROLE, "advert": signed, "secret": secret})

    @property
    def lobby_id(self) -> bytes:
        return self.fields["lobby"]

    @property
    def host_key(self) -> bytes:
        return self.fields["host_key"]

    def join(self, name: str) -> Post:
        """The join: this node's name and a beacon tip for every seat it may get (the tip
        depends on the seat, which only the host assigns)."""
        tips = [self._tip(s) for s in range(1, self.fields["players"])]
        return self._to_host({"t": "join", "name": clean_name(name), "tips": tips})

    def waiting(self) -> str:
        """What this joiner waits for now."""
        return "the host to start the game" if "body" in self.state else "the host to seat you"

    def feed(self, envelope: bytes) -> Step:
        """Take one letter's sealed bytes from this node's lobby postbox."""
        try:
            sender, frame = open_frame(self.key, self.lobby_id, envelope)
        except MailError as exc:
            return Step(UNREADABLE, str(exc), signer=exc.claimed)
        if sender != self.host_key:
            return Step(DROPPED, f"a letter from {fingerprint(sender)}, not the host, dropped", signer=sender)
        if frame["t"] == "refused":
            return Step(REFUSED, f"the host refused: {str(frame.get('why'))[:MAX_WHY]}", signer=sender)
        if frame["t"] == "sign":
            return self._offered(frame)
        if frame["t"] == "start" and "body" in self.state:
            return self._started(frame)
        return Step(NOTHING, signer=sender)

    def sign(self) -> Step:
        """The signature of the body `feed` gave `TO_SIGN` (its seat is reachable now); the
        state keeps the body and seat from here on."""
        if self._offer is None or "body" in self.state:
            raise ValueError("no genesis body waits to be signed")
        offer, self._offer = self._offer, None
        self.state["body"], self.state["seat"] = offer.body, offer.seat
        step = self._signature(offer.seat)
        step.save = True
        return step

    def _tip(self, seat: int) -> bytes:
        return beacon_chain(self.state["secret"], self.fields["nonce"], seat, BEACON_LENGTH)[0]

    def _to_host(self, frame: dict[str, Any]) -> Post:
        return Post(self.host_key, seal(self.key, self.lobby_id, self.host_key, frame))

    def _dropped(self, why: str) -> Step:
        return Step(DROPPED, why, signer=self.host_key)

    def _offered(self, frame: dict[str, Any]) -> Step:
        """Check the genesis body the host offers as a live joiner does."""
        body, at = frame.get("body"), frame.get("seat")
        if type(body) is not bytes or type(at) is not int or not 0 < at < self.fields["players"]:
            return self._dropped("a malformed genesis to sign, dropped")
        if self.state.get("body", body) != body:
            return self._dropped("the host offered a second, different genesis; this seat signs only the first")
        try:
            offered = wire.decode(body)
        except Exception:                                     # noqa: BLE001 - any undecodable input
            offered = None
        why = offered_genesis_problem(offered, self.fields, seat=at, key=self.key.public, tip=self._tip(at),
                                      host_key=self.host_key, nonce=self.fields["nonce"],
                                      beacon_length=BEACON_LENGTH)
        if why:
            return Step(NOT_SIGNED, f"the genesis offered for signing is not the advertised game with my seat: {why}; "
                        "not signed", signer=self.host_key)
        if "body" in self.state:
            return self._signature(at)                        # asked again: the same signature again
        self._offer = Offer(body, at, self.state["secret"])
        return Step(TO_SIGN, signer=self.host_key, offer=self._offer)

    def _signature(self, at: int) -> Step:
        body = self.state["body"]
        text = (f"signed the genesis of game {G.game_id_of(body).hex()[:16]} (seat {at}); the host starts it when "
                "every seat has signed")
        return Step(SIGNED, text, [self._to_host({"t": "signature", "sig": G.sign(self.key, body)})],
                    signer=self.host_key)

    def _started(self, frame: dict[str, Any]) -> Step:
        """The host's signed genesis, when it is the body this seat signed."""
        try:
            genesis = G.parse(frame.get("genesis"))
        except (G.BadGenesis, TypeError, ValueError) as exc:
            return self._dropped(f"the host's genesis does not parse ({exc}), dropped")
        if genesis.body != self.state["body"]:
            return self._dropped("the host started a different genesis than the one signed, dropped")
        names = frame.get("names")
        names = [clean_name(n) for n in names] if type(names) is list and len(names) == len(genesis.seats) else []
        self.state["game_id"], self.state["started"] = genesis.game_id, True
        return Step(STARTED, save=True, signer=self.host_key,
                    started=Started(frame["genesis"], genesis.game_id, self.state["seat"], self.state["secret"],
                                    names))
