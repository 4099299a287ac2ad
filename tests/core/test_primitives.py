from collections import Counter

import pytest
from hypothesis import given, strategies as st

from protocol import beacon, chain
from protocol.commit import commitment, derive_salt, opens
from protocol.identity import SigningKey, fingerprint, verify

GID = bytes(range(32))


def test_sign_and_verify():
    k = SigningKey.from_seed(b"\x01" * 32)
    sig = k.sign(b"hello")
    assert verify(k.public, sig, b"hello")
    assert not verify(k.public, sig, b"hellp")
    assert not verify(SigningKey.from_seed(b"\x02" * 32).public, sig, b"hello")
    assert not verify(k.public, sig[:-1], b"hello")
    assert not verify(b"\x00" * 31, sig, b"hello")
    assert SigningKey.from_seed(k.seed()).public == k.public


def test_fingerprint_is_short_stable_and_distinct():
    a, b = SigningKey.from_seed(b"\x01" * 32).public, SigningKey.from_seed(b"\x02" * 32).public
    assert fingerprint(a) == fingerprint(a)
    assert fingerprint(a) != fingerprint(b)
    assert len(fingerprint(a)) == 14 and fingerprint(a).count("-") == 2
    assert fingerprint(a) not in repr(SigningKey.from_seed(b"\x01" * 32).seed())


def test_commitment_binds_game_seat_context_and_value():
    salt = derive_salt(b"s" * 32, GID, ["sim", 3])
    c = commitment(GID, 1, ["sim", 3], 2, salt)
    assert opens(c, GID, 1, ["sim", 3], 2, salt)
    assert not opens(c, GID, 1, ["sim", 3], 3, salt)          # other value
    assert not opens(c, GID, 0, ["sim", 3], 2, salt)          # copy attack: other seat
    assert not opens(c, GID, 1, ["sim", 4], 2, salt)          # other step
    assert not opens(c, bytes(32), 1, ["sim", 3], 2, salt)    # other game
    assert not opens(c, GID, 1, ["sim", 3], 2, salt[:-1])     # malformed salt
    assert not opens(c, GID, 1, ["sim", 3], 1.5, salt)        # unencodable value: no crash
    assert derive_salt(b"s" * 32, GID, ["sim", 3]) != derive_salt(b"s" * 32, GID, ["sim", 4])


def test_hash_chain_links_back_to_the_tip():
    ch = beacon.make_chain(b"seed", b"n" * 16, 2, length=50)
    assert len(ch) == 51
    for k in range(1, 51):
        assert beacon.chain_step(b"n" * 16, 2, ch[k]) == ch[k - 1]
    assert beacon.chain_step(b"n" * 16, 3, ch[1]) != ch[0]     # bound to the seat


@given(st.binary(min_size=32, max_size=32), st.integers(1, 1000))
def test_stream_below_is_in_range_and_deterministic(seed, n):
    a, b = beacon.Stream(seed), beacon.Stream(seed)
    xs = [a.below(n) for _ in range(20)]
    assert xs == [b.below(n) for _ in range(20)]
    assert all(0 <= x < n for x in xs)


@given(st.binary(min_size=32, max_size=32), st.integers(1, 60))
def test_permutations_are_permutations(seed, n):
    p = beacon.Stream(seed).permutation(n)
    assert sorted(p) == list(range(n))


def test_stream_is_uniform_enough():
    # a die: 6,000 rolls, each face within 5 standard deviations of 1,000
    s = beacon.Stream(b"\x07" * 32)
    counts = Counter(s.below(6) for _ in range(6000))
    assert set(counts) == set(range(6))
    assert all(abs(c - 1000) < 5 * (6000 * (1 / 6) * (5 / 6)) ** 0.5 for c in counts.values())


