"""The published SM4 S-box constants are reproduced by derivation from the S-box table.

Everything below starts from gen.specs.sm4.SBOX and the AES field (poly 0x11B);
the published numbers appear only as the thing the derivation must reproduce.

Findings pinned here:

* GFNI layout: row i of the matrix (output bit i) is byte 7-i of the qword, so
  the qword read as a big-endian hex number lists the rows 0..7 in order.
  libgcrypt's and Botan's GFNI pairs are both decompositions of the S-box over
  the AES field, differing by a Frobenius power (A1_Botan = F^2·A1_libgcrypt).
* AES-NI tables (sm4ni by M.-J. Saarinen, reused by libgcrypt and Linux): they
  assume the AESENCLAST round key is *zero*, i.e. the AES constant 0x63 is not
  cancelled but absorbed into the post map (whose constant is 0x34).  sm4ni
  passes a zero key; libgcrypt/Linux pass the 0x0f nibble mask already held in
  a register and undo it by indexing the post low-nibble table with
  ``~x & 0x0f`` (vpandn) instead of ``x & 0x0f`` -- the same zero-key tables.
  Our ``aesni_form`` defaults to the cancelling key 0x63 instead; with
  ``key_byte=0`` it gives exactly the published tables.
* Block orientation of L: with bytes numbered big-endian (byte 0 = most
  significant, ``fusion.byte_blocks``), M_L = [[B1,B2,B2,B3],[B3,B1,B2,B2],
  [B2,B3,B1,B2],[B2,B2,B3,B1]] as in the byte-slicing paper (eq. 18), with
  B3 = B1 ⊕ B2; in the little-endian numbering of ``BitMatrix.block`` the grid
  is the transposed pattern [[B1,B3,B2,B2],...].
"""

import pytest

from gen.linalg import (AffineMap, BitMatrix, Field, aesenclast, aesni_form, affine_decompositions,
                        affine_from_nibble_tables, byte_blocks, circulant_blocks, fused_round_linear,
                        gf2p8affineinvqb, gf2p8affineqb, gfni_qword, nibble_tables, preferred_decomposition,
                        pshufb, word_linear_matrix)
from gen.specs import aes, sm4

from conftest import self_equivalence_orbit

AES_FIELD = Field(aes.FIELD_POLY)
AES_LINEAR = BitMatrix([sum(1 << s for s in aes.sbox_affine_bit_sources(i)) for i in range(8)], 8)
AES_SBOX = tuple(AES_LINEAR.apply(v) ^ aes.SBOX_AFFINE_CONSTANT for v in AES_FIELD.inverse_table())
SBOX = tuple(sm4.SBOX)

GFNI_PUBLISHED = {
    # name: (pre qword, pre imm8 (gf2p8affineqb), post qword, post imm8 (gf2p8affineinvqb))
    "libgcrypt": (0x34AC259E022DBC52, 0x65, 0xD72D8E511E6C8B19, 0xD3),
    "Botan": (0x4C287DB91A22505D, 0x3E, 0xF3AB34A974A6B589, 0xD3),
}


def qwords_to_table(q0, q1):
    """A 16-byte table published as two little-endian qwords (bytes 0..7, then 8..15)."""
    return q0.to_bytes(8, "little") + q1.to_bytes(8, "little")


PRE_LO = qwords_to_table(0x9197E2E474720701, 0xC7C1B4B222245157)
PRE_HI = qwords_to_table(0xE240AB09EB49A200, 0xF052B91BF95BB012)
POST_LO = qwords_to_table(0x5B67F2CEA19D0834, 0xEDD14478172BBE82)
POST_HI = qwords_to_table(0xAE7201DD73AFDC00, 0x11CDBE62CC1063BF)
INV_SHIFT_ROW_PUBLISHED = bytes([0x00, 0x0D, 0x0A, 0x07, 0x04, 0x01, 0x0E, 0x0B,
                                 0x08, 0x05, 0x02, 0x0F, 0x0C, 0x09, 0x06, 0x03])


