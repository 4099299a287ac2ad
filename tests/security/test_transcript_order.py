"""Issue 16, items 6 and 8: a transcript has one canonical order (each parallel step's
contributions in seat order, as every replica logs them), so its bytes identify its game;
and a missing or repeated message is named as the file's fault, not pinned on the
innocent seat whose message comes next."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from protocol import chain, transcript
from protocol.verify import verify_bytes
from tests.core.conftest import finished_table


@pytest.fixture(scope="module")
def t():
    return finished_table(3, seed=16)


def parts(t):
    return t.genesis.to_wire(), list(t.sessions[0].log)


def parallel_window(log: list[bytes]) -> int:
    """Index of the first two consecutive messages of one kind by different seats (two
    contributions to one parallel step, e.g. two commitments)."""
    for k in range(len(log) - 1):
        a, b = chain.parse(log[k]), chain.parse(log[k + 1])
        if a.kind == b.kind and a.author != b.author and a.kind in ("commit", "reveal", "beacon"):
            return k
    raise AssertionError("the fixture game has no parallel step")


def test_the_honest_transcript_verifies(t):
    g, log = parts(t)
    assert verify_bytes(transcript.dump(g, log)).ok


def test_permuting_one_parallel_step_is_refused(t):
    """The attack: swap two seats' commitments of one step. Both messages are valid and
    signed, the game plays out the same, but the file's hash changes."""
    g, log = parts(t)
    k = parallel_window(log)
    swapped = log[:k] + [log[k + 1], log[k]] + log[k + 2:]
    r = verify_bytes(transcript.dump(g, swapped))
    assert not r.valid, "a permuted transcript must not verify"
    # the lower seat's part, coming after the higher seat's, is the first out of order
    assert r.error["code"] == "bad-order" and r.error["position"] == k + 2, r.error
    assert r.error["seat"] is None, "nobody's signature is at fault for the file's order"


def test_a_missing_message_names_the_gap_not_a_later_signer(t):
    g, log = parts(t)
    for k in (parallel_window(log), len(log) // 2):
        r = verify_bytes(transcript.dump(g, log[:k] + log[k + 1:]))
        # found where it shows: at the gap, or (inside a parallel step, whose parts may skip a
        # stalled seat) at the first message that needs the missing one
        assert not r.valid and k + 1 <= r.error["position"] <= k + 4, r.error
        assert r.error["code"] in ("gap", "bad-order"), r.error
        assert r.error["seat"] is None, r.error


def test_a_repeated_message_is_a_duplicate_of_the_file(t):
    g, log = parts(t)
    r = verify_bytes(transcript.dump(g, log[:6] + [log[5]] + log[6:]))
    assert r.error["code"] == "duplicate" and r.error["position"] == 7 and r.error["seat"] is None, r.error


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_no_non_canonical_order_verifies(t, data):
    """Property: any reordering of a window of valid messages that changes the order fails."""
    g, log = parts(t)
    start = data.draw(st.integers(0, len(log) - 2), label="start")
    size = data.draw(st.integers(2, min(6, len(log) - start)), label="size")
    window = log[start:start + size]
    perm = data.draw(st.permutations(range(size)), label="perm")
    reordered = [window[i] for i in perm]
    if reordered == window:
        return
    r = verify_bytes(transcript.dump(g, log[:start] + reordered + log[start + size:]))
    assert not r.valid, (start, perm)
    assert r.error["seat"] is None or r.error["code"] not in ("gap", "bad-order", "duplicate"), r.error
