"""Test vectors for specs/protocol.md: computed here, pinned in specs/vectors/core.json.

`python -m tests.core.vectors` rewrites the file (only when the format changes on purpose)."""

from __future__ import annotations

import json
import random
from pathlib import Path

from protocol import beacon, chain, genesis as G, wire
from protocol.commit import commitment, derive_salt
from protocol.hashing import tagged_hash
from protocol.identity import SigningKey, fingerprint

PATH = Path(__file__).resolve().parents[2] / "specs" / "vectors" / "core.json"
TRANSCRIPT = PATH.with_name("fixture-2p.caravan")


def compute() -> dict:
    key = SigningKey.from_seed(bytes(range(32)))
    other = SigningKey.from_seed(bytes(range(1, 33)))
    nonce = bytes(16)
    secret = b"\x11" * 32
    chain0 = beacon.make_chain(secret, nonce, 0, length=4)
    body = G.make_body("fixture", {"rounds": 1}, [key.public, other.public], [chain0[0], chain0[0]], nonce, 4)
    gid = G.game_id_of(body)
    msg = chain.seal(key, gid, 0, gid, [[1, 0, bytes(32)]], "act", {"a": ["move", 3], "o": []})
    salt = derive_salt(secret, gid, ["sim", 2])
    stream = beacon.Stream(b"\x22" * 32)
    return {
        "wire": {"value": "{'b': [1, -1, b'x', None, True], 'a': 'é'}",
                 "encoded": wire.encode({"b": [1, -1, b"x", None, True], "a": "é"}).hex()},
        "tagged_hash": {"tag": "caravan/test/v1", "fields": "[1, b'ab', 'c']",
                        "sha256": tagged_hash("caravan/test/v1", 1, b"ab", "c").hex()},
        "identity": {"seed": bytes(range(32)).hex(), "public": key.public.hex(), "fingerprint": fingerprint(key.public)},
        "genesis": {"body": body.hex(), "game_id": gid.hex(), "signature_seat0": G.sign(key, body).hex()},
        "message": {"raw": msg.raw.hex(), "id": msg.id.hex()},
        "commitment": {"secret": secret.hex(), "context": "['sim', 2]", "salt": salt.hex(), "value": 3,
                       "seat": 1, "digest": commitment(gid, 1, ["sim", 2], 3, salt).hex()},
        "beacon": {"seed": secret.hex(), "nonce": nonce.hex(), "seat": 0, "chain": [x.hex() for x in chain0],
                   "value_k1": beacon.value(gid, 1, [chain0[1], chain0[1]]).hex(),
                   "stream_seed": (b"\x22" * 32).hex(),
                   "below_6": [stream.below(6) for _ in range(10)],
                   "perm_8": list(beacon.Stream(b"\x22" * 32).permutation(8))},
    }


def fixture_transcript() -> bytes:
    from tests.fixture_game import ENGINE
    from tests.helpers import new_table, play
    t = new_table(ENGINE, 2, seed=2024, options={"rounds": 1})
    rng = random.Random(2024)
    play(t, lambda seat, legal: rng.choice(legal))
    return t.transcript()


if __name__ == "__main__":
    PATH.write_text(json.dumps(compute(), indent=1, ensure_ascii=False) + "\n")
    TRANSCRIPT.write_bytes(fixture_transcript())
    print(f"wrote {PATH} and {TRANSCRIPT}")