@pytest.fixture(scope="module")
def decompositions():
    return affine_decompositions(SBOX, AES_FIELD)


def test_sm4_sbox_has_2040_decompositions(decompositions):
    assert len(decompositions) == 2040
    for d in decompositions:
        assert d.table(AES_FIELD) == SBOX
    assert preferred_decomposition(decompositions) == decompositions[0]
    # every decomposition hits zero at the same input, and c2 = S(x0) is shared
    assert {d.A1.inverse().apply(d.c1) for d in decompositions} == {0x75}
    assert {d.c2 for d in decompositions} == {0xD3}


def test_sm4_decompositions_are_exactly_one_orbit_of_the_inversion_symmetries(decompositions):
    """inv(a·F^k(y)) = a⁻¹·F^k(inv y): from any one solution these give 255·8 = 2040
    solutions, and the exhaustive search found exactly those."""
    assert self_equivalence_orbit(decompositions[0], AES_FIELD) == set(decompositions)


@pytest.mark.parametrize("name", sorted(GFNI_PUBLISHED))
def test_gfni_constants_are_derived(decompositions, name):
    pre_q, pre_c, post_q, post_c = GFNI_PUBLISHED[name]
    matches = [d for d in decompositions
               if (gfni_qword(d.A1), d.c1, gfni_qword(d.A2), d.c2) == (pre_q, pre_c, post_q, post_c)]
    assert len(matches) == 1
    # and on the instruction models, for every input byte
    xs = bytes(range(256))
    assert gf2p8affineinvqb(gf2p8affineqb(xs, pre_q, pre_c), post_q, post_c) == bytes(SBOX)


def test_gfni_pairs_differ_by_a_frobenius_power(decompositions):
    by_q = {gfni_qword(d.A1): d for d in decompositions}
    gcrypt, botan = by_q[0x34AC259E022DBC52], by_q[0x4C287DB91A22505D]
    fr = AES_FIELD.frobenius_matrix()
    assert fr @ fr @ gcrypt.A1 == botan.A1
    assert fr @ fr @ AffineMap(gcrypt.A1, gcrypt.c1) == AffineMap(botan.A1, botan.c1)


def find_aesni_key_byte(d):
    """Key bytes k for which aesni_form(outer, key k) reproduces the published post tables."""
    return [k for k in range(256)
            if nibble_tables(aesni_form(d.outer, AES_LINEAR, aes.SBOX_AFFINE_CONSTANT, aes.SHIFT_ROWS,
                                        key_byte=k).post) == (POST_LO, POST_HI)]


def test_aesni_nibble_tables_are_derived(decompositions):
    pre = affine_from_nibble_tables(PRE_LO, PRE_HI)
    matches = [d for d in decompositions if d.inner == pre]
    assert len(matches) == 1
    d = matches[0]
    assert nibble_tables(d.inner) == (PRE_LO, PRE_HI)
    assert (d.c1, d.c2) == (0x01, 0xD3)
    # the published post tables assume a zero AESENCLAST key (0x63 absorbed into the post map)
    assert find_aesni_key_byte(d) == [0x00]
    form0 = aesni_form(d.outer, AES_LINEAR, aes.SBOX_AFFINE_CONSTANT, aes.SHIFT_ROWS, key_byte=0)
    assert form0.post.constant == 0x34
    assert form0.pre_shuffle == INV_SHIFT_ROW_PUBLISHED
    # our default (cancelling key 0x63) has the same linear part, a different constant
    form = aesni_form(d.outer, AES_LINEAR, aes.SBOX_AFFINE_CONSTANT, aes.SHIFT_ROWS)
    assert form.round_key == 0x63 and form.post.linear == form0.post.linear
    assert form.post.constant == form0.post.constant ^ form0.post.linear.apply(0x63)


