"""The message log's format (protocol/message_log.py), the one both stores write: its bytes are
pinned; a torn tail — the last record cut at any byte, failing its checksum at the very end, or
zeros past it — is dropped; any other damage raises LogDamaged at the bad record's offset,
never silently dropping the messages after it."""

from __future__ import annotations

import pytest

from protocol import message_log as L

MESSAGES = [bytes([i + 1]) * (20 + i) for i in range(4)]


def log(messages: list[bytes]) -> bytes:
    return L.MAGIC + b"".join(L.record(m) for m in messages)


def offset_of(index: int) -> int:
    """Where the record of MESSAGES[index] begins."""
    return len(log(MESSAGES[:index]))


def test_the_bytes_are_pinned_and_round_trip():
    assert log([b"hello"]) == b"CARAVAN-LOG\x02\n" + bytes.fromhex("000000053610a68668656c6c6f")
    data = log(MESSAGES)
    assert L.parse(data) == MESSAGES and L.scan(data) == (MESSAGES, len(data))
    assert L.scan(L.MAGIC) == ([], len(L.MAGIC))
    big = b"x" * L.MAX_RECORD
    assert L.parse(log([big, b"y"])) == [big, b"y"]


def test_a_magic_cut_short_is_a_log_to_make_anew():
    for cut in range(len(L.MAGIC)):
        assert L.scan(L.MAGIC[:cut]) == ([], 0)


@pytest.mark.parametrize("data", [b"CARAVAN-LOX", b"\x00\x00\x00\x05hello", b"CARAVAN-LOG\x01\n" + L.record(b"m")])
def test_data_without_the_magic_is_not_a_log(data):
    with pytest.raises(L.NotALog) as caught:
        L.parse(data)
    assert caught.value.offset == 0


def test_a_torn_tail_at_every_byte_of_the_last_record_is_dropped():
    whole, good = log(MESSAGES), offset_of(len(MESSAGES) - 1)
    for cut in range(good, len(whole)):
        assert L.scan(whole[:cut]) == (MESSAGES[:-1], good), cut
    for i in range(good + L.HEADER.size, len(whole)):         # a byte of the last message flipped
        torn = bytearray(whole)
        torn[i] ^= 0x40
        assert L.scan(bytes(torn)) == (MESSAGES[:-1], good), i
    assert L.scan(whole[:-3] + bytes(3)) == (MESSAGES[:-1], good)    # its end never written
    for zeros in (1, 7, 8, 4096):                             # zeros a crash left past the end
        assert L.scan(whole + bytes(zeros)) == (MESSAGES, len(whole))


def test_a_flipped_byte_in_a_middle_record_raises_with_its_offset():
    whole, at = log(MESSAGES), offset_of(1)
    for i in range(at + 4, offset_of(2)):                      # its checksum or its message
        bad = bytearray(whole)
        bad[i] ^= 0x01
        with pytest.raises(L.LogDamaged) as caught:
            L.parse(bytes(bad))
        assert (caught.value.offset, caught.value.problem, caught.value.length) == (
            at, "a record fails its checksum", len(MESSAGES[1])), i


@pytest.mark.parametrize("length", [0, L.MAX_RECORD + 1, 1 << 30])
@pytest.mark.parametrize("index", [1, len(MESSAGES) - 1])
def test_a_length_of_zero_or_over_the_bound_raises_even_in_the_last_record(length, index):
    """A torn write leaves a true length (its message cut short) or zeros, never these."""
    at = offset_of(index)
    bad = bytearray(log(MESSAGES))
    bad[at:at + 4] = length.to_bytes(4, "big")
    with pytest.raises(L.LogDamaged) as caught:
        L.parse(bytes(bad))
    assert (caught.value.offset, caught.value.problem, caught.value.length) == (
        at, f"a record length of {length} bytes", length)
