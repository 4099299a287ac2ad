"""Finished games among a few fixed people (the same keys from game to game, as friends who
play again), for `caravan record`'s tests: transcripts, and a data directory holding them as
a node keeps them (games/ID/transcript.caravan with peers.json's names, watched/*.caravan)."""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from protocol import games, genesis as G
from protocol.identity import SigningKey
from protocol.player import Player, beacon_chain
from protocol.session import Session
from tests.fixture_game import ENGINE
from tests.helpers import Table, play

games.register(ENGINE)

PEOPLE = {name: SigningKey.from_seed(bytes([i + 1]) * 32) for i, name in enumerate(["Ada", "Bea", "Cy", "Dee"])}
ME = "Ada"


@dataclass
class Game:
    seats: list[str]                  # who sits where (PEOPLE's names)
    data: bytes                       # the transcript
    named: bool = True                # the store kept the seats' names (Dee's never)
    watched: bool = False             # kept under watched/ (Ada did not play it)


def transcript(seats: list[str], seed: int, finish: bool = True, engine: Any = ENGINE,
               options: dict[str, Any] | None = None) -> bytes:
    """A game among these people (the fixture, one round, unless told), played with seeded
    random choices (`finish` False: cut before its end)."""
    rng = random.Random(seed)
    keys = [PEOPLE[s] for s in seats]
    secrets = [rng.randbytes(32) for _ in keys]
    nonce = rng.randbytes(16)
    tips = [beacon_chain(secrets[i], nonce, i, 256)[0] for i in range(len(keys))]
    options = {**engine.default_options(len(keys)), **(options or {})} if engine is not ENGINE else {"rounds": 1}
    body = G.make_body(engine.name, options, [k.public for k in keys], tips, nonce, 256)
    genesis = G.parse(G.Genesis(engine.name, options, [k.public for k in keys], tips, 256, nonce, body,
                                [G.sign(k, body) for k in keys]).to_wire())
    sessions = [Session(genesis, engine) for _ in keys]
    table = Table(keys, secrets, genesis, sessions,
                  [Player(sessions[i], i, keys[i], secrets[i]) for i in range(len(keys))])
    play(table, lambda seat, legal: rng.choice(legal))
    data = table.transcript()
    if not finish:
        from protocol import transcript as T
        g, messages = T.load(data)
        data = T.dump(g, messages[:len(messages) // 2])
    return data


def tampered(data: bytes) -> bytes:
    """The transcript with one bit of a message's signature flipped."""
    from protocol import transcript as T
    g, messages = T.load(data)
    raw = bytearray(messages[3])
    raw[-5] ^= 0x40
    return T.dump(g, messages[:3] + [bytes(raw)] + messages[4:])


def season() -> list[Game]:
    """Ada's games: with Bea, with Bea and Cy, with Cy, with Dee (no name kept); one she
    watched (Bea and Cy); and two that must not count: one tampered, one unfinished."""
    return [Game(["Ada", "Bea"], transcript(["Ada", "Bea"], 1)),
            Game(["Bea", "Ada", "Cy"], transcript(["Bea", "Ada", "Cy"], 2)),
            Game(["Cy", "Ada"], transcript(["Cy", "Ada"], 3)),
            Game(["Ada", "Bea"], transcript(["Ada", "Bea"], 4)),
            Game(["Ada", "Dee"], transcript(["Ada", "Dee"], 5), named=False),
            Game(["Bea", "Cy"], transcript(["Bea", "Cy"], 6), watched=True),
            Game(["Ada", "Bea"], tampered(transcript(["Ada", "Bea"], 7))),
            Game(["Ada", "Cy"], transcript(["Ada", "Cy"], 8, finish=False))]


def data_dir(root: Path, played: list[Game], name: str = "Ada") -> Path:
    """A data directory as Ada's node keeps one: her key, her name (home.json) and the games."""
    from protocol import transcript as T

    root.mkdir(parents=True, exist_ok=True)
    (root / "identity.key").write_bytes(PEOPLE[ME].seed())
    (root / "home.json").write_text(json.dumps({"name": name, "token": "t" * 24}))
    for g in played:
        genesis_raw, _ = T.load(g.data)
        gid = G.parse(genesis_raw).game_id.hex()
        if g.watched:
            (root / "watched").mkdir(exist_ok=True)
            (root / "watched" / f"{gid}.caravan").write_bytes(g.data)
            continue
        d = root / "games" / gid
        d.mkdir(parents=True)
        (d / "genesis.bin").write_bytes(genesis_raw)
        names = {str(i): s for i, s in enumerate(g.seats) if g.named and s != "Dee"}
        (d / "peers.json").write_text(json.dumps({"peers": {}, "names": names}))
        (d / "transcript.caravan").write_bytes(g.data)
    return root
