"""ops.shuffle with an explicit permutation (the session's face-down return)."""

import pytest

from protocol.deck import DeckError, InvalidProof, card_table, ops

GAME = b"perm-test".ljust(32, b"\0")
SEEDS = [bytes([i + 1]) * 32 for i in range(3)]


def setup():
    keys = [ops.key_share(s, GAME, i) for i, s in enumerate(SEEDS)]
    y = ops.joint_key([k[1] for k in keys])
    table = card_table("perm", 4)
    return [k[0] for k in keys], y, table, ops.initial_deck(y, table)


def test_explicit_permutation_is_applied_proven_and_hidden():
    xs, y, table, deck = setup()
    ctx = ops.deck_context(GAME, 0, 5, "perm", 1)
    for perm in ([2, 0, 3, 1], [0, 1, 2, 3], [3, 2, 1, 0]):
        out, proof = ops.shuffle(y, deck, SEEDS[0], ctx, perm=perm)
        ops.verify_shuffle(y, deck, out, proof, ctx)
        assert [table.decode(ops.open_with_keys(c, xs)) for c in out] == perm
        assert not {c[1] for c in out} & {c[1] for c in deck}
    # deterministic, and a different permutation never reuses the re-encryption randomness
    a, _ = ops.shuffle(y, deck, SEEDS[0], ctx, perm=[1, 0, 2, 3])
    b, _ = ops.shuffle(y, deck, SEEDS[0], ctx, perm=[1, 0, 2, 3])
    c, _ = ops.shuffle(y, deck, SEEDS[0], ctx, perm=[0, 1, 2, 3])
    assert a == b and not {x[1] for x in a} & {x[1] for x in c}
    # the proof still binds the context
    with pytest.raises(InvalidProof):
        ops.verify_shuffle(y, deck, a, ops.shuffle(y, deck, SEEDS[0], ctx, perm=[1, 0, 2, 3])[1],
                           ops.deck_context(GAME, 0, 6, "perm", 1))


@pytest.mark.parametrize("perm", [[0, 0, 1, 2], [0, 1, 2], [1, 2, 3, 4], [0, 1, 2, True]])
def test_a_non_permutation_is_refused(perm):
    _, y, _, deck = setup()
    with pytest.raises(DeckError):
        ops.shuffle(y, deck, SEEDS[0], b"ctx", perm=perm)
