"""Published ZUC constants are reproduced by derivation from the spec.

Everything derived starts from gen.specs.zuc (P1/P2/P3 and the rotation; the
field 0x18B, M and 0x55) and the AES field; the published numbers below appear
only as what the derivation must reproduce.

Findings pinned here:

* Matrix convention of the ZUC-256 SIMD paper (Bai, Jia, Zhu, J. Cryptologic
  Research 8(3) 2021, section 3.1.2): its printed A, M, K and T all read as row i
  = output bit i, column j = input bit j, bit 0 the least significant (the
  leftmost column is input bit 0) -- the gen.linalg BitMatrix convention, and
  the one FIPS 197 prints A in.  Under the MSB-first reading M does not give S1.
* The paper's K is isomorphism index 7 of gen.kernels.zuc_constants.isomorphisms()
  (linalg's order: ascending image of x; K sends x to 0xD9).  Its K1/K2 nibble
  tables, T = M·K^-1·A^-1, T1/T2 (0x55 folded into T1) and the inverse-ShiftRows
  mask are exactly our AES-NI form for that index, with the cancelling key 0x63.
  The x86 bundles of S1's constants (s1_aesni_tables, s1_gfni_qwords) are built
  here, from the kernel's decomposition and linalg's AES-NI and GFNI forms: only
  these comparisons need them (the backends derive the same from the IR).
* The paper's masks are written with _mm256_set_epi32, highest word first, each
  128-bit half repeated; byte 0 of the table is the low byte of the last argument.
"""

from dataclasses import dataclass
from functools import lru_cache

import pytest

from gen.ir.semantics import AES_SBOX_CONSTANT, SHIFT_ROWS, aes_sbox_linear, aes_sbox_table
from gen.backends import SIMD_TARGETS
from gen.ir import Op
from gen.kernels import zuc_constants as zc
from gen.kernels import zuc_lanes
from gen.linalg import (BitMatrix, Field, aesenclast, aesni_form, affine_decompositions, gf2p8affineinvqb,
                        gf2p8affineqb, gfni_qword, matrix_from_gfni_qword, nibble_tables, pshufb)
from gen.specs import aes, zuc

# ETSI/SAGE, Specification of the 3GPP Confidentiality and Integrity Algorithms
# 128-EEA3 & 128-EIA3, Document 2: ZUC Specification, v1.6 (2011), section 3.4.2.
PUBLISHED_S0 = bytes.fromhex(
    "3e725b47cae0003304d1549809b96dcb"
    "7b1bf932af9d6aa5b82dfc1d08530390"
    "4d4e8499e4ced991ddb685488b296eac"
    "cdc1f81e734369c6b5bdfd396320d438"
    "767db2a7cfed57c5f32cbb142106559b"
    "e3ef5e314f7f5aa40d8251495fba581c"
    "4a16d517a892241f8cffd8ae2e01d3ad"
    "3b4bda46ebc9de9a8f87d73a806f2fc8"
    "b1b437f70a2213287ccc3c89c7c39656"
    "07bf7ef00b2b975235417961a64c10fe"
    "bc2695888ab0a3fbc01894f2e1e5e95d"
    "d0dc1166645cec59427512f5749caa23"
    "0e86abbe2a02e767e644a26cc2939ff1"
    "f6fa36d250689e6271153dd640c4e20f"
    "8e83776b25053f0c30ea70b7a1e8a965"
    "8d271adb81b3a0f4457a19dfee783460"
)
PUBLISHED_S1 = bytes.fromhex(
    "55c263713bc847869f3cda5b29aafd77"
    "8cc5940ca61a1300e3a8167240f9f842"
    "4426689681d9453e1076c6a78b3943e1"
    "3ab5562ac06db3052266bfdc0bfa6248"
    "dd20110636c9c1cff62752bb69f5d487"
    "7f844cd29c57a4bc4f9adffed68d7aeb"
    "2b53d85ca11417fb23d57d3067730809"
    "eeb7703f61b2198e4ee54b938f5ddba9"
    "adf1ae2ecb0dfcf42d466e1d97e8d1e9"
    "4d37a5755e839eab829db91ce0cd4989"
    "01b6bd5824a25f387899159050b895e4"
    "d091c7ceed0fb46fa0ccf0024a79c3de"
    "a3efea51e66b18ec1b2c80f774e7ff21"
    "5a6a541e41319235c433070aba7e0e34"
    "88b1987cf33d606c7bcad31f32650428"
    "64be859b2f598ad7b025acaf1203e2f2"
)

