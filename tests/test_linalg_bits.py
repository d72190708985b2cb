"""Properties of gen.linalg.bits: the bit-order convention, BitMatrix and AffineMap."""

import random

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from gen.linalg.bits import AffineMap, BitMatrix, parity


def random_matrix(seed, nrows, ncols):
    rng = random.Random(seed)
    return BitMatrix([rng.getrandbits(ncols) for _ in range(nrows)], ncols)


def random_invertible(seed, n):
    rng = random.Random(seed)
    while True:
        m = BitMatrix([rng.getrandbits(n) for _ in range(n)], n)
        if m.is_invertible():
            return m


seeds = st.integers(0, 2**32)
sizes = st.integers(1, 20)
bytes8 = st.integers(0, 255)


def to_numpy(m):
    return np.array([[m.entry(i, j) for j in range(m.ncols)] for i in range(m.nrows)], dtype=np.uint8)


def vec(x, n):
    return np.array([(x >> i) & 1 for i in range(n)], dtype=np.uint8)


def unvec(v):
    return sum(int(b) << i for i, b in enumerate(v))


def test_bit_order_convention():
    # Component i of a vector is bit i (LSB first); row i, bit j is entry (i, j).
    m = BitMatrix([0b0000_0010, 0, 0, 0, 0, 0, 0, 0], 8)  # output bit 0 = input bit 1
    assert m.entry(0, 1) == 1 and m.entry(1, 0) == 0
    assert m.apply(0b10) == 1 and m.apply(0b01) == 0
    assert m.columns()[1] == 1
    assert BitMatrix.identity(8).apply(0xA5) == 0xA5


def test_parity():
    assert [parity(x) for x in (0, 1, 3, 7, 0xFF, 0x1FF)] == [0, 1, 0, 1, 0, 1]


@given(seeds, sizes, sizes, st.integers(0, 2**20))
def test_apply_matches_numpy(seed, r, c, x):
    m = random_matrix(seed, r, c)
    x &= (1 << c) - 1
    assert m.apply(x) == unvec(to_numpy(m).astype(int) @ vec(x, c) % 2)


@given(seeds, sizes, sizes, sizes, st.integers(0, 2**20))
def test_composition(seed, a, b, c, x):
    A = random_matrix(seed, a, b)
    B = random_matrix(seed + 1, b, c)
    x &= (1 << c) - 1
    assert (A @ B).apply(x) == A.apply(B.apply(x))
    assert to_numpy(A @ B).tolist() == (to_numpy(A).astype(int) @ to_numpy(B) % 2).tolist()


@given(seeds, sizes)
def test_inverse(seed, n):
    m = random_invertible(seed, n)
    mi = m.inverse()
    assert m @ mi == BitMatrix.identity(n) == mi @ m
    assert m.is_invertible() and m.rank() == n
    assert mi.inverse() == m


@given(seeds, sizes)
def test_singular_raises(seed, n):
    m = random_matrix(seed, n, n)
    rows = list(m.rows)
    if n > 1:
        rows[-1] = rows[0]  # a repeated row makes it singular
    else:
        rows = [0]
    s = BitMatrix(rows, n)
    assert not s.is_invertible()
    with pytest.raises(ValueError):
        s.inverse()


@given(seeds, sizes, sizes)
def test_rank_matches_transpose_and_numpy_free_definition(seed, r, c):
    m = random_matrix(seed, r, c)
    assert m.rank() == m.transpose().rank()
    assert m.transpose().transpose() == m
    for i in range(r):
        for j in range(c):
            assert m.transpose().entry(j, i) == m.entry(i, j)
    # rank = log2 of the image size for small matrices
    if c <= 10:
        assert len({m.apply(x) for x in range(1 << c)}) == 1 << m.rank()


@given(seeds, sizes, sizes)
def test_from_columns_and_function(seed, r, c):
    m = random_matrix(seed, r, c)
    assert BitMatrix.from_columns(m.columns(), r) == m
    if c <= 12:
        assert BitMatrix.from_function(m.apply, c, r) == m


def test_from_function_rejects_nonlinear():
    with pytest.raises(ValueError, match="not linear"):
        BitMatrix.from_function(lambda x: x ^ 1, 8, 8)
    with pytest.raises(ValueError, match="not linear"):
        BitMatrix.from_function(lambda x: (x * x) & 0xFF, 8, 8)


@given(seeds, st.integers(1, 4), st.integers(1, 4), st.integers(0, 2**32 - 1))
def test_blocks_round_trip(seed, bi, bj, x):
    m = random_matrix(seed, 8 * bi, 8 * bj)
    grid = [[m.block(i, j) for j in range(bj)] for i in range(bi)]
    assert BitMatrix.from_blocks(grid) == m
    # block(i, j) maps input byte j (bits 8j..8j+7) to output byte i
    x &= (1 << (8 * bj)) - 1
    y = m.apply(x)
    for i in range(bi):
        acc = 0
        for j in range(bj):
            acc ^= m.block(i, j).apply((x >> (8 * j)) & 0xFF)
        assert acc == (y >> (8 * i)) & 0xFF


def test_block_numbering_is_lsb_first():
    # a 16x16 matrix that copies input byte 0 (bits 0..7) to output byte 1 (bits 8..15)
    m = BitMatrix.from_function(lambda x: (x & 0xFF) << 8, 16, 16)
    assert m.block(1, 0) == BitMatrix.identity(8)
    assert m.block(0, 1) == BitMatrix.zero(8, 8)


@given(seeds)
def test_hash_eq_repr(seed):
    m = random_matrix(seed, 8, 8)
    m2 = BitMatrix(list(m.rows), 8)
    assert m == m2 and hash(m) == hash(m2) and len({m, m2}) == 1
    assert "BitMatrix" in repr(m) and len(repr(m)) < 120
    assert BitMatrix(m.rows, 9) != m


def test_validation():
    with pytest.raises(ValueError):
        BitMatrix([0x100], 8)
    with pytest.raises(ValueError):
        BitMatrix.identity(3) @ BitMatrix.identity(4)


@given(seeds, bytes8, bytes8, bytes8, bytes8)
def test_affine_compose_inverse(seed, c1, c2, c3, x):
    f = AffineMap(random_invertible(seed, 8), c1)
    g = AffineMap(random_invertible(seed + 7, 8), c2)
    h = AffineMap(random_invertible(seed + 9, 8), c3)
    assert (f @ g).apply(x) == f.apply(g.apply(x)) == f.compose(g).apply(x)
    assert ((f @ g) @ h) == (f @ (g @ h))
    assert f.inverse().apply(f.apply(x)) == x == f.apply(f.inverse().apply(x))
    assert (f @ f.inverse()) == AffineMap.identity(8)
    assert (f @ g).inverse() == g.inverse() @ f.inverse()
    # mixing with plain matrices
    assert (f @ g.linear).apply(x) == f.apply(g.linear.apply(x))
    assert (g.linear @ f).apply(x) == g.linear.apply(f.apply(x))
    assert AffineMap.from_function(f.apply, 8, 8) == f
    assert f.table() == tuple(f.apply(v) for v in range(256))
