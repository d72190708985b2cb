"""uBlock's derived masks and tables against the AVX2 paper's printed ones
(Gao et al., "Fast software implementation of the block cipher uBlock
algorithm", sections 2.5.1-2.5.2, algorithms 4-5) and against the spec.

The paper prints its masks with _mm256_setr_epi8 (byte 0 first) or as byte
lists.  Its front/rear masks (algorithm 5) add 0x70/0xF0 to pl_0 so that
pshufb zeroes the bytes from the wrong lane (bit 7 set) and wraps the others
into range; ours write 0x80 and the lane-relative index (and A1's high lane
is written with absolute indices).  They are shown
equivalent: same pshufb result on a table of 32 distinct non-zero bytes, which
pins down, for every output byte, whether it is zero and which byte it copies.
"""

import random

import pytest

from gen.backends import SIMD_TARGETS
from gen.ir import Builder, Op, run
from gen.kernels import ublock_constants as uc
from gen.kernels import ublock_reference as ref
from gen.linalg.shuffle import pshufb
from gen.specs import ublock

PAPER_A1 = bytes([1, 2, 3, 4, 5, 6, 7, 0, 9, 10, 11, 12, 13, 14, 15, 8,
                  17, 18, 19, 20, 21, 22, 23, 16, 25, 26, 27, 28, 29, 30, 31, 24])
PAPER_PL0 = (4, 5, 14, 15, 16, 17, 26, 27, 6, 7, 12, 13, 18, 19, 24, 25,
             2, 3, 8, 9, 30, 31, 20, 21, 28, 29, 22, 23, 10, 11, 0, 1)
PAPER_L1 = PAPER_PL0
PAPER_L2 = (12, 13, 22, 23, 2, 3, 24, 25, 18, 19, 8, 9, 4, 5, 30, 31,
            14, 15, 0, 1, 26, 27, 20, 21, 28, 29, 6, 7, 16, 17, 10, 11)
PAPER_L1_FRONT = bytes([0x74, 0x75, 0x7e, 0x7f, 0x80, 0x81, 0x8a, 0x8b, 0x76, 0x77, 0x7c, 0x7d, 0x82, 0x83, 0x88, 0x89,
                        0xf2, 0xf3, 0xf8, 0xf9, 0x0e, 0x0f, 0x04, 0x05, 0x0c, 0x0d, 0x06, 0x07, 0xfa, 0xfb, 0xf0, 0xf1])
PAPER_L1_REAR = bytes([0xf4, 0xf5, 0xfe, 0xff, 0x00, 0x01, 0x0a, 0x0b, 0xf6, 0xf7, 0xfc, 0xfd, 0x02, 0x03, 0x08, 0x09,
                       0x72, 0x73, 0x78, 0x79, 0x8e, 0x8f, 0x84, 0x85, 0x8c, 0x8d, 0x86, 0x87, 0x7a, 0x7b, 0x70, 0x71])
PAPER_L2_FRONT = bytes([0x7c, 0x7d, 0x86, 0x87, 0x72, 0x73, 0x88, 0x89, 0x82, 0x83, 0x78, 0x79, 0x74, 0x75, 0x8e, 0x8f,
                        0xfe, 0xff, 0xf0, 0xf1, 0x0a, 0x0b, 0x04, 0x05, 0x0c, 0x0d, 0xf6, 0xf7, 0x00, 0x01, 0xfa, 0xfb])
PAPER_L2_REAR = bytes([0xfc, 0xfd, 0x06, 0x07, 0xf2, 0xf3, 0x08, 0x09, 0x02, 0x03, 0xf8, 0xf9, 0xf4, 0xf5, 0x0e, 0x0f,
                       0x7e, 0x7f, 0x70, 0x71, 0x8a, 0x8b, 0x84, 0x85, 0x8c, 0x8d, 0x76, 0x77, 0x80, 0x81, 0x7a, 0x7b])

DISTINCT = bytes(range(1, 33))


def test_paper_pl0_l1_l2_are_pl_pr_256_spread():
    assert uc.spread_permutation(256, "left", "encrypt") == PAPER_PL0 == PAPER_L1
    assert uc.spread_permutation(256, "right", "encrypt") == PAPER_L2