# Bai, Jia, Zhu, "Efficient software implementations of ZUC-256", J. Cryptologic
# Research 8(3) 2021: section 3.1.1 (table 1, algorithm 1) and 3.1.2 (A, M, K, T,
# K1, K2, T1, T2, algorithm 2).  Matrices as printed, one string per printed row.
PAPER_P = {  # table 1
    1: (9, 15, 0, 14, 15, 15, 2, 10, 0, 4, 0, 12, 7, 5, 3, 9),
    2: (8, 13, 6, 5, 7, 0, 12, 4, 11, 1, 14, 10, 15, 3, 9, 2),
    3: (2, 6, 10, 6, 0, 13, 10, 15, 3, 3, 13, 5, 0, 9, 12, 13),
}
PAPER_P_MASKS = {  # algorithm 1, _mm256_set_epi32 arguments (one 128-bit half)
    1: (0x09030507, 0x0C000400, 0x0A020F0F, 0x0E000F09),
    2: (0x0209030F, 0x0A0E010B, 0x040C0007, 0x05060D08),
    3: (0x0D0C0900, 0x050D0303, 0x0F0A0D00, 0x060A0602),
}
PAPER_A = ("10001111", "11000111", "11100011", "11110001", "11111000", "01111100", "00111110", "00011111")
PAPER_M = ("10110111", "11011011", "11101101", "01111110", "11000111", "01101011", "00111101", "10011110")
PAPER_K = ("11100010", "00101111", "00000011", "01100100", "01000000", "00110001", "01110110", "01001010")
PAPER_T = ("10101000", "00100001", "11100111", "10111001", "10101111", "01100110", "10100010", "10101001")
PAPER_K1 = bytes([0x00, 0x01, 0xD9, 0xD8, 0x6B, 0x6A, 0xB2, 0xB3, 0x60, 0x61, 0xB9, 0xB8, 0x0B, 0x0A, 0xD2, 0xD3])
PAPER_K2 = bytes([0x00, 0x82, 0x4A, 0xC8, 0xC7, 0x45, 0x8D, 0x0F, 0x26, 0xA4, 0x6C, 0xEE, 0xE1, 0x63, 0xAB, 0x29])
PAPER_T1 = bytes([0x55, 0x88, 0x71, 0xAC, 0xAA, 0x77, 0x8E, 0x53, 0x5D, 0x80, 0x79, 0xA4, 0xA2, 0x7F, 0x86, 0x5B])
PAPER_T2 = bytes([0x00, 0x99, 0x34, 0xAD, 0x74, 0xED, 0x40, 0xD9, 0x9E, 0x07, 0xAA, 0x33, 0xEA, 0x73, 0xDE, 0x47])
PAPER_S1_MASKS = {  # algorithm 2, _mm256_set_epi32 arguments (one 128-bit half)
    "k_mask1": (0xD3D20A0B, 0xB8B96160, 0xB3B26A6B, 0xD8D90100),
    "k_mask2": (0x29AB63E1, 0xEE6CA426, 0x0F8D45C7, 0xC84A8200),
    "t_mask1": (0x5B867FA2, 0xA479805D, 0x538E77AA, 0xAC718855),
    "t_mask2": (0x47DE73EA, 0x33AA079E, 0xD940ED74, 0xAD349900),
    "aes_row_invshift": (0x0306090C, 0x0F020508, 0x0B0E0104, 0x070A0D00),
}
PAPER_CANCEL_KEY = 0x63
PAPER_K_INDEX = 7


def printed_matrix(rows):
    """A matrix printed row i = output bit i, leftmost column = input bit 0."""
    return BitMatrix([sum(int(c) << j for j, c in enumerate(r)) for r in rows], 8)


def set_epi32(*words):
    """The bytes of _mm256_set_epi32(w7, ..., w0) / _mm_set_epi32(w3, ..., w0): last word lowest."""
    return b"".join(w.to_bytes(4, "little") for w in reversed(words))


def test_derived_sboxes_equal_the_standards_tables():
    assert bytes(zuc.s0_table()) == PUBLISHED_S0
    assert bytes(zuc.s1_table()) == PUBLISHED_S1


