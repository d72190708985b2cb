"""gen.linalg.shuffle: pshufb masks and the pshufb model."""

import pytest
from hypothesis import given, strategies as st

from gen.linalg.shuffle import (ZERO_INDEX, byte_xor_shuffles, byteswap_mask, check_permutation, compose_masks,
                                inverse_permutation, is_permutation, permutation_mask, pshufb,
                                rotate_words_mask)

perms16 = st.permutations(list(range(16)))
data16 = st.binary(min_size=16, max_size=16)


def words(data, w, little):
    return [int.from_bytes(data[k:k + w], "little" if little else "big") for k in range(0, 16, w)]


@given(data16, st.binary(min_size=16, max_size=16))
def test_pshufb_model(table, index):
    out = pshufb(table, index)
    for j in range(16):
        assert out[j] == (0 if index[j] & 0x80 else table[index[j] & 0x0F])


def test_pshufb_is_per_lane():
    table = bytes(range(32))
    index = bytes([0] * 16 + [15] * 16)
    assert pshufb(table, index) == bytes([0] * 16 + [31] * 16)


@given(perms16, data16)
def test_permutation_mask_and_inverse(perm, data):
    mask = permutation_mask(perm)
    out = pshufb(data, mask)
    assert all(out[j] == data[perm[j]] for j in range(16))
    inv = inverse_permutation(perm)
    assert pshufb(out, permutation_mask(inv)) == data
    assert all(perm[inv[j]] == j and inv[perm[j]] == j for j in range(16))


@given(perms16, perms16, data16)
def test_compose_masks(p, q, data):
    a, b = permutation_mask(p), permutation_mask(q)
    assert pshufb(pshufb(data, a), b) == pshufb(data, compose_masks(a, b))


def test_zero_entries():
    mask = permutation_mask([None] + list(range(1, 16)))
    assert mask[0] == ZERO_INDEX
    assert pshufb(bytes(range(1, 17)), mask)[0] == 0


@given(st.sampled_from([2, 4, 8, 16]), st.integers(-64, 64), data16, st.booleans())
def test_rotate_words_mask(w, k, data, little):
    bits = 8 * k
    out = pshufb(data, rotate_words_mask(w, bits, little_endian=little))
    nb = 8 * w
    r = bits % nb
    for x, y in zip(words(data, w, little), words(out, w, little)):
        assert y == ((x << r) | (x >> (nb - r))) & ((1 << nb) - 1)


def test_rotate_rejects_non_byte_amounts():
    with pytest.raises(ValueError, match="multiple of 8"):
        rotate_words_mask(4, 13)
    with pytest.raises(ValueError):
        rotate_words_mask(3, 8)


@given(st.sampled_from([1, 2, 4, 8, 16]), data16)
def test_byteswap(w, data):
    out = pshufb(data, byteswap_mask(w))
    assert words(out, w, True) == words(data, w, False)


def test_known_masks():
    assert byteswap_mask(4) == bytes([3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12])
    assert byteswap_mask(16) == bytes(range(15, -1, -1))
    assert rotate_words_mask(4, 8) == bytes([3, 0, 1, 2, 7, 4, 5, 6, 11, 8, 9, 10, 15, 12, 13, 14])


def test_permutation_errors_are_clear():
    with pytest.raises(ValueError, match="3 appears at positions 3 and 4"):
        check_permutation([0, 1, 2, 3, 3])
    with pytest.raises(ValueError, match="outside"):
        check_permutation([0, 5])
    with pytest.raises(ValueError, match="expected 16"):
        check_permutation(list(range(8)), 16)
    assert not is_permutation([1, 1])
    assert is_permutation([1, 0])
    with pytest.raises(ValueError):
        inverse_permutation([0, 0])
    with pytest.raises(ValueError):
        permutation_mask(list(range(15)))
    with pytest.raises(ValueError):
        permutation_mask([16] + list(range(15)))


@given(st.lists(st.lists(st.integers(0, 15), unique=True, max_size=9), min_size=16, max_size=16))
def test_byte_xor_shuffles_cover_each_source_once_in_as_few_as_the_busiest_byte(sources):
    perms = byte_xor_shuffles(sources)
    degree = max([len(row) for row in sources] + [sum(j in row for row in sources) for j in range(16)])
    assert len(perms) == degree
    for i in range(16):
        assert sorted(p[i] for p in perms if p[i] is not None) == sorted(sources[i])
    for p in perms:
        used = [j for j in p if j is not None]
        assert len(used) == len(set(used))


def test_byte_xor_shuffles_refuse_a_repeated_source():
    with pytest.raises(ValueError, match="distinct input bytes"):
        byte_xor_shuffles([[1, 1]] + [[]] * 15)
