"""uBlock spec: tables and rules against the published ones (paper tables 2-7,
with the RC12 erratum), validation errors, and the reference against the
official vectors."""

import json
from pathlib import Path

import pytest

from gen.kernels import ublock_key_schedule, ublock_reference
from gen.linalg.shuffle import inverse_permutation
from gen.specs import ublock
from gen.specs.validate import SpecError

VECTORS = json.loads((Path(__file__).resolve().parent / "vectors" / "ublock.json").read_text())["vectors"]

# The AVX2 paper's table 7, as printed (RC12 misprinted as 8e9adfc6).
PRINTED_RC = ("988cc9dd f0e4a1b5 21357064 8397d2c6 c7d39682 4f5b1e0a 5e4a0f1b 7c682d39 392d687c b3a7e2f6 "
              "a7b3f6e2 8e9adfc6 dcc88d99 786c293d 30246175 a1b5f0e4 8296d3c7 c5d19480 4a5e1b0f 55410410 "
              "6b7f3a2e 17034652 effbbeaa 1f0b4e5a").split()
# Table 4 and table 5: the printed inverses.
PRINTED_SBOX_INVERSE = (0xC, 0xA, 0xE, 0xD, 0x1, 0xF, 0xB, 0x0, 0x7, 0x2, 0x5, 0x4, 0x3, 0x6, 0x9, 0x8)
PRINTED_INVERSES = {
    ("PL", 128): (4, 0, 5, 1, 2, 7, 3, 6), ("PR", 128): (3, 4, 0, 7, 6, 2, 5, 1),
    ("PL", 256): (15, 8, 0, 4, 9, 14, 5, 1, 2, 6, 11, 13, 7, 3, 12, 10),
    ("PR", 256): (9, 2, 6, 13, 5, 15, 0, 8, 14, 4, 11, 1, 3, 10, 12, 7),
}


def test_round_constant_rule_reproduces_the_table_except_the_misprint():
    derived = [f"{rc:08x}" for rc in ublock.round_constants()]
    differing = [i + 1 for i, (a, b) in enumerate(zip(derived, PRINTED_RC)) if a != b]
    assert differing == [12]
    assert derived[11] == "8e9adfcb"  # the erratum's value


def test_inverses_match_the_printed_tables():
    assert ublock.inverse_sbox() == PRINTED_SBOX_INVERSE
    for (name, n), printed in PRINTED_INVERSES.items():
        perm = (ublock.PL if name == "PL" else ublock.PR)[n]
        assert inverse_permutation(perm) == printed


def test_tk_is_doubling_modulo_x4_x_1():
    assert [ublock.tk_double(x) for x in (1, 2, 4, 8, 9)] == [2, 4, 8, 3, 1]
    assert sorted(ublock.tk_double(x) for x in range(16)) == list(range(16))


def test_unknown_variant_and_bad_lengths_are_rejected():
    with pytest.raises(SpecError, match="no uBlock-256/128"):
        ublock.check_variant(256, 128)
    with pytest.raises(SpecError, match="16-byte key"):
        ublock_reference.round_keys(128, 128, bytes(15))
    with pytest.raises(SpecError, match="blocks are 32 bytes"):
        ublock_reference.encrypt_block(256, 256, bytes(32), bytes(16))
    with pytest.raises(SpecError, match="multiple of 4"):
        ublock.nibble_rotation(6)


@pytest.mark.parametrize("vector", [v for v in VECTORS if v.get("iterations", 1) <= 100],
                         ids=lambda v: f"{v['variant']}x{v.get('iterations', 1)}")
def test_reference_meets_the_official_vectors(vector):
    n, k = map(int, vector["variant"].split("/"))
    key = bytes.fromhex(vector["key"])
    rks = ublock_reference.round_keys(n, k, key)
    block = bytes.fromhex(vector["plaintext"])
    for _ in range(vector.get("iterations", 1)):
        block = ublock_reference.encrypt_block(n, k, key, block, rks)
    assert block.hex() == vector["ciphertext"]
    for _ in range(vector.get("iterations", 1)):
        block = ublock_reference.decrypt_block(n, k, key, block, rks)
    assert block.hex() == vector["plaintext"]


def test_linear_layer_inverse_undoes_it():
    import random
    rng = random.Random(1)
    for nibbles in (16, 32):
        x0 = [rng.randrange(16) for _ in range(nibbles)]
        x1 = [rng.randrange(16) for _ in range(nibbles)]
        assert ublock_reference.linear_layer_inverse(*ublock_reference.linear_layer(x0, x1)) == (x0, x1)


def test_ctr_counter_wraps_over_the_whole_block():
    key = bytes(range(16))
    iv = b"\xff" * 16
    stream = ublock_reference.ctr(128, 128, key, iv, bytes(32))
    assert stream[16:] == ublock_reference.encrypt_block(128, 128, key, bytes(16))


@pytest.mark.parametrize("variant", list(ublock.VARIANTS))
def test_key_schedule_gathers_match_algorithm_3(variant):
    import random
    n, k = variant
    key = random.Random(k + n).randbytes(k // 8)
    reg = ublock_reference.to_nibbles(key) + [0] * (ublock_key_schedule.REGISTER_NIBBLES - k // 4)
    rks = ublock_reference.round_keys(n, k, key)
    for i in range(1, ublock.VARIANTS[variant] + 1):
        reg = ublock_key_schedule.apply_update(reg, n, k, ublock.round_constants()[i - 1])
        assert reg[:n // 4] == rks[i]


def test_gather_masks_move_each_nibble_once():
    moved, fed, _, _ = ublock_key_schedule.update_maps(128, 256)
    masks = ublock_key_schedule.chunk_masks(moved)
    for c, row in enumerate(masks):
        for j in range(16):
            sources = [s for s in range(len(row)) if not row[s][j] & 0x80]
            expected = moved[16 * c + j]
            assert sources == ([] if expected is None else [expected // 16])
            if expected is not None:
                assert row[sources[0]][j] == expected % 16