def test_rejection_sampling_redraws_the_biased_tail():
    n = 3 << 30
    limit = (1 << 64) - (1 << 64) % n
    words = iter([(limit + 5).to_bytes(8, "big"), (n + 7).to_bytes(8, "big")])
    s = beacon.Stream(b"\x00" * 32)
    s._bytes = lambda k: next(words)          # first word is in the biased tail
    assert s.below(n) == 7                    # it was redrawn, not folded modulo n
    with pytest.raises(ValueError):
        beacon.Stream(b"").below(0)


def test_draw_resolves_ints_and_perms():
    out = beacon.draw(b"\x01" * 32, [("int", 6), ("perm", 4), ("int", 2)])
    assert 0 <= out[0] < 6 and sorted(out[1]) == [0, 1, 2, 3] and out[2] in (0, 1)
    assert out == beacon.draw(b"\x01" * 32, [("int", 6), ("perm", 4), ("int", 2)])
    with pytest.raises(ValueError):
        beacon.draw(b"\x01" * 32, [("coin", 2)])


def _msg(key, seq=0, body=1, game=GID):
    return chain.seal(key, game, seq, game, [], "act", body)


def test_seal_parse_roundtrip():
    k = SigningKey.from_seed(b"\x05" * 32)
    m = _msg(k, body={"a": [1, "x"], "o": []})
    p = chain.parse(m.raw)
    assert p == m and p.signature_ok()


@pytest.mark.parametrize("mutate, why", [
    (lambda raw: raw[:-1], "signature is missing"),
    (lambda raw: raw + b"\x00", "trailing"),
    (lambda raw: chain._outer(b"\x90", b"\x00" * 64), "8 fields"),
    (lambda raw: b"\x92\xc5\x00\x01\x90" + b"\xc4\x40" + bytes(64), "non-minimal"),
    (lambda raw: b"\x93" + raw[1:], "array"),
    (lambda raw: b"\x92\xa1a" + raw[3:], "not a byte string"),
])
def test_parse_errors_say_why(mutate, why):
    k = SigningKey.from_seed(b"\x05" * 32)
    with pytest.raises(chain.ParseError, match=why):
        chain.parse(mutate(_msg(k).raw))


def test_equivocation_proof_checks_and_forgery_is_refused():
    k = SigningKey.from_seed(b"\x05" * 32)
    a, b = _msg(k, body=1), _msg(k, body=2)
    assert chain.EquivocationProof(a.raw, b.raw).check() == (GID, k.public, 0)
    proof = chain.EquivocationProof.from_wire(chain.EquivocationProof(a.raw, b.raw).to_wire())
    assert proof.check()[2] == 0
    with pytest.raises(ValueError, match="same message"):
        chain.EquivocationProof(a.raw, a.raw).check()
    with pytest.raises(ValueError, match="differ"):
        chain.EquivocationProof(a.raw, _msg(k, seq=1).raw).check()
    # a forged second message: a's signature on other content
    forged = chain.seal(k, GID, 0, GID, [], "act", 2)
    other = SigningKey.from_seed(b"\x06" * 32)
    bad = chain.parse(forged.raw)
    from protocol import wire
    env, _ = wire.decode(forged.raw)
    fake = wire.encode([env, other.sign(b"caravan/sig/v1" + bad.id)])
    with pytest.raises(ValueError, match="forgery"):
        chain.EquivocationProof(a.raw, fake).check()


from tests.core.test_wire import values  # noqa: E402


@given(values, st.integers(0, (1 << 64) - 1), st.lists(st.tuples(st.integers(0, 15), st.integers(0, 1 << 40)),
                                                      max_size=5, unique_by=lambda r: r[0]))
def test_sealed_envelopes_are_canonical(body, seq, refs):
    k = SigningKey.from_seed(b"\x05" * 32)
    refs = [[s, q, bytes(32)] for s, q in sorted(refs)]
    m = chain.seal(k, GID, seq, GID, refs, "act", body)
    from protocol import wire
    env, _ = wire.decode(m.raw)
    assert env == wire.encode([1, GID, k.public, seq, GID, refs, "act", body])
    assert chain.parse(m.raw) == m