def all_values_at_all_positions():
    """256 states; at each of the 16 positions every byte value occurs once."""
    return [bytes((v + 17 * j) & 0xFF for j in range(16)) for v in range(256)]


def lookup(lo, hi, state):
    return bytes(lo[x & 15] ^ hi[x >> 4] for x in state)


def test_aesni_pipeline_sm4ni_form():
    """pre tables, inverse ShiftRows, AESENCLAST with a zero key, post tables == SBOX."""
    for state in all_values_at_all_positions():
        t = pshufb(lookup(PRE_LO, PRE_HI, state), INV_SHIFT_ROW_PUBLISHED)
        y = aesenclast(t, bytes(16), AES_SBOX, aes.SHIFT_ROWS)
        assert lookup(POST_LO, POST_HI, y) == bytes(SBOX[x] for x in state)


def test_aesni_pipeline_libgcrypt_form():
    """libgcrypt/Linux: no pre-shuffle, key 0x0f, post low nibble indexed by ~x & 0x0f,
    inverse ShiftRows after (there folded into the rotations of L)."""
    for state in all_values_at_all_positions():
        t = lookup(PRE_LO, PRE_HI, state)
        y = aesenclast(t, bytes([0x0F]) * 16, AES_SBOX, aes.SHIFT_ROWS)
        z = bytes(POST_LO[~x & 0x0F] ^ POST_HI[(x >> 4) & 0x0F] for x in y)
        assert pshufb(z, INV_SHIFT_ROW_PUBLISHED) == bytes(SBOX[x] for x in state)


def test_aesni_pipeline_derived_cancelling_form(decompositions):
    d = preferred_decomposition(decompositions)
    form = aesni_form(d.outer, AES_LINEAR, aes.SBOX_AFFINE_CONSTANT, aes.SHIFT_ROWS)
    pre_lo, pre_hi = nibble_tables(d.inner)
    post_lo, post_hi = nibble_tables(form.post)
    for state in all_values_at_all_positions():
        t = pshufb(lookup(pre_lo, pre_hi, state), form.pre_shuffle)
        y = aesenclast(t, form.round_key16, AES_SBOX, aes.SHIFT_ROWS)
        assert lookup(post_lo, post_hi, y) == bytes(SBOX[x] for x in state)


def paper_pattern(b1, b2, b3):
    return ((b1, b2, b2, b3), (b3, b1, b2, b2), (b2, b3, b1, b2), (b2, b2, b3, b1))


def test_sm4_l_block_structure_unfused():
    ml = word_linear_matrix(sm4.L_ROTATIONS)
    b1, b2, b2_, b3 = circulant_blocks(ml)
    assert b2 == b2_ and b3 == b1 + b2
    assert byte_blocks(ml) == paper_pattern(b1, b2, b3)
    # the blocks themselves: with s(x) = x << 2 (in the byte) and t(x) = x >> 6
    s = BitMatrix.from_function(lambda x: (x << 2) & 0xFF, 8, 8)
    t = BitMatrix.from_function(lambda x: x >> 6, 8, 8)
    i8 = BitMatrix.identity(8)
    assert (b1, b2, b3) == (i8 + s, s + t, i8 + t)
    # little-endian numbering (BitMatrix.block) sees the transposed pattern
    le = tuple(tuple(ml.block(i, j) for j in range(4)) for i in range(4))
    assert le == tuple(zip(*paper_pattern(b1, b2, b3)))
    assert le != paper_pattern(b1, b2, b3)


def test_sm4_l_block_structure_fused(decompositions):
    ml = word_linear_matrix(sm4.L_ROTATIONS)
    for d in decompositions:
        fused = fused_round_linear(d.A1, ml, d.A2)
        b1, b2, b2_, b3 = circulant_blocks(fused)
        assert b2 == b2_ and b3 == b1 + b2
        assert byte_blocks(fused) == paper_pattern(b1, b2, b3)
