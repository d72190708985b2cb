"""The ZUC spec: key loading, IV forms, the loading constants, and validation errors."""

import pytest
from hypothesis import given, strategies as st

from gen.specs import zuc
from gen.specs.validate import SpecError


def test_d256_constants_match_the_vector_file(zuc_vectors):
    published = zuc_vectors["zuc256_constants_d"]
    names = {0: "keystream", 32: "mac32", 64: "mac64", 128: "mac128"}
    assert set(zuc.D256) == set(names)
    for tag, name in names.items():
        assert bytes(zuc.D256[tag]).hex() == published[name]


def test_iv23_of_the_vector_file_expands_to_iv25(zuc_vectors):
    forms = [v for v in zuc_vectors["zuc256_keystream"] if "iv23" in v]
    assert forms
    for v in forms:
        assert zuc.expand_iv256(bytes.fromhex(v["iv23"])).hex() == v["iv25"]


@given(st.binary(min_size=17, max_size=17), st.lists(st.integers(0, 63), min_size=8, max_size=8))
def test_iv_forms_round_trip(head, fields):
    iv25 = head + bytes(fields)
    packed = 0
    for f in fields:
        packed = packed << 6 | f
    iv23 = head + packed.to_bytes(6, "big")
    assert zuc.expand_iv256(iv23) == iv25
    assert zuc.expand_iv256(iv25) == iv25


def test_zuc128_cells_are_key_d_iv():
    key, iv = bytes(range(16)), bytes(range(100, 116))
    cells = zuc.load_key(128, key, iv)
    assert cells == [key[i] << 23 | zuc.D128[i] << 8 | iv[i] for i in range(16)]
    assert all(c < 2**31 for c in cells)


def _single_bit_inputs():
    """(key, iv) pairs with exactly one key or IV bit set, over every usable bit."""
    for byte in range(32):
        for bit in range(8):
            key = bytearray(32)
            key[byte] = 1 << bit
            yield bytes(key), bytes(25)
    for byte in range(25):
        for bit in range(8 if byte < 17 else 6):
            iv = bytearray(25)
            iv[byte] = 1 << bit
            yield bytes(32), bytes(iv)


@pytest.mark.parametrize("tag_bits", [0, 32, 64, 128])
def test_zuc256_loading_places_every_key_and_iv_bit_in_its_own_free_cell_bit(tag_bits):
    """Loading is affine: with all-zero key and IV the cells hold only the d constants;
    each of the 256 + 17*8 + 8*6 = 440 key/IV bits lands on one cell bit, all distinct and
    none on a set d bit, and with the 16 * 7 bits of d slots that fills all 16 * 31 bits."""
    base = zuc.load_key(256, bytes(32), bytes(25), tag_bits)
    assert base == [d << 16 for d in zuc.D256[tag_bits]]
    base_bits = sum(c << (31 * i) for i, c in enumerate(base))
    positions = set()
    for key, iv in _single_bit_inputs():
        cells = zuc.load_key(256, key, iv, tag_bits)
        diff = sum(c << (31 * i) for i, c in enumerate(cells)) ^ base_bits
        assert diff.bit_count() == 1 and not diff & base_bits
        positions.add(diff.bit_length() - 1)
    assert len(positions) == 440
    d_slots = {31 * i + 16 + b for i in range(16) for b in range(7)}
    assert positions | d_slots == set(range(16 * 31))


def test_zuc256_k31_nibbles_and_iv_fields_go_into_d_slots():
    key = bytes(31) + b"\xa5"
    cells = zuc.load_key(256, key, bytes(25))
    assert (cells[14] >> 16) & 0x7F == zuc.D256[0][14] | 0xA
    assert (cells[15] >> 16) & 0x7F == zuc.D256[0][15] | 0x5
    iv = bytes(17) + bytes(range(1, 9))
    cells = zuc.load_key(256, bytes(32), iv)
    assert [(cells[i] >> 16) & 0x7F for i in range(5, 13)] == [0x40 | f for f in range(1, 9)]


def test_tables_are_bijections_and_cached():
    assert sorted(zuc.s0_table()) == list(range(256))
    assert sorted(zuc.s1_table()) == list(range(256))
    assert zuc.s0_table() is zuc.s0_table()


@pytest.mark.parametrize("variant, key, iv, tag, match", [
    (128, bytes(15), bytes(16), 0, "key must be 16 bytes"),
    (256, bytes(16), bytes(25), 0, "key must be 32 bytes"),
    (128, bytes(16), bytes(25), 0, "IV must be 16 bytes"),
    (256, bytes(32), bytes(24), 0, "IV must be 25 or 23 bytes"),
    (256, bytes(32), bytes(24) + b"\x40", 0, "IV24 = 0x40 has bits above"),
    (256, bytes(32), bytes(25), 96, "tag length must be one of"),
    (128, bytes(16), bytes(16), 64, "tag length must be one of"),
    (192, bytes(24), bytes(25), 0, "ZUC variant must be one of"),
])
def test_load_key_errors(variant, key, iv, tag, match):
    with pytest.raises(SpecError, match=match):
        zuc.load_key(variant, key, iv, tag)


def test_derivation_errors():
    singular = (0xED, 0xDB, 0xB7, 0x7E, 0xE3, 0xD6, 0xBC, 0xED)  # row 7 repeats row 0
    with pytest.raises(SpecError, match="ZUC S1: not a bijection"):
        zuc.inversion_sbox(zuc.S1_FIELD_POLY, singular, zuc.S1_CONSTANT)
    with pytest.raises(SpecError, match="reducible"):
        zuc.inversion_sbox(0x18A, zuc.S1_MATRIX_ROWS, zuc.S1_CONSTANT)
    with pytest.raises(SpecError, match="expected 8 rows"):
        zuc.inversion_sbox(zuc.S1_FIELD_POLY, zuc.S1_MATRIX_ROWS[:7], zuc.S1_CONSTANT)
    with pytest.raises(SpecError, match="P2: expected 16 values in 0..15"):
        zuc.feistel_sbox(zuc.P1, zuc.P2[:15] + (16,), zuc.P3, 5)
    with pytest.raises(SpecError, match="rotation by 8 is out of range"):
        zuc.feistel_sbox(zuc.P1, zuc.P2, zuc.P3, 8)


def test_any_nibble_feistel_is_a_bijection():
    """Why S0 needs no bijection proof per table: a Feistel network always is one."""
    constant = (7,) * 16
    assert sorted(zuc.feistel_sbox(constant, constant, constant, 3)) == list(range(256))
