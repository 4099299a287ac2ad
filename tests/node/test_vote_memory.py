"""node/storage/vote_memory.py: what a postbox node keeps of an abandon vote between its runs (issue
33, item 5): it reads back what was written, keeps a bounded number of the others' frames
with only their known fields, and names a damaged file."""

from __future__ import annotations

import pytest

from node.storage.vote_memory import FILE, KEPT, VoteMemory, load, save


def proposal(length: int, **extra) -> dict:
    return {"t": "propose", "stalled": [2], "length": length, "digest": bytes(32), "h": [length, 0, 0], **extra}


def test_what_is_saved_is_read_back(tmp_path):
    assert load(tmp_path) == VoteMemory()                      # nothing kept yet
    memory = VoteMemory(([3, 2, 1], 1_790_000_000_000), [proposal(6)],
                        {**proposal(6), "t": "abandon", "by": 0, "sig": bytes(64)})
    memory.hear(1, proposal(6, by=1))
    save(tmp_path, memory)
    again = load(tmp_path)
    assert again == memory
    assert again.held == ([3, 2, 1], 1_790_000_000_000)


def test_the_others_frames_are_bounded_and_keep_only_their_fields(tmp_path):
    memory = VoteMemory()
    for length in range(KEPT + 3):
        memory.hear(1, proposal(length, extra=1.5))             # a float would not even encode
    memory.hear(1, proposal(KEPT + 2))                           # the same again: kept once
    memory.hear(0, proposal(1))
    mine = [f for s, f in memory.heard if s == 1]
    assert [f["length"] for f in mine] == list(range(3, KEPT + 3))
    assert all("extra" not in f for _, f in memory.heard)
    save(tmp_path, memory)
    assert len(load(tmp_path).heard) == KEPT + 1


@pytest.mark.parametrize("data", [b"\x93junk", b"\x81\xa4held\x01"])
def test_a_damaged_file_is_named(tmp_path, data):
    (tmp_path / FILE).write_bytes(data)
    with pytest.raises(ValueError, match=FILE):
        load(tmp_path)
