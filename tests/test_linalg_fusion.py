"""gen.linalg.fusion: composition of maps and the byte-block view of word maps."""

import random

import pytest
from hypothesis import given, settings, strategies as st

from gen.linalg.bits import AffineMap, BitMatrix
from gen.linalg.fusion import (block_diagonal, byte_blocks, circulant_blocks, fuse, fused_round_linear,
                               matrix_from_byte_blocks, rotl, word_linear_matrix)

seeds = st.integers(0, 2**32)
words32 = st.integers(0, 2**32 - 1)


def rnd_matrix(seed, n=8):
    rng = random.Random(seed)
    return BitMatrix([rng.getrandbits(n) for _ in range(n)], n)


def rnd_affine(seed):
    return AffineMap(rnd_matrix(seed), random.Random(seed ^ 0xABC).getrandbits(8))


@given(seeds, st.integers(0, 255))
def test_fuse_order_and_types(seed, x):
    f, g, h = rnd_affine(seed), rnd_affine(seed + 1), rnd_affine(seed + 2)
    assert fuse(f, g, h).apply(x) == f.apply(g.apply(h.apply(x)))
    a, b = rnd_matrix(seed + 3), rnd_matrix(seed + 4)
    m = fuse(a, b)
    assert isinstance(m, BitMatrix) and m == a @ b
    mixed = fuse(a, f, b)
    assert isinstance(mixed, AffineMap) and mixed.apply(x) == a.apply(f.apply(b.apply(x)))
    assert fuse(f) == f
    with pytest.raises(ValueError):
        fuse()


@given(st.lists(st.integers(0, 31), max_size=5), words32)
def test_word_linear_matrix(rots, x):
    m = word_linear_matrix(rots)
    want = x
    for r in rots:
        want ^= ((x << r) | (x >> (32 - r))) & 0xFFFFFFFF if r else x
    assert m.apply(x) == want
    assert rotl(x, 8, 32) == ((x << 8) | (x >> 24)) & 0xFFFFFFFF


@given(seeds, words32)
def test_byte_blocks_are_big_endian(seed, x):
    rng = random.Random(seed)
    m = BitMatrix([rng.getrandbits(32) for _ in range(32)], 32)
    grid = byte_blocks(m)
    assert matrix_from_byte_blocks(grid) == m
    xb = x.to_bytes(4, "big")  # xb[0] is the most significant byte
    yb = m.apply(x).to_bytes(4, "big")
    for i in range(4):
        acc = 0
        for j in range(4):
            acc ^= grid[i][j].apply(xb[j])
        assert acc == yb[i]


def test_byte_zero_is_most_significant():
    # x ↦ (x >> 24): moves the most significant byte (BE byte 0) into BE byte 3
    m = BitMatrix.from_columns([0] * 24 + [1 << k for k in range(8)], 32)
    grid = byte_blocks(m)
    assert grid[3][0] == BitMatrix.identity(8)
    assert all(grid[i][j] == BitMatrix.zero(8, 8) for i in range(4) for j in range(4) if (i, j) != (3, 0))


@given(seeds)
def test_block_diagonal(seed):
    a = rnd_matrix(seed)
    d = block_diagonal(a, 4)
    for x in (0, 0x12345678, 0xFFFFFFFF, seed & 0xFFFFFFFF):
        want = int.from_bytes(bytes(a.apply(b) for b in x.to_bytes(4, "big")), "big")
        assert d.apply(x) == want


@settings(max_examples=30)
@given(seeds, st.lists(st.integers(1, 31), min_size=1, max_size=4))
def test_rotations_by_multiples_of_8_plus_k_give_circulant_blocks(seed, rots):
    # x ^ rotl(x, r1) ^ ... commutes with rotl by 8, so its byte-block grid is circulant,
    # and block-diagonal maps on either side keep it so
    ml = word_linear_matrix(rots)
    c = circulant_blocks(ml)
    a1, a2 = rnd_matrix(seed), rnd_matrix(seed + 1)
    fused = fused_round_linear(a1, ml, a2)
    assert fused == block_diagonal(a1) @ ml @ block_diagonal(a2)
    fc = circulant_blocks(fused)
    assert fc == tuple(a1 @ b @ a2 for b in c)


def test_non_circulant_rejected():
    with pytest.raises(ValueError, match="not circulant"):
        circulant_blocks(BitMatrix.from_columns([0] * 24 + [1 << k for k in range(8)], 32))
