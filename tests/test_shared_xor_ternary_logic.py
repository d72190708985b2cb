"""gen/backends/avx512_gfni.shared_xor_as_ternary_logic: a XOR with several
users is copied into all of them, each becoming one VPTERNLOGD, only where
that removes the XOR; the lowered program computes the same bits."""

from collections import Counter

import numpy as np
import pytest

from gen.backends import SIMD_TARGETS
from gen.ir import Builder, Op, run

AVX512_TARGETS = ("avx512", "avx512_gfni")
BYTES = 64


def opcodes(program):
    return Counter(s.opcode for s in program.walk() if isinstance(s, Op))


def lowered_and_checked(program, target, inputs):
    """Lower for `target`; assert it stores what the abstract program stores."""
    lowered = SIMD_TARGETS[target].lower(program)
    data = np.random.default_rng(7).integers(0, 256, inputs * BYTES, dtype=np.uint8).tobytes()
    out_bytes = 4 * BYTES
    expect = run(program, {"in": bytearray(data), "out": bytearray(out_bytes)})["out"]
    assert run(lowered, {"in": bytearray(data), "out": bytearray(out_bytes)})["out"] == expect
    return opcodes(lowered)


def loads(b, count):
    return [b.load("in", BYTES * i) for i in range(count)]


def shared_xor_program(bits=512, second_user="xor", store_shared=False):
    """shared = x ^ y, stored as shared ^ z and as second_user(w, shared)."""
    b = Builder("shared", bits, ("in", "out"))
    x, y, z, w = loads(b, 4)
    shared = b.xor(x, y, "shared")
    b.store("out", 0, b.xor(shared, z, "u"))
    b.store("out", BYTES, b._emit(second_user, (w, shared), "v"))
    if store_shared:
        b.store("out", 2 * BYTES, shared)
    return b.finish()


@pytest.mark.parametrize("target", AVX512_TARGETS)
def test_shared_xor_is_copied_into_every_user(target):
    assert lowered_and_checked(shared_xor_program(), target, 4) == {"load": 4, "ternlog": 2, "store": 2}


@pytest.mark.parametrize("target", AVX512_TARGETS)
def test_the_linear_chain_loses_every_other_step(target):
    """The shape of uBlock's linear layer on one position: every value feeds
    the next two steps, so no XOR has a single use; copying a1 and b2 into
    their users leaves four three-input XORs instead of six XORs."""
    b = Builder("chain", 512, ("in", "out"))
    x0, x1 = loads(b, 2)
    a1 = b.xor(x1, x0, "a1")
    b1 = b.xor(x0, a1, "b1")
    a2 = b.xor(a1, b1, "a2")
    b2 = b.xor(b1, a2, "b2")
    a3 = b.xor(a2, b2, "a3")
    b3 = b.xor(b2, a3, "b3")
    b.store("out", 0, b3)
    b.store("out", BYTES, a3)
    assert lowered_and_checked(b.finish(), target, 2) == {"load": 2, "ternlog": 4, "store": 2}


@pytest.mark.parametrize("target", AVX512_TARGETS)
def test_shared_xor_stays_when_a_user_is_not_a_xor(target):
    program = shared_xor_program(second_user="and")
    assert lowered_and_checked(program, target, 4) == {"load": 4, "xor": 2, "and": 1, "store": 2}


@pytest.mark.parametrize("target", AVX512_TARGETS)
def test_shared_xor_stays_when_it_is_stored_too(target):
    program = shared_xor_program(store_shared=True)
    assert lowered_and_checked(program, target, 4) == {"load": 4, "xor": 3, "store": 3}


@pytest.mark.parametrize("target", AVX512_TARGETS)
def test_shared_xor_is_not_copied_into_a_loop(target):
    """Copying it would compute it once per iteration instead of once."""
    b = Builder("loop", 512, ("in", "out"))
    x, y, z = loads(b, 3)
    acc, other = b.var("acc"), b.var("other")
    b.assign(acc, z)
    b.assign(other, z)
    shared = b.xor(x, y, "shared")
    with b.loop("r", 3):
        b.assign(acc, b.xor(acc, shared, "acc_next"))
        b.assign(other, b.xor(shared, other, "other_next"))
    b.store("out", 0, acc)
    b.store("out", BYTES, other)
    assert lowered_and_checked(b.finish(), target, 3) == {"load": 3, "xor": 3, "store": 2}


def test_targets_without_ternary_logic_keep_the_xors():
    assert lowered_and_checked(shared_xor_program(bits=256), "avx2", 4) == {"load": 4, "xor": 3, "store": 2}
