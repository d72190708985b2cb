"""The clmul op: the interpreter against a NumPy model of the carry-less
product (bit i of y selects x << i, XORed), and every target's lowering
(PCLMULQDQ, VPCLMULQDQ, PMULL/PMULL2, halves split on AVX2 without
VPCLMULQDQ, the shift-and-mask legalization on targets without one) against
the interpreter, at every width the target has, for every pairing of halves;
the lowered programs pass the static constant-time check."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from gen.backends import SIMD_TARGETS
from gen.ir import Builder, ct_check
from gen.ir.interpreter import run
from test_ir_interpreter import run_ops

HALVES = tuple(itertools.product((0, 1), repeat=2))
C_TARGETS = [t for t in SIMD_TARGETS.values() if t.form == "c"]


def numpy_clmul(x, y):
    """The 128-bit carry-less product of two 64-bit integers: the XOR over the
    set bits i of y of x shifted left by i, in two 64-bit NumPy halves."""
    x, lo, hi = np.uint64(x), np.uint64(0), np.uint64(0)
    for i in range(64):
        if y >> i & 1:
            lo ^= x << np.uint64(i)
            if i:
                hi ^= x >> np.uint64(64 - i)
    return int(lo) | int(hi) << 64


def model(a, b, halves):
    """Per 128-bit block: the product of a's qword halves[0] and b's qword halves[1]."""
    out = b""
    for k in range(0, len(a), 16):
        x = int.from_bytes(a[k + 8 * halves[0]:k + 8 * halves[0] + 8], "little")
        y = int.from_bytes(b[k + 8 * halves[1]:k + 8 * halves[1] + 8], "little")
        out += numpy_clmul(x, y).to_bytes(16, "little")
    return out


def test_the_model_multiplies_polynomials():
    # (x + 1)^2 = x^2 + 1 over GF(2); x^63 * x^63 = x^126, in the high half
    assert numpy_clmul(0b11, 0b11) == 0b101
    assert numpy_clmul(1 << 63, 1 << 63) == 1 << 126


@settings(max_examples=40)
@given(st.binary(min_size=64, max_size=64), st.binary(min_size=64, max_size=64), st.sampled_from(HALVES))
def test_interpreter_matches_the_numpy_model(a, b, halves):
    out = run_ops(512, [a, b], lambda bl, x, y: bl.clmul(x, y, halves))
    assert out == model(a, b, halves)


def test_halves_are_checked():
    bld = Builder("t", 128, ("a",))
    with pytest.raises(ValueError, match="halves"):
        bld.clmul(bld.load("a", 0), bld.load("a", 0), (0, 2))


def _program(bits):
    """Every pairing of halves of two loaded values, each product stored."""
    bld = Builder("clmul_all", bits, ("a", "b", "out"))
    x, y = bld.load("a", 0), bld.load("b", 0)
    for k, halves in enumerate(HALVES):
        bld.store("out", k * bits // 8, bld.clmul(x, y, halves, f"p{k}"))
    return bld.finish()


@pytest.mark.parametrize("target", C_TARGETS, ids=lambda t: t.name)
def test_every_target_lowers_clmul_and_keeps_its_meaning(target):
    rng = np.random.default_rng(43)
    nbytes = target.bits // 8
    a, b = (bytes(rng.integers(0, 256, nbytes, dtype=np.uint8)) for _ in range(2))
    lowered = target.lower(_program(target.bits))
    assert not ct_check.check(lowered)
    mem = {"a": bytearray(a), "b": bytearray(b), "out": bytearray(4 * nbytes)}
    run(lowered, mem)
    assert bytes(mem["out"]) == b"".join(model(a, b, halves) for halves in HALVES)
    opcodes = {op.opcode for op in lowered.walk() if hasattr(op, "opcode")}
    has_instruction = not {"clmul"} & set(target.lacks)
    assert ("clmul" in opcodes) == has_instruction
    if target.arch.name == "aarch64" and has_instruction:  # PMULL/PMULL2: like halves only
        assert all(op.attrs["halves"] in ((0, 0), (1, 1)) for op in lowered.walk()
                   if getattr(op, "opcode", None) == "clmul")
    if target.name == "avx2_aesni":  # PCLMULQDQ on each half, no VPCLMULQDQ
        assert all(op.result.bits == 128 for op in lowered.walk() if getattr(op, "opcode", None) == "clmul")


def test_clmul_is_on_the_constant_time_allow_list():
    assert "clmul" in ct_check.constant_time_opcodes()


def test_256_bit_clmul_has_a_valgrind_form_in_c_and_assembly():
    """valgrind 3.19 cannot run VEX.256 VPCLMULQDQ: the constant-time check's
    build (KC_VALGRIND_SPLIT_VAES) runs PCLMULQDQ on each half instead, in the
    C twin (kc_clmul256, kc_x86.h) and in the assembly twin alike."""
    from gen.backends.assembly import assembly_file
    target = SIMD_TARGETS["avx2_vaes"]
    lowered = target.lower(_program(256))
    assert "kc_clmul256(" in "\n".join(target.c_body(lowered))
    text = assembly_file("/* test */", [("clmul_all_asm", lowered)], target.asm_twin(), "clmul_test")
    split = text.split("#ifdef KC_VALGRIND_SPLIT_VAES")[1].split("#else")[0]
    assert "vpclmulqdq" in split and "%ymm" not in split.split("vpclmulqdq")[1].split("\n")[0]
