"""gen.linalg.shuffle at more than one lane: widened permutations, masks of
any width, the split of a cross-lane permutation at a lane swap, and the
deinterleave that undoes unpacklo/unpackhi."""

import pytest
from hypothesis import given, strategies as st

from gen.linalg.shuffle import (ZERO_INDEX, deinterleave_mask, lane_permutation_mask, lane_swap_partner,
                                pshufb, split_at_lane_swap, widen_permutation)


def swap_lanes(data):
    """Reference lane swap: the two 16-byte halves of every 32 bytes exchanged."""
    return b"".join(data[i + 16:i + 32] + data[i:i + 16] for i in range(0, len(data), 32))


def permute(data, perm):
    return bytes(data[v] for v in perm)


@st.composite
def block_permutations(draw, blocks):
    """A permutation of 32*blocks bytes that keeps every byte in its 32-byte block."""
    perm = []
    for b in range(blocks):
        perm += [32 * b + v for v in draw(st.permutations(list(range(32))))]
    return perm


@given(st.sampled_from([1, 2]).flatmap(
    lambda n: st.tuples(block_permutations(n), st.binary(min_size=32 * n, max_size=32 * n))))
def test_split_at_lane_swap_recombines_to_the_permutation(case):
    perm, data = case
    in_lane, swapped = split_at_lane_swap(perm)
    a, b = pshufb(data, in_lane), pshufb(swap_lanes(data), swapped)
    assert bytes(x | y for x, y in zip(a, b)) == permute(data, perm)
    assert bytes(x ^ y for x, y in zip(a, b)) == permute(data, perm)
    # every output byte comes from exactly one of the two shuffles
    assert all((i & ZERO_INDEX) != (s & ZERO_INDEX) for i, s in zip(in_lane, swapped))


def test_split_of_an_in_lane_permutation_needs_no_swap():
    perm = [j ^ 1 for j in range(32)]
    in_lane, swapped = split_at_lane_swap(perm)
    assert in_lane == lane_permutation_mask(perm)
    assert set(swapped) == {ZERO_INDEX}


def test_split_rejects_what_it_cannot_do():
    with pytest.raises(ValueError, match="whole 32-byte blocks"):
        split_at_lane_swap(list(range(16)))
    with pytest.raises(ValueError, match="leaves its 32-byte block"):
        split_at_lane_swap(list(range(32, 64)) + list(range(32)))
    with pytest.raises(ValueError, match="not a permutation"):
        split_at_lane_swap([0] * 32)


@given(st.permutations(list(range(8))), st.sampled_from([1, 2, 4]), st.data())
def test_widen_permutation_moves_groups_of_sub_elements(perm, factor, data):
    wide = widen_permutation(perm, factor)
    groups = data.draw(st.lists(st.binary(min_size=factor, max_size=factor), min_size=8, max_size=8))
    assert permute(b"".join(groups), wide) == b"".join(groups[v] for v in perm)


@given(st.lists(st.permutations(list(range(16))), min_size=1, max_size=4), st.data())
def test_lane_permutation_mask_is_each_lanes_mask(lanes, data):
    perm = [16 * i + v for i, lane in enumerate(lanes) for v in lane]
    x = data.draw(st.binary(min_size=len(perm), max_size=len(perm)))
    assert pshufb(x, lane_permutation_mask(perm)) == permute(x, perm)


def test_lane_permutation_mask_rejects_a_cross_lane_source():
    with pytest.raises(ValueError, match="not in its 128-bit lane"):
        lane_permutation_mask([16] + list(range(1, 32)))


def test_lane_swap_partner_is_the_swap():
    data = bytes(range(64))
    assert bytes(lane_swap_partner(j) for j in range(64)) == swap_lanes(data)


@given(st.binary(min_size=16, max_size=16), st.binary(min_size=16, max_size=16))
def test_deinterleave_then_64_bit_unpack_undoes_the_byte_unpack(e, o):
    lo = bytes(v for pair in zip(e[:8], o[:8]) for v in pair)   # unpacklo_epi8(e, o)
    hi = bytes(v for pair in zip(e[8:], o[8:]) for v in pair)   # unpackhi_epi8(e, o)
    a, b = pshufb(lo, deinterleave_mask()), pshufb(hi, deinterleave_mask())
    assert a[:8] + b[:8] == e and a[8:] + b[8:] == o          # unpacklo/hi_epi64(a, b)
