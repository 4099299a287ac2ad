"""`caravan verify --jobs`: the replay never waits for the workers and uses what they report
(issue 25 item 5); the verdicts themselves are compared in test_verify_parallel."""

from __future__ import annotations

import random

import nacl.bindings
import pytest

from protocol import identity, transcript
from protocol.verify import check_signatures, verify_bytes
from tests.fixture_game import ENGINE
from tests.helpers import new_table, play


@pytest.fixture(scope="module")
def data() -> bytes:
    from protocol import games
    games.register(ENGINE)
    t = new_table(ENGINE, 4, seed=5, options={"rounds": 3})
    rng = random.Random(5)
    play(t, lambda seat, legal: rng.choice(legal))
    return transcript.dump(t.genesis.to_wire(), t.sessions[0].log)


def _opens(monkeypatch) -> list[int]:
    """Count the signature checks this process makes."""
    calls = [0]
    real = nacl.bindings.crypto_sign_open

    def counting(signed: bytes, public: bytes) -> bytes:
        calls[0] += 1
        return real(signed, public)
    monkeypatch.setattr(identity.nacl.bindings, "crypto_sign_open", counting)
    return calls


def test_a_checker_with_nothing_ready_never_holds_the_replay(data, monkeypatch) -> None:
    def idle(messages):
        while True:
            yield 0, ()
    calls = _opens(monkeypatch)
    report = verify_bytes(data, signatures=idle)
    assert report.ok
    alone = calls[0]
    assert verify_bytes(data).to_json() == report.to_json()
    assert calls[0] == 2 * alone                # it checked every signature itself, as alone


def test_the_replay_skips_signatures_a_checker_reported(data, monkeypatch) -> None:
    def everything_at_once(messages):
        yield len(messages), check_signatures(messages)
    calls = _opens(monkeypatch)
    assert verify_bytes(data).ok
    alone = calls[0]                          # every message and the genesis's signatures
    assert verify_bytes(data, signatures=everything_at_once).ok
    assert calls[0] == 2 * alone              # the messages' by the checker only, none again


def test_a_failed_or_lost_proof_check_means_a_replay_in_turn_with_the_same_report() -> None:
    """`proofs`: the replay goes on as if a message's deck proofs passed; when the checker says
    one did not (or a worker died), the transcript is checked again in turn: same report."""
    from tests.deck.deck_game import deck_table
    t, _ = deck_table(2, seed=4)
    data = t.transcript()
    asked: list[int] = []

    def lost(run):
        asked.append(1)
        return lambda: False
    assert verify_bytes(data, proofs=lost).to_json() == verify_bytes(data).to_json()
    assert asked, "the deck game's proofs went to the checker"

    def trusted(run):
        return lambda: run()            # run here, when asked: every proof still checked
    assert verify_bytes(data, proofs=trusted).to_json() == verify_bytes(data).to_json()
