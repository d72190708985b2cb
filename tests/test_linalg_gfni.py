"""gen.linalg.gfni: the qword layout pinned by known values, and the instruction models."""

import random

import pytest
from hypothesis import given, strategies as st

from gen.linalg.bits import BitMatrix, bit_reversal
from gen.linalg.gf2n import Field
from gen.linalg.gfni import (IDENTITY_QWORD, gf2p8affineinvqb, gf2p8affineqb, gf2p8mul, gfni_qword,
                             matrix_from_gfni_qword)

qwords = st.integers(0, 2**64 - 1)


def test_known_qwords():
    assert IDENTITY_QWORD == 0x0102040810204080
    assert gfni_qword(BitMatrix.identity(8)) == 0x0102040810204080
    # bit reversal (output bit i = input bit 7-i) is the well-known 0x8040201008040201
    rev = BitMatrix.from_function(lambda x: int(f"{x:08b}"[::-1], 2), 8, 8)
    assert gfni_qword(rev) == 0x8040201008040201
    assert bit_reversal(8) == rev
    # a qword whose byte 7 (row 0) is 0xFF: output bit 0 = parity of the whole input byte
    m = matrix_from_gfni_qword(0xFF << 56)
    assert m.rows == (0xFF, 0, 0, 0, 0, 0, 0, 0)
    assert gf2p8affineqb(bytes([0x01, 0x03, 0x07, 0, 0, 0, 0, 0]), 0xFF << 56, 0) == bytes([1, 0, 1, 0, 0, 0, 0, 0])
    # shift left by one: output bit i = input bit i-1 -> row i = 1 << (i-1)
    shl = BitMatrix.from_function(lambda x: (x << 1) & 0xFF, 8, 8)
    assert gfni_qword(shl) == 0x0001020408102040
    assert gf2p8affineqb(bytes([0x81] * 8), gfni_qword(shl), 0) == bytes([0x02] * 8)


def test_imm8_is_the_constant():
    assert gf2p8affineqb(bytes(range(8)), IDENTITY_QWORD, 0x63) == bytes(x ^ 0x63 for x in range(8))


def test_affineinv_is_the_aes_sbox_with_the_aes_affine():
    # FIPS 197: SubBytes = affine(inv(x)); its matrix rows are b_i^b_{i+4}^...^b_{i+7} (+0x63).
    aes = BitMatrix([sum(1 << ((i + k) % 8) for k in (0, 4, 5, 6, 7)) for i in range(8)], 8)
    assert gfni_qword(aes) == 0xF1E3C78F1F3E7CF8  # the constant used with gf2p8affineinvqb for AES
    out = gf2p8affineinvqb(bytes([0x00, 0x01, 0x53, 0xFF, 0x10, 0x20, 0x30, 0x40]), gfni_qword(aes), 0x63)
    assert out == bytes([0x63, 0x7C, 0xED, 0x16, 0xCA, 0xB7, 0x04, 0x09])


@given(qwords)
def test_round_trip(q):
    assert gfni_qword(matrix_from_gfni_qword(q)) == q


@given(qwords, st.binary(min_size=8, max_size=8), st.integers(0, 255))
def test_model_matches_bitmatrix(q, xs, imm):
    m = matrix_from_gfni_qword(q)
    assert gf2p8affineqb(xs, q, imm) == bytes(m.apply(x) ^ imm for x in xs)
    inv = Field(0x11B).inverse_table()
    assert gf2p8affineinvqb(xs, q, imm) == bytes(m.apply(inv[x]) ^ imm for x in xs)


@given(st.lists(qwords, min_size=4, max_size=4), st.binary(min_size=32, max_size=32), st.integers(0, 255))
def test_each_group_uses_its_own_qword(qs, xs, imm):
    out = gf2p8affineqb(xs, qs, imm)
    for g in range(4):
        assert out[8 * g:8 * g + 8] == gf2p8affineqb(xs[8 * g:8 * g + 8], qs[g], imm)
    # a single int is broadcast
    assert gf2p8affineqb(xs, qs[0], imm) == gf2p8affineqb(xs, [qs[0]] * 4, imm)


@given(st.binary(min_size=16, max_size=16), st.binary(min_size=16, max_size=16))
def test_gf2p8mul(a, b):
    f = Field(0x11B)
    assert gf2p8mul(a, b) == bytes(f.mul(x, y) for x, y in zip(a, b))


def test_errors():
    with pytest.raises(ValueError):
        gf2p8affineqb(bytes(7), 0, 0)
    with pytest.raises(ValueError):
        gf2p8affineqb(bytes(16), [0], 0)
    with pytest.raises(ValueError):
        gfni_qword(BitMatrix.identity(4))
    with pytest.raises(ValueError):
        matrix_from_gfni_qword(1 << 64)
