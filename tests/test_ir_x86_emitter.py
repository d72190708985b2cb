"""The x86 C emitter's forms for wide constants, 128/256-bit broadcasts and
128-bit block picks, compiled with the C compiler and run natively against
the IR interpreter (skipped where the compiler or the CPU lacks the ISA)."""

import random

import pytest

from compiled_kernels import run_compiled, why_not_runnable
from gen.backends import SIMD_TARGETS
from gen.backends.c_emitter import function_body
from gen.backends.passes import rewrite
from gen.backends.x86 import rules as x86_rules
from gen.backends.x86 import intrinsics
from gen.ir import Builder, run

# The vector-ISA-only x86 target of each width: what compiles the forms of that width.
WIDTH_TARGETS = {128: SIMD_TARGETS["ssse3"], 256: SIMD_TARGETS["avx2"], 512: SIMD_TARGETS["avx512"]}


def wide_program(bits, rng):
    """Every new form at once: a full-width constant, the broadcasts this width
    has, the lane swap and (at 512) picks no single VSHUFI32X4 makes, which
    the x86 rules turn into VPERMI2Q with a constant index."""
    nbytes = bits // 8
    b = Builder(f"wide{bits}", bits, ("m", "out"))
    x = b.load("m", 0)
    parts = [b.xor(x, b.const(bytes(rng.randrange(256) for _ in range(nbytes)), "full", "random full width")),
             b.bcast128("m", 3)]
    if bits >= 256:
        parts.append(b.bcast256("m", 5))
        parts.append(b.blocks128(x, x, tuple(i ^ 1 for i in range(bits // 128))))
    if bits == 512:
        y = b.load("m", nbytes)
        parts.append(b.blocks128(x, y, (0, 4, 2, 6)))
        parts.append(b.blocks128(x, y, (7, 1, 5, 2)))
    for k, value in enumerate(parts):
        b.store("out", k * nbytes, value)
    return rewrite(b.finish(), (x86_rules.blocks128_by_permute2q,)), len(parts) * nbytes


def native_flags(bits):
    """None where this machine cannot run the x86 code of a width, else True."""
    return None if why_not_runnable(WIDTH_TARGETS[bits]) else True


def run_native(program, memory, output, tmp_path):
    """Run the emitted body natively on the x86 target of the program's width."""
    return run_compiled(program, WIDTH_TARGETS[program.bits], memory, output, tmp_path)


@pytest.mark.parametrize("bits", [128, 256, 512])
def test_emitted_forms_compute_what_the_interpreter_computes(bits, tmp_path):
    if native_flags(bits) is None:
        pytest.skip(why_not_runnable(WIDTH_TARGETS[bits]))
    rng = random.Random(bits)
    program, out_bytes = wide_program(bits, rng)
    memory = {"m": bytes(rng.randrange(256) for _ in range(2 * bits // 8)), "out": bytes(out_bytes)}
    expect = run(program, {k: bytearray(v) for k, v in memory.items()})["out"]
    assert run_native(program, memory, "out", tmp_path) == expect


def volatile_program(bits):
    """A value stored to a scratch buffer and loaded back through volatile
    accesses (a kernel's value kept in memory on purpose), then stored plainly."""
    b = Builder(f"kept{bits}", bits, ("m", "out"))
    kept = b.scratch_buffer("kept", 2 * bits // 8)
    x = b.xor(b.load("m", 0), b.load("m", bits // 8))
    b.store(kept, bits // 8, x, volatile=True)
    y = b.load(kept, bits // 8, volatile=True)
    b.store("out", 0, b.xor(y, b.load("m", bits // 8)))
    return b.finish()


@pytest.mark.parametrize("bits", [128, 256, 512])
def test_volatile_accesses_and_scratch_are_emitted(bits):
    body = "\n".join(function_body(volatile_program(bits), intrinsics))
    assert f"_Alignas(64) uint8_t kept[{2 * bits // 8}];" in body
    assert body.count(f"kc_store_volatile{bits}((void *)(kept + {bits // 8})") == 1
    assert body.count(f"kc_load_volatile{bits}((const void *)(kept + {bits // 8})") == 1
    p, si = {128: ("_mm", "si128"), 256: ("_mm256", "si256"), 512: ("_mm512", "si512")}[bits]
    assert body.count(f"{p}_loadu_{si}(") == 3 and body.count(f"{p}_storeu_{si}(") == 1


def test_scratch_buffer_cannot_shadow_a_parameter():
    with pytest.raises(ValueError, match="shadows"):
        Builder("k", 256, ("m",)).scratch_buffer("m", 32)


@pytest.mark.parametrize("bits", [128, 256, 512])
def test_volatile_accesses_compute_what_the_interpreter_computes(tmp_path, bits):
    if native_flags(bits) is None:
        pytest.skip(f"no gcc or no {bits}-bit vectors on this machine")
    rng = random.Random(7)
    memory = {"m": bytes(rng.randrange(256) for _ in range(bits // 4)), "out": bytes(bits // 8)}
    program = volatile_program(bits)
    expect = run(program, {k: bytearray(v) for k, v in memory.items()})["out"]
    assert expect == memory["m"][:bits // 8]  # (a ^ b) ^ b
    assert "kept" not in run(program, {k: bytearray(v) for k, v in memory.items()})  # scratch stays the kernel's
    assert run_native(program, memory, "out", tmp_path) == expect
