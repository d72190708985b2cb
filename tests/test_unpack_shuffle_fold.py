"""gen/backends/avx512_gfni.unpack_of_shuffles_as_permute2b: an unpack of
byte shuffles by constants becomes one VPERMT2B by a folded index, only where
every user of the shuffles is an unpack (so the shuffles go away) and no
shuffle byte zeroes; the lowered program computes the same bits."""

from collections import Counter

import numpy as np
import pytest

from gen.backends import SIMD_TARGETS
from gen.ir import Builder, Op, run

BYTES = 64
BSWAP32 = bytes(4 * (i // 4) + 3 - i % 4 for i in range(16))
ROTATE_BYTES = bytes((i + 5) % 16 for i in range(16))


def lowered_opcodes(program, inputs=2):
    """Lower for avx512_gfni; assert it stores what the abstract program stores."""
    lowered = SIMD_TARGETS["avx512_gfni"].lower(program)
    data = np.random.default_rng(11).integers(0, 256, inputs * BYTES, dtype=np.uint8).tobytes()
    expect = run(program, {"in": bytearray(data), "out": bytearray(4 * BYTES)})["out"]
    assert run(lowered, {"in": bytearray(data), "out": bytearray(4 * BYTES)})["out"] == expect
    return Counter(s.opcode for s in lowered.walk() if isinstance(s, Op))


def unpack_program(lane, pattern_a, pattern_b=None, extra_use=False):
    """unpacklo/hi(shuffle(a, pattern_a), b or shuffle(b, pattern_b)), both stored."""
    b = Builder("unpacks", 512, ("in", "out"))
    x, y = b.load("in", 0), b.load("in", BYTES)
    xs = b.lookup16(x, b.const(pattern_a, "pa", "pattern a"))
    ys = y if pattern_b is None else b.lookup16(y, b.const(pattern_b, "pb", "pattern b"))
    b.store("out", 0, b.unpacklo(xs, ys, lane))
    b.store("out", BYTES, b.unpackhi(xs, ys, lane))
    if extra_use:
        b.store("out", 2 * BYTES, xs)
    return b.finish()


@pytest.mark.parametrize("lane", [8, 16, 32, 64])
def test_both_sides_shuffled_fold_into_two_permutes(lane):
    ops = lowered_opcodes(unpack_program(lane, BSWAP32, ROTATE_BYTES))
    assert ops["permute2b"] == 2 and ops["lookup16"] == 0
    assert ops["unpacklo"] == ops["unpackhi"] == 0


@pytest.mark.parametrize("lane", [16, 32])
def test_one_side_shuffled_folds_too(lane):
    ops = lowered_opcodes(unpack_program(lane, ROTATE_BYTES))
    assert ops["permute2b"] == 2 and ops["lookup16"] == 0


def test_a_shuffle_with_another_user_is_kept():
    ops = lowered_opcodes(unpack_program(32, BSWAP32, extra_use=True))
    assert ops["permute2b"] == 0 and ops["lookup16"] == 1 and ops["unpacklo"] == 1


def test_a_zeroing_shuffle_is_kept():
    zeroing = bytes([0x80]) + BSWAP32[1:]
    ops = lowered_opcodes(unpack_program(32, zeroing, BSWAP32))
    assert ops["lookup16"] == 1  # the zeroing one; the other side still folds
    assert ops["permute2b"] == 2
