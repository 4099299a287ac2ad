"""A host's side of a turn-based table's lobby by mail (issue 33), without any I/O: what the
host's node decides, keeps and posts, so a browser tab could host such a table with the
desktop's code (node/app/mail_lobby.py drives it).

`MailHost.fresh` makes the state of a new table (`state`: lobby.json's content, stored by the
shell as it is, with its own keys added), `MailHost(key, state)` takes it back at each run (one
MailHost a run: `refusals` counts that run's). `announcement` is what the shell leaves retained
on the lobby's topic; `feed` takes each letter's sealed bytes and says what it did (a
`Step`); `changed` says when the host has something to do. Once the table is full,
`to_sign` is the genesis body (the shell opens the game's postbox, then `keep`s it), `asks` the
letters asking each joiner that has not signed; once every seat signed, `genesis` is the signed
genesis and `start` the letters that start every joiner's game. Nothing here reads a clock or a
file; the beacon secret is the caller's."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from .. import genesis as G, wire
from ..identity import SigningKey, fingerprint, verify
from ..link.handshake import key_pin
from ..player import beacon_chain
from ..seat.hosting import BEACON_LENGTH, FULL, named
from ..seat.joiner import clean_name
from .lobby_join import DROPPED, NOTHING, REFUSED, SIGNED, UNREADABLE, Post, Step
from .lobby_letters import hide, open_frame, seal, sign_advert
from .mailbox import MailError

ROLE = "host"
MAX_REFUSALS = 32
"""Refusals one run of the host's node posts: a flood of joins costs it at most this many letters."""
SEATED = "seated"
"""What a letter did (a `Step` of lobby_join's, its `what`): a joiner took a seat (SEATED) or
a seat signed the genesis (SIGNED), `text` for the person; NOTHING, UNREADABLE and DROPPED as
for a joiner; REFUSED, a join this host refused (`text`: why; its letter in `posts` while the
run may post more)."""


@dataclass
class Signed:
    """The signed genesis, once every seat signed: what the host's seat plays."""
    genesis_raw: bytes
    game_id: bytes
    names: list[str]


