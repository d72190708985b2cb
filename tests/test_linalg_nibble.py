"""Properties of gen.linalg.nibble: an affine byte map as two 16-entry tables."""

import random

import pytest
from hypothesis import given, strategies as st

from gen.linalg.bits import AffineMap, BitMatrix
from gen.linalg.nibble import affine_from_nibble_tables, nibble_tables


def random_affine(seed):
    rng = random.Random(seed)
    return AffineMap(BitMatrix([rng.getrandbits(8) for _ in range(8)], 8), rng.getrandbits(8))


@given(st.integers(0, 2**32))
def test_tables_compute_the_map_and_round_trip(seed):
    f = random_affine(seed)
    lo, hi = nibble_tables(f)
    assert len(lo) == len(hi) == 16
    for x in range(256):
        assert lo[x & 15] ^ hi[x >> 4] == f.apply(x)
    # convention: the constant is folded into lo
    assert lo[0] == f.constant and hi[0] == 0
    assert affine_from_nibble_tables(lo, hi) == f


@given(st.integers(0, 2**32))
def test_split_constant_is_merged(seed):
    f = random_affine(seed)
    lo, hi = nibble_tables(f)
    lo2 = bytes(v ^ 0x5A for v in lo)
    hi2 = bytes(v ^ 0x5A for v in hi)
    assert affine_from_nibble_tables(lo2, hi2) == f


def test_plain_matrix_and_errors():
    lo, hi = nibble_tables(BitMatrix.identity(8))
    assert lo == bytes(range(16)) and hi == bytes(v << 4 for v in range(16))
    with pytest.raises(ValueError, match="not linear"):
        # lo[3] != lo[1] ^ lo[2] ^ lo[0]: no affine map has these tables
        affine_from_nibble_tables(bytes([0, 1, 2, 7] + list(range(4, 16))), bytes(16))
    with pytest.raises(ValueError):
        nibble_tables(BitMatrix.identity(4))
