"""gen.linalg.aesni_form: AESENCLAST turned into M·inv(x) ⊕ c, with an AES model built here.

The AES pieces are rebuilt from FIPS 197 in this file (linalg itself knows no cipher)."""

import random

import pytest
from hypothesis import given, settings, strategies as st

from gen.linalg.aesni_form import aesenclast, aesni_form
from gen.linalg.bits import AffineMap, BitMatrix
from gen.linalg.gf2n import Field
from gen.linalg.shuffle import pshufb

AES_LINEAR = BitMatrix([sum(1 << ((i + k) % 8) for k in (0, 4, 5, 6, 7)) for i in range(8)], 8)
AES_CONST = 0x63
SHIFT_ROWS = tuple(4 * ((c + r) % 4) + r for c in range(4) for r in range(4))
INV = Field(0x11B).inverse_table()
AES_SBOX = tuple(AES_LINEAR.apply(INV[x]) ^ AES_CONST for x in range(256))


def test_aes_model_known_values():
    assert AES_SBOX[0x00] == 0x63 and AES_SBOX[0x01] == 0x7C and AES_SBOX[0x53] == 0xED
    # ShiftRows moves row r left by r: byte 1 (row 1, col 0) comes from byte 5 (row 1, col 1)
    assert SHIFT_ROWS[:4] == (0, 5, 10, 15)
    out = aesenclast(bytes(range(16)), bytes(16), AES_SBOX, SHIFT_ROWS)
    assert out == bytes(AES_SBOX[SHIFT_ROWS[j]] for j in range(16))


def random_target(seed):
    rng = random.Random(seed)
    while True:
        m = BitMatrix([rng.getrandbits(8) for _ in range(8)], 8)
        if m.is_invertible():
            return AffineMap(m, rng.getrandbits(8))


@settings(max_examples=30)
@given(st.integers(0, 2**32), st.one_of(st.none(), st.integers(0, 255)), st.binary(min_size=16, max_size=16))
def test_form_computes_target(seed, key_byte, state):
    target = random_target(seed)
    form = aesni_form(target, AES_LINEAR, AES_CONST, SHIFT_ROWS, key_byte=key_byte)
    assert form.round_key == (AES_CONST if key_byte is None else key_byte)
    y = aesenclast(pshufb(state, form.pre_shuffle), form.round_key16, AES_SBOX, SHIFT_ROWS)
    out = bytes(form.post.apply(v) for v in y)
    assert out == bytes(target.linear.apply(INV[x]) ^ target.constant for x in state)


def test_cancelling_key_leaves_linear_part():
    form = aesni_form(AffineMap(AES_LINEAR, 0), AES_LINEAR, AES_CONST, SHIFT_ROWS)
    assert form.round_key == 0x63
    assert form.post == AffineMap.identity(8)
    state = bytes(range(0, 256, 16))
    y = aesenclast(pshufb(state, form.pre_shuffle), form.round_key16, AES_SBOX, SHIFT_ROWS)
    assert y == bytes(AES_LINEAR.apply(INV[x]) for x in state)


def test_pre_shuffle_is_inverse_shift_rows():
    form = aesni_form(AffineMap.identity(8), AES_LINEAR, AES_CONST, SHIFT_ROWS)
    assert form.pre_shuffle == bytes([0x00, 0x0D, 0x0A, 0x07, 0x04, 0x01, 0x0E, 0x0B,
                                      0x08, 0x05, 0x02, 0x0F, 0x0C, 0x09, 0x06, 0x03])
    with pytest.raises(ValueError):
        aesni_form(AffineMap.identity(8), AES_LINEAR, AES_CONST, [0] * 16)