class MailHost:
    """The host of one lobby by mail, for one run of its node (see the module doc)."""

    def __init__(self, key: SigningKey, state: dict[str, Any]):
        self.key, self.state = key, state
        self.fields: dict[str, Any] = wire.decode(state["advert"])[1]
        self.refusals = 0

    @classmethod
    def fresh(cls, key: SigningKey, fields: dict[str, Any], secret: bytes) -> "MailHost":
        """A new table whose advert has `fields`; `secret`: 32 random bytes, seat 0's beacon secret."""
        return cls(key, {"role": ROLE, "advert": sign_advert(key, fields), "secret": secret, "joiners": []})

    @property
    def lobby_id(self) -> bytes:
        return self.fields["lobby"]

    @property
    def players(self) -> int:
        return self.fields["players"]

    def announcement(self) -> bytes:
        """The retained announcement: what `caravan join` reads first (its `mail` field, the signed
        advert sealed with the invite's pin, tells it to join by mail)."""
        f = self.fields
        return json.dumps({"lobby": f["lobby"].hex(), "game": f["game"], "title": f["title"],
                           "players": f["players"], "seated": 1 + len(self.state["joiners"]), "port": None,
                           "spectators": False, "pace": f["pace"],
                           "mail": hide(self.state["advert"], key_pin(f["host_key"])).hex()}).encode()

    def full(self) -> bool:
        return len(self.state["joiners"]) == self.players - 1

    def changed(self) -> bool:
        """The table just filled up, or the last signature came: the host has something to do."""
        return (self.full() and "body" not in self.state) or ("body" in self.state and all(self.state["sigs"][1:]))

    def signed(self, seat: int) -> bool:
        return "sigs" in self.state and self.state["sigs"][seat] is not None

    def waiting(self) -> tuple[str, list[int]]:
        """What the host waits for, and for which seats."""
        joiners = len(self.state["joiners"])
        seats = [s for s in range(1, self.players) if s > joiners or not self.signed(s)]
        if "body" not in self.state:
            return f"{1 + joiners}/{self.players} seated; waiting for {self.players - 1 - joiners} more to join", seats
        missing = [str(s) for s in range(1, self.players) if not self.signed(s)]
        return f"the table is full; waiting for seat {', '.join(missing)} to sign the genesis", seats

    def feed(self, envelope: bytes) -> Step:
        """Take one letter's sealed bytes from the host's lobby postbox."""
        try:
            sender, frame = open_frame(self.key, self.lobby_id, envelope)
        except MailError as exc:
            return Step(UNREADABLE, str(exc), signer=exc.claimed)
        keys = [j[0] for j in self.state["joiners"]]
        if frame["t"] == "join":
            return self._join(sender, frame, keys)
        if frame["t"] == "signature" and "body" in self.state and sender in keys:
            return self._signature(sender, frame.get("sig"), 1 + keys.index(sender))
        return Step(DROPPED, f"a {frame['t']!r} letter from {fingerprint(sender)} dropped (not expected now)",
                        signer=sender)

    def _join(self, sender: bytes, frame: dict[str, Any], keys: list[bytes]) -> Step:
        if sender in keys or sender == self.fields["host_key"]:
            return Step(NOTHING, signer=sender)       # again (the broker may replay it): seated already
        if "body" in self.state:
            return self._refuse(sender, FULL)
        tips = frame.get("tips")
        if type(tips) is not list or len(tips) != self.players - 1 or \
                not all(type(t) is bytes and len(t) == 32 for t in tips):
            return self._refuse(sender, f"a join must carry one beacon tip for each of seats 1-{self.players - 1}")
        name = clean_name(frame.get("name"))
        self.state["joiners"].append([sender, name, tips])
        return Step(SEATED, f"{named(name, sender)} joined through the broker "
                                f"({1 + len(self.state['joiners'])}/{self.players} seated)", signer=sender)

    def _refuse(self, to: bytes, why: str) -> Step:
        """A refusal, posted while this run has posted fewer than MAX_REFUSALS."""
        if self.refusals >= MAX_REFUSALS:
            return Step(REFUSED, why, signer=to)
        self.refusals += 1
        return Step(REFUSED, why, [self._to(to, {"t": "refused", "why": why})], signer=to)

    def _signature(self, sender: bytes, sig: Any, at: int) -> Step:
        if not verify(sender, sig, b"caravan/genesis-sig/v1" + G.game_id_of(self.state["body"])):
            return Step(DROPPED, f"a signature from seat {at} that does not verify, dropped", signer=sender)
        self.state["sigs"][at] = sig
        return Step(SIGNED, f"seat {at} signed the genesis", signer=sender)

    def _to(self, key: bytes, frame: dict[str, Any]) -> Post:
        return Post(key, seal(self.key, self.lobby_id, key, frame))

    def _keys(self) -> list[bytes]:
        return [self.key.public] + [j[0] for j in self.state["joiners"]]

    def to_sign(self) -> bytes | None:
        """The genesis body once the table is full and before it is kept (each joiner's tip for
        the seat it got); None otherwise."""
        if not self.full() or "body" in self.state:
            return None
        f = self.fields
        tips = [beacon_chain(self.state["secret"], f["nonce"], 0, BEACON_LENGTH)[0]]
        tips += [j[2][s] for s, j in enumerate(self.state["joiners"])]
        return G.make_body(f["game"], f["options"], self._keys(), tips, f["nonce"], BEACON_LENGTH, f["time_limit"],
                           f["pace"])

    def keep(self, body: bytes) -> str:
        """Keep the body `to_sign` gave (the host's game postbox exists now) with the host's
        signature: the line saying whom it waits for."""
        self.state["body"], self.state["sigs"] = body, [G.sign(self.key, body)] + [None] * (self.players - 1)
        return (f"the table is full; the genesis waits on the broker for seat "
                f"{', '.join(str(s) for s in range(1, self.players))} to sign it")

    def asks(self) -> list[Post]:
        """The body to sign, to each joiner that has not signed it (at every run: a lost one comes again)."""
        if "body" not in self.state:
            return []
        return [self._to(j[0], {"t": "sign", "body": self.state["body"], "seat": s})
                for s, j in enumerate(self.state["joiners"], start=1) if self.state["sigs"][s] is None]

    def genesis(self) -> Signed | None:
        """The signed genesis once every seat signed (None before)."""
        if "body" not in self.state or not all(self.state["sigs"]):
            return None
        f = self.fields
        tips = wire.decode(self.state["body"])["beacon"]
        raw = G.Genesis(f["game"], f["options"], self._keys(), tips, BEACON_LENGTH, f["nonce"], self.state["body"],
                        self.state["sigs"], f["time_limit"], f["pace"]).to_wire()
        G.parse(raw)
        return Signed(raw, G.game_id_of(self.state["body"]), [f["name"]] + [j[1] for j in self.state["joiners"]])

    def start(self, signed: Signed) -> list[Post]:
        """The game is stored here: the start letter to each joiner (at every run of the lobby)."""
        self.state["game_id"] = signed.game_id
        return [self._to(j[0], {"t": "start", "genesis": signed.genesis_raw, "names": signed.names})
                for j in self.state["joiners"]]
