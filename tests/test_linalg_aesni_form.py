"""gen.linalg.aesni_form: AESENCLAST (and AArch64's AESE) turned into M·inv(x) ⊕ c,
with an AES model built here.

The AES pieces are rebuilt from FIPS 197 in this file (linalg itself knows no
cipher) and checked against gen/specs/aes.py's."""

import random

import pytest
from hypothesis import given, settings, strategies as st

from gen.linalg.aesni_form import aese, aese_form, aesenclast, aesni_form
from gen.linalg.bits import AffineMap, BitMatrix
from gen.linalg.gf2n import Field
from gen.linalg.shuffle import pshufb
from gen.specs import aes

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


def specs_aes_sbox():
    """The AES S-box as gen/specs/aes.py defines it: A·inv(x) ⊕ 0x63 in GF(2^8)/FIELD_POLY."""
    linear = BitMatrix([sum(1 << src for src in aes.sbox_affine_bit_sources(i)) for i in range(8)], 8)
    inverse = Field(aes.FIELD_POLY).inverse_table()
    return linear, tuple(linear.apply(inverse[x]) ^ aes.SBOX_AFFINE_CONSTANT for x in range(256))


def test_this_files_aes_model_is_gen_specs_aes():
    linear, sbox = specs_aes_sbox()
    assert (linear, sbox, aes.SBOX_AFFINE_CONSTANT, aes.SHIFT_ROWS) == (AES_LINEAR, AES_SBOX, AES_CONST, SHIFT_ROWS)


@given(st.binary(min_size=16, max_size=16), st.binary(min_size=16, max_size=16))
def test_aese_xors_the_key_before_subbytes(state, key):
    """AESE = SubBytes(ShiftRows(state ⊕ key)) = AESENCLAST(state ⊕ key, 0):
    with the key 0 the two instructions agree, with another key they differ
    (AESENCLAST XORs it after SubBytes)."""
    sbox = specs_aes_sbox()[1]
    mixed = bytes(s ^ k for s, k in zip(state, key))
    out = aese(state, key, sbox, aes.SHIFT_ROWS)
    assert out == bytes(sbox[mixed[aes.SHIFT_ROWS[j]]] for j in range(16))
    assert out == aesenclast(mixed, bytes(16), sbox, aes.SHIFT_ROWS)
    assert aese(state, bytes(16), sbox, aes.SHIFT_ROWS) == aesenclast(state, bytes(16), sbox, aes.SHIFT_ROWS)
    if any(key):
        assert out != aesenclast(state, key, sbox, aes.SHIFT_ROWS)


def test_aese_known_answer():
    """FIPS 197 section 5.1.1's example, S-box {53} = {ed}: AESE of the state
    0x50 in every byte with the key 0x03 in every byte XORs first (0x53), then
    substitutes (0xED); AESENCLAST would substitute 0x50 (0x53) and then XOR (0x50)."""
    sbox = specs_aes_sbox()[1]
    state, key = bytes([0x50] * 16), bytes([0x03] * 16)
    assert aese(state, key, sbox, aes.SHIFT_ROWS) == bytes([0xED] * 16)
    assert aesenclast(state, key, sbox, aes.SHIFT_ROWS) == bytes([sbox[0x50] ^ 0x03] * 16) == bytes([0x50] * 16)
    # ShiftRows moves bytes, not values: a state with one marked byte shows where it goes
    marked = bytes([0x53 if j == 5 else 0 for j in range(16)])
    out = aese(marked, bytes(16), sbox, aes.SHIFT_ROWS)
    assert out[1] == 0xED and out.count(0x63) == 15  # byte 5 (row 1, column 1) moves to byte 1


@settings(max_examples=30)
@given(st.integers(0, 2**32), st.binary(min_size=16, max_size=16))
def test_aese_form_computes_target(seed, state):
    """TBL(inverse ShiftRows), AESE with key 0, then the outer map: M·inv(x) ⊕ c,
    SubBytes' matrix and 0x63 folded into the outer map."""
    linear, sbox = specs_aes_sbox()
    target = random_target(seed)
    form = aese_form(target, linear, aes.SBOX_AFFINE_CONSTANT, aes.SHIFT_ROWS)
    assert form.round_key == 0
    assert all(i < 16 for i in form.pre_shuffle)  # an index TBL and pshufb read alike
    y = aese(pshufb(state, form.pre_shuffle), form.round_key16, sbox, aes.SHIFT_ROWS)
    assert bytes(form.post.apply(v) for v in y) == bytes(target.linear.apply(INV[x]) ^ target.constant for x in state)


def test_aese_form_is_aesni_form_with_key_zero_and_folds_0x63():
    """With key 0 the AES-NI form is the AESE form; the outer map of the AES
    S-box's own affine map is then the identity, and 0x63 lives in the post
    constant of the identity target (M·A^-1·0x63 = A^-1·0x63)."""
    linear = specs_aes_sbox()[0]
    for target in (random_target(1), AffineMap(linear, aes.SBOX_AFFINE_CONSTANT), AffineMap.identity(8)):
        assert aese_form(target, linear, 0x63, aes.SHIFT_ROWS) == aesni_form(target, linear, 0x63, aes.SHIFT_ROWS,
                                                                             key_byte=0)
    assert aese_form(AffineMap(linear, 0x63), linear, 0x63, aes.SHIFT_ROWS).post == AffineMap.identity(8)
    identity = aese_form(AffineMap.identity(8), linear, 0x63, aes.SHIFT_ROWS).post
    assert identity == AffineMap(linear.inverse(), linear.inverse().apply(0x63))
    # and AESE with that form inverts: x -> inv(x) on every byte value
    sbox = specs_aes_sbox()[1]
    form = aese_form(AffineMap.identity(8), linear, 0x63, aes.SHIFT_ROWS)
    for v in range(0, 256, 16):
        state = bytes(range(v, v + 16))
        y = aese(pshufb(state, form.pre_shuffle), bytes(16), sbox, aes.SHIFT_ROWS)
        assert bytes(identity.apply(b) for b in y) == bytes(INV[x] for x in state)


def test_aese_needs_16_bytes():
    with pytest.raises(ValueError, match="16-byte"):
        aese(bytes(15), bytes(16), AES_SBOX, SHIFT_ROWS)
