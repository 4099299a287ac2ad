"""specs/protocol.md §7 and §14 P7, written out from the text alone: the draws of one Random
step read one SHA-512 word stream in order, each draw continuing where the last one stopped."""

import hashlib
from itertools import count

import msgpack

from protocol import beacon


def _spec_draws(value: bytes, draws):
    def words():
        for j in count():
            block = hashlib.sha512(msgpack.packb(["caravan/beacon-stream/v1", value, j], use_bin_type=True)).digest()
            for i in range(0, 64, 8):
                yield int.from_bytes(block[i:i + 8], "big")

    stream = words()

    def below(n):
        limit = 2 ** 64 - 2 ** 64 % n
        while True:
            r = next(stream)
            if r < limit:
                return r % n

    out = []
    for kind, n in draws:
        if kind == "int":
            out.append(below(n))
        else:
            p = list(range(n))
            for i in range(n - 1, 0, -1):
                j = below(i + 1)
                p[i], p[j] = p[j], p[i]
            out.append(tuple(p))
    return tuple(out)


def test_several_draws_share_one_stream_in_order():
    draws = (("perm", 4), ("perm", 16), ("perm", 10), ("int", 7), ("int", 1), ("int", 3 * 2 ** 30))
    for k in range(20):
        value = hashlib.sha256(bytes([k])).digest()
        assert beacon.draw(value, draws) == _spec_draws(value, draws)
    value = hashlib.sha256(b"x").digest()
    # a second draw is not a fresh stream: it continues after the first one's words
    assert beacon.draw(value, (("int", 2 ** 32), ("int", 2 ** 32)))[1] != beacon.draw(value, (("int", 2 ** 32),))[0]