def test_printed_matrices_use_the_lsb_first_convention():
    assert printed_matrix(PAPER_M).rows == zuc.S1_MATRIX_ROWS
    assert printed_matrix(PAPER_A) == aes_sbox_linear()
    # the MSB-first reading of the same M does not give S1
    msb_first = BitMatrix([sum(int(c) << (7 - j) for j, c in enumerate(PAPER_M[7 - i])) for i in range(8)], 8)
    inv = Field(zuc.S1_FIELD_POLY).inverse_table()
    assert bytes(msb_first.apply(inv[x]) ^ zuc.S1_CONSTANT for x in range(256)) != PUBLISHED_S1


def test_p_tables_and_masks():
    assert (zuc.P1, zuc.P2, zuc.P3) == (PAPER_P[1], PAPER_P[2], PAPER_P[3])
    tables = zc.s0_nibble_tables()
    for i, table in ((1, tables.p1), (2, tables.p2), (3, tables.p3)):
        mask = set_epi32(*PAPER_P_MASKS[i] * 2)
        assert mask == table * 2


def s0_paper_algorithm_1(x, tables):
    """Algorithm 1 on one byte (low, hi, r, s, t, tmp as in the paper)."""
    low, hi = x & 0x0F, x >> 4
    r = hi ^ tables.p1[low]
    s = low ^ tables.p2[r]
    t = r ^ tables.p3[s]
    tmp = s | t << 4
    return ((tmp >> 3) & 0x1F) | ((tmp << 5) & 0xE0)


def s0_folded(x, tables):
    low, hi = x & 0x0F, x >> 4
    t = hi ^ tables.p1[low]
    out_low = low ^ tables.p2[t]
    return tables.folded[out_low] ^ (t << tables.t_shift)


@pytest.mark.parametrize("form", [s0_paper_algorithm_1, s0_folded])
def test_s0_nibble_forms(form):
    tables = zc.s0_nibble_tables()
    assert tables.t_shift == 1
    assert bytes(form(x, tables) for x in range(256)) == PUBLISHED_S0


def s0_rotation_gfni_qword():
    """The GFNI matrix the avx512_gfni lowering gives S0's rotation by 5."""
    program = SIMD_TARGETS["avx512_gfni"].lower(zuc_lanes.word_program(512, s0_form="rotate", add_form="min"))
    consts = {s.result: s for s in program.walk() if isinstance(s, Op) and s.opcode == "const"}
    (matrix,) = [consts[s.args[1]] for s in program.walk() if isinstance(s, Op) and s.opcode == "gf2p8affine"
                 and "rotate each byte left by 5" in consts[s.args[1]].attrs["note"]]
    return int.from_bytes(matrix.attrs["data"][:8], "little")


def test_s0_rotation_as_gfni():
    qword = s0_rotation_gfni_qword()
    m = matrix_from_gfni_qword(qword)
    xs = bytes(range(256))
    assert gf2p8affineqb(xs, qword, 0) == bytes(((x << 5) | (x >> 3)) & 0xFF for x in xs)
    assert m.apply(0x01) == 0x20 and m.apply(0x80) == 0x10


def test_exactly_eight_isomorphisms_and_they_are_the_normalised_decompositions():
    isos = zc.isomorphisms()
    assert len(isos) == 8 and len(set(isos)) == 8
    zuc_field, aes_field = Field(zuc.S1_FIELD_POLY), Field(aes.FIELD_POLY)
    for k in isos:
        assert all(k.apply(zuc_field.mul(a, b)) == aes_field.mul(k.apply(a), k.apply(b))
                   for a in range(0, 256, 7) for b in range(0, 256, 11))
    # linalg's exhaustive search over the AES field finds 2040 decompositions of S1; ours
    # are exactly those with c1 = 0 whose inner map fixes 1 (a field isomorphism does)
    everything = affine_decompositions(zuc.s1_table(), aes_field)
    assert len(everything) == 2040
    normalised = {d for d in everything if d.c1 == 0 and d.A1.apply(1) == 1}
    assert normalised == {zc.s1_decomposition(i) for i in range(8)}


@pytest.mark.parametrize("k_index", range(8))
def test_s1_decomposition(k_index):
    dec = zc.s1_decomposition(k_index)
    assert (dec.A1, dec.c1, dec.c2) == (zc.isomorphisms()[k_index], 0, 0x55)
    assert bytes(dec.table(Field(aes.FIELD_POLY))) == PUBLISHED_S1


