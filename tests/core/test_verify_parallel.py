"""`caravan verify` with signatures checked in worker processes (issue #17 item 4): the same
report as the serial replay, for honest, tampered and broken transcripts alike."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from node.cli.main import main
from node.cli.verify_pool import _chunks, in_processes
from protocol import chain, games, transcript
from protocol.identity import SigningKey, already_checked, verify
from protocol.verify import check_signatures, verify_bytes
from tests.fixture_game import ENGINE
from tests.helpers import new_table, play

VECTORS = sorted((Path(__file__).parents[2] / "specs" / "vectors" / "cli").glob("*.caravan"))
POOL = in_processes(2)


@pytest.fixture(scope="module")
def game() -> tuple[bytes, list[bytes]]:
    games.register(ENGINE)
    t = new_table(ENGINE, 4, seed=3, options={"rounds": 4})
    rng = random.Random(3)
    play(t, lambda seat, legal: rng.choice(legal))
    return t.genesis.to_wire(), list(t.sessions[0].log)


def _both(data: bytes) -> dict:
    serial = verify_bytes(data).to_json()
    assert verify_bytes(data, signatures=POOL).to_json() == serial
    return serial


@pytest.mark.parametrize("path", VECTORS, ids=lambda p: p.name)
def test_cli_vectors_same_verdict(path: Path) -> None:
    _both(path.read_bytes())


def test_honest_game_same_verdict(game) -> None:
    genesis, messages = game
    assert _both(transcript.dump(genesis, messages))["valid"]


@pytest.mark.parametrize("where", [0, 1, 37, -1])
def test_forged_signature_refused_in_parallel_too(game, where: int) -> None:
    """One flipped signature bit, early, in a later chunk or last: the refusal names the same
    message as the serial replay (a parallel path that trusted the workers' batches blindly,
    or skipped the replay's own check, would call it valid)."""
    genesis, messages = game
    forged = list(messages)
    raw = bytearray(forged[where])
    raw[-1] ^= 1
    forged[where] = bytes(raw)
    report = _both(transcript.dump(genesis, forged))
    assert not report["valid"]
    assert report["error"]["position"] == where % len(messages) + 1
    assert report["error"]["code"] == "bad-signature"


def test_other_messages_signed_by_a_seat_are_not_trusted(game) -> None:
    """A validly signed message that the transcript does not contain proves nothing: a
    message swapped for another seat's is refused the same way."""
    genesis, messages = game
    swapped = list(messages)
    swapped[5], swapped[6] = swapped[6], swapped[5]
    assert not _both(transcript.dump(genesis, swapped))["valid"]


def test_a_failing_checker_leaves_the_checks_to_the_replay(game) -> None:
    genesis, messages = game
    forged = list(messages)
    raw = bytearray(forged[50])
    raw[-1] ^= 1
    forged[50] = bytes(raw)
    data = transcript.dump(genesis, forged)

    def broken(msgs: list[bytes]):
        yield 10, check_signatures(msgs[:10])
        raise RuntimeError("a worker died")

    assert verify_bytes(data, signatures=broken).to_json() == verify_bytes(data).to_json()


def test_already_checked_is_scoped_and_only_covers_its_triples() -> None:
    key = SigningKey.from_seed(b"\x05" * 32)
    data = b"caravan/sig/v1" + bytes(32)
    forged = bytes(64)
    with already_checked({(key.public, forged, data)}):
        assert verify(key.public, forged, data)
        assert not verify(key.public, forged, data + b"x")
    assert not verify(key.public, forged, data)


def test_check_signatures_leaves_out_bad_ones(game) -> None:
    _, messages = game
    raw = bytearray(messages[2])
    raw[-1] ^= 1
    ok = check_signatures([messages[1], bytes(raw), b"junk", messages[3]])
    assert [chain.parse(m).id for m in (messages[1], messages[3])] == [t[2][-32:] for t in ok]


def test_check_signatures_reports_what_the_replay_asks_for_and_only_what_verifies(game) -> None:
    """The checker reads the author without decoding the envelope: its triples are exactly
    those the replay checks (`Message.signature_ok`), and a key it reads from a malformed
    envelope is no shortcut: the triple is one `verify` accepted, or it is left out."""
    _, messages = game
    asked = [(m.author, m.signature, chain.SIG_TAG + m.id) for m in map(chain.parse, messages)]
    assert check_signatures(messages) == asked
    env, sig = chain.split_outer(messages[0])
    broken = chain._outer(env + b"\x00", sig)          # trailing bytes: the replay refuses it
    reported = check_signatures([broken])
    assert all(verify(*t) for t in reported)
    with pytest.raises(chain.ParseError):
        chain.parse(broken)
    stranger = chain._outer(env[:38] + bytes(32) + env[70:], sig)     # another author: no valid signature
    assert check_signatures([stranger]) == []


def test_chunks_cover_every_message_once() -> None:
    assert list(_chunks(0, 2)) == []
    for total in (1, 63, 64, 65, 1000, 12345):
        spans = list(_chunks(total, 2))
        assert [s for s, _ in spans] == [0] + [e for _, e in spans[:-1]]
        assert (spans[-1][1] if spans else 0) == total


def test_cli_jobs_same_output(tmp_path, capsys) -> None:
    for path in VECTORS:
        outputs = []
        for extra in ([], ["--jobs", "2"]):
            code = main(["verify", str(path), "--json", *extra])
            outputs.append((code, json.loads(capsys.readouterr().out)))
        assert outputs[0] == outputs[1], path.name