@pytest.mark.parametrize("side, front, rear", [("left", PAPER_L1_FRONT, PAPER_L1_REAR),
                                               ("right", PAPER_L2_FRONT, PAPER_L2_REAR)])
def test_front_and_rear_masks_do_what_the_papers_do(side, front, rear):
    in_lane, swapped = uc.permutation_masks(256, side, "encrypt")
    assert pshufb(DISTINCT, in_lane) == pshufb(DISTINCT, front)
    assert pshufb(DISTINCT, swapped) == pshufb(DISTINCT, rear)


def rotation_mask(target, bits):
    """The mask the backend emits for the kernel's rotation of spread words."""
    b = Builder("rot", target.bits, ("in", "out"))
    b.store("out", 0, b.rotl(b.load("in", 0), uc.spread_rotation(bits), uc.SPREAD_WORD_BITS))
    lowered = target.lower(b.finish())
    consts = {s.result: s.attrs["data"] for s in lowered.walk() if isinstance(s, Op) and s.opcode == "const"}
    (shuffle,) = [s for s in lowered.walk() if isinstance(s, Op) and s.opcode == "lookup16"]
    return consts[shuffle.args[1]]


@pytest.mark.parametrize("target", ["ssse3", "avx2", "avx512"])
def test_rotation_by_4_is_the_papers_a1(target):
    """Byte for byte in the low lane; the paper writes the high lane's indices
    as absolute positions (17 for 1), which pshufb reads modulo 16."""
    mask = rotation_mask(SIMD_TARGETS[target], 4)
    assert mask == PAPER_A1[:16]
    assert pshufb(DISTINCT, mask * 2) == pshufb(DISTINCT, PAPER_A1)


@pytest.mark.parametrize("bits", ublock.ROTATIONS)
def test_spread_rotations_are_the_specs_word_rotations(bits):
    rng = random.Random(bits)
    half = [rng.randrange(16) for _ in range(64)]
    b = Builder("rot", 512, ("in", "out"))
    b.store("out", 0, b.rotl(b.load("in", 0), uc.spread_rotation(bits), uc.SPREAD_WORD_BITS))
    mem = run(b.finish(), {"in": bytearray(half), "out": bytearray(64)})
    assert list(mem["out"]) == ref.rotate_words(half, bits)


@pytest.mark.parametrize("block_bits", [128, 256])
@pytest.mark.parametrize("side", uc.SIDES)
def test_permutation_masks_apply_pl_pr_and_their_inverses(block_bits, side):
    rng = random.Random(block_bits)
    half = bytes(rng.randrange(16) for _ in range(block_bits // 8))
    swap = lambda x: b"".join(x[i + 16:i + 32] + x[i:i + 16] for i in range(0, len(x), 32))
    spec_perm = (ublock.PL if side == "left" else ublock.PR)[block_bits]

    def apply(x, direction):
        in_lane, swapped = uc.permutation_masks(block_bits, side, direction)
        out = pshufb(x, in_lane)
        return out if swapped is None else bytes(a ^ c for a, c in zip(out, pshufb(swap(x), swapped)))

    forward = apply(half, "encrypt")
    assert list(forward) == ref.permute_bytes(list(half), spec_perm)
    assert apply(forward, "decrypt") == half


def test_sbox_tables_low_and_high():
    for direction, table in (("encrypt", ublock.SBOX), ("decrypt", ublock.inverse_sbox())):
        low, high = uc.sbox_tables(direction)
        assert list(low) == list(table)
        assert [v >> uc.NIBBLE_BITS for v in high] == list(table) and all(v & uc.LOW_NIBBLE == 0 for v in high)
    enc, dec = uc.sbox_tables("encrypt")[0], uc.sbox_tables("decrypt")[0]
    assert all(dec[enc[x]] == x for x in range(16))


def test_nibble_constants():
    assert (uc.NIBBLE_BITS, uc.LOW_NIBBLE, uc.HIGH_NIBBLE, uc.SPREAD_WORD_BITS) == (4, 0x0F, 0xF0, 64)
    assert uc.nibble_mask(False) == bytes([0x0F]) * 16 and uc.nibble_mask(True) == bytes([0xF0]) * 16
    with pytest.raises(ValueError, match="direction"):
        uc.sbox_tables("sideways")