@dataclass(frozen=True)
class S1AesniTables:
    """S1 on AES-NI: y = k_lo[x & 15] ^ k_hi[x >> 4] (= K * x); z = AESENCLAST(
    pshufb(y, inv_shift_rows), round_key in every byte) (= A * inv_AES(y));
    S1(x) = t_lo[z & 15] ^ t_hi[z >> 4] (= T * z ^ 0x55, T = M * K^-1 * A^-1)."""

    k_lo: bytes
    k_hi: bytes
    inv_shift_rows: bytes
    round_key: int
    t_lo: bytes
    t_hi: bytes
    T: BitMatrix


@lru_cache(maxsize=None)
def s1_aesni_tables(k_index):
    dec = zc.s1_decomposition(k_index)
    form = aesni_form(dec.outer, aes_sbox_linear(), AES_SBOX_CONSTANT, SHIFT_ROWS)
    k_lo, k_hi = nibble_tables(dec.inner)
    t_lo, t_hi = nibble_tables(form.post)
    return S1AesniTables(k_lo, k_hi, form.pre_shuffle, form.round_key, t_lo, t_hi, form.post.linear)


@dataclass(frozen=True)
class S1GfniQwords:
    """S1(x) = gf2p8affineinvqb(gf2p8affineqb(x, pre, pre_imm), post, post_imm)."""

    pre: int
    pre_imm: int
    post: int
    post_imm: int


def s1_gfni_qwords(k_index):
    dec = zc.s1_decomposition(k_index)
    return S1GfniQwords(gfni_qword(dec.A1), dec.c1, gfni_qword(dec.A2), dec.c2)


def all_values_at_all_positions():
    """256 states; at each of the 16 positions every byte value occurs once."""
    return [bytes((v + 17 * j) & 0xFF for j in range(16)) for v in range(256)]


def lookup(lo, hi, state):
    return bytes(lo[x & 15] ^ hi[x >> 4] for x in state)


@pytest.mark.parametrize("k_index", range(8))
def test_s1_aesni_pipeline(k_index):
    t = s1_aesni_tables(k_index)
    assert t.round_key == AES_SBOX_CONSTANT
    key = bytes([t.round_key]) * 16
    for state in all_values_at_all_positions():
        y = pshufb(lookup(t.k_lo, t.k_hi, state), t.inv_shift_rows)
        z = aesenclast(y, key, aes_sbox_table(), SHIFT_ROWS)
        assert lookup(t.t_lo, t.t_hi, z) == bytes(PUBLISHED_S1[x] for x in state)


@pytest.mark.parametrize("k_index", range(8))
def test_s1_gfni_pipeline(k_index):
    q = s1_gfni_qwords(k_index)
    assert (q.pre_imm, q.post_imm) == (0, 0x55)
    assert q.pre == gfni_qword(zc.isomorphisms()[k_index])
    xs = bytes(range(256))
    assert gf2p8affineinvqb(gf2p8affineqb(xs, q.pre, q.pre_imm), q.post, q.post_imm) == PUBLISHED_S1


def test_paper_k_is_isomorphism_7_and_its_aesni_tables_are_ours():
    k = printed_matrix(PAPER_K)
    assert [i for i, iso in enumerate(zc.isomorphisms()) if iso == k] == [PAPER_K_INDEX]
    t = s1_aesni_tables(PAPER_K_INDEX)
    assert (t.k_lo, t.k_hi, t.t_lo, t.t_hi) == (PAPER_K1, PAPER_K2, PAPER_T1, PAPER_T2)
    assert t.T == printed_matrix(PAPER_T)
    assert t.round_key == PAPER_CANCEL_KEY
    ours = {"k_mask1": t.k_lo, "k_mask2": t.k_hi, "t_mask1": t.t_lo, "t_mask2": t.t_hi,
            "aes_row_invshift": t.inv_shift_rows}
    for name, words in PAPER_S1_MASKS.items():
        assert set_epi32(*words * 2) == ours[name] * 2, name
    # no other isomorphism gives the paper's tables
    others = [i for i in range(8) if s1_aesni_tables(i).k_lo == PAPER_K1]
    assert others == [PAPER_K_INDEX]
