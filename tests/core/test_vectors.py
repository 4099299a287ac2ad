"""The code reproduces the test vectors printed in specs/vectors (the wire format is pinned)."""

import json

from protocol import chain
from protocol.verify import verify_bytes
from tests.core import vectors


def test_core_vectors_are_reproduced():
    pinned = json.loads(vectors.PATH.read_text())
    assert vectors.compute() == pinned


def test_pinned_message_parses_and_verifies():
    pinned = json.loads(vectors.PATH.read_text())
    m = chain.parse(bytes.fromhex(pinned["message"]["raw"]))
    assert m.signature_ok() and m.id.hex() == pinned["message"]["id"]
    assert m.body == {"a": ["move", 3], "o": []} and m.refs == [[1, 0, bytes(32)]]


def test_pinned_fixture_transcript_verifies_and_is_reproduced():
    data = vectors.TRANSCRIPT.read_bytes()
    report = verify_bytes(data)
    assert report.ok, report.error
    assert vectors.fixture_transcript() == data
