"""The AArch64 assembly emitter (gen/backends/aarch64/asm.py): programs
written as assembly, cross-built and run under qemu-user (-cpu max), give
the interpreter's bytes.  A program of every instruction form it writes
(each form of a selection, AESE overwriting either operand, SLI, SM4E, EOR3,
REV, TBL, the lane ops, LDUR and LD1R at odd offsets, an offset beyond LDR's
reach), and random programs with loops and more live values than registers
(spill slots, v8-v15 and their saved low halves).  Whole kernels are checked
by `make verify-aarch64` (verify and the ABI check)."""

import random
from dataclasses import replace

import pytest

from compiled_kernels import run_compiled, why_not_runnable
from gen.backends import SIMD_TARGETS
from gen.backends.aarch64 import asm
from gen.backends.assembly import assembly_file
from gen.ir import Builder, interpreter
from test_regalloc import random_program

NEON = SIMD_TARGETS["neon_asm"]
# neon_sm4's passes, with every extension the forms below use (qemu's "max" has them all).
SM4 = replace(SIMD_TARGETS["neon_sm4_asm"], cflags=("-march=armv8.2-a+crypto+sha3+sm4",))
pytestmark = pytest.mark.skipif(why_not_runnable(NEON) is not None, reason=str(why_not_runnable(NEON)))

IN_BYTES = 4200


def every_form():
    """A lowered neon_sm4 program using every form the emitter writes."""
    b = Builder("forms", 128, ("in", "out"))
    x = [b.load("in", 16 * i, hint="x") for i in range(6)]
    odd, far = b.load("in", 8, hint="odd"), b.load("in", 4104, hint="far")
    byte, word = b.bcast8("in", 3, hint="byte"), b.bcast32("in", 20, hint="word")
    mask_dies = b.select(b.xor(x[0], odd), x[1], x[2])         # BSL
    else_dies = b.select(x[1], b.xor(x[3], far), x[2])          # BIT
    then_dies = b.select(x[1], x[2], b.xor(x[4], byte))         # BIF
    key = b.xor(x[5], word)
    first_dies = b._emit("aese", (b.xor(x[0], x[1]), key), "aes_first")
    second_dies = b._emit("aese", (key, b.xor(x[2], x[3])), "aes_second")
    results = [mask_dies, else_dies, then_dies, first_dies, second_dies, key]
    results.append(b.rotl(x[0], 7, lane=32))
    results.append(b.shld(x[1], x[2], 3, lane=64))
    results += [b.shl(x[3], 3, lane=16), b.shr(x[4], 5, lane=64), b.shr(x[5], 2, lane=8)]
    results += [b.unpacklo(x[0], x[1], lane=8), b.unpackhi(x[2], x[3], lane=16),
                b.unpacklo(x[4], x[5], lane=32), b.unpackhi(x[0], x[5], lane=64)]
    results += [b.add(x[1], x[4], lane=8), b.add(x[2], x[5], lane=64), b.minu(x[0], x[3], lane=32),
                b.maxs(x[1], x[2], lane=32), b.andnot(x[3], x[4]), b.or_(x[0], x[2])]
    table = b.const(bytes(range(0, 256, 17)), "table", "a test table")
    results.append(b.lookup16(table, b.and_(x[1], b.const(bytes([15]) * 16, "low", "low nibbles"))))
    results.append(b.lookup16(x[2], b.const(bytes(i ^ 3 for i in range(16)), "rev", "bytes reversed per word")))
    results.append(b._emit("eor3", (x[0], x[3], x[5]), "three"))
    results += [b._emit("trn", (x[1], x[4]), "trn", half=half, lane=lane) for half, lane in ((1, 8), (2, 16), (2, 32))]
    results.append(b.sm4_rounds4(x[4], x[5]))
    for i, value in enumerate(results):
        b.store("out", 16 * i, value)
    return SM4.lower(b.finish()), len(results)


def memory(seed, out_bytes):
    rng = random.Random(seed)
    return {"in": bytearray(rng.randbytes(IN_BYTES)), "out": bytearray(out_bytes)}


def test_every_instruction_form_computes_what_the_interpreter_does(tmp_path):
    program, count = every_form()
    text = assembly_file("/* test */", [("kernel_asm", program)], SM4, "t")
    for form in ("\tbsl ", "\tbit ", "\tbif ", "\tsli ", "\tsm4e ", "\teor3 ", "\trev32 ", "\ttbl ", "\tldur ",
                 "\tld1r ", "\tadd x17, x0, #1, lsl #12", "\tzip1 ", "\tzip2 ", "\tumin ", "\tsmax ", "\tbic ",
                 "\ttrn1 ", "\ttrn2 "):
        assert form in text, form
    aese = [line.split("/*")[0].split() for line in text.splitlines() if line.startswith("\taese ")]
    assert len(aese) == 2
    memory_ = memory(0, 16 * count)
    assert run_compiled(program, SM4, memory_, "out", tmp_path) == bytes(interpreter.run(program, memory_)["out"])


@pytest.mark.parametrize("seed", range(6))
def test_random_programs_with_spills_and_loops(tmp_path, seed):
    """40-70 operations, loops carrying state: more live values than 32 registers."""
    program = random_program(seed, loop=True, ops=40 + 5 * seed, state=4)
    text = assembly_file("/* test */", [("kernel_asm", program)], NEON, "t")
    rng = random.Random(seed + 1)
    memory_ = {"key": bytearray(rng.randbytes(256)), "in": bytearray(rng.randbytes(256)), "out": bytearray(256)}
    assert run_compiled(program, NEON, memory_, "out", tmp_path) == bytes(interpreter.run(program, memory_)["out"])
    assert "b.ne " in text


def test_callee_saved_halves_are_kept_where_v8_to_v15_are_used(tmp_path):
    """Forty values live at once: v8-v15 are used, d8-d15 stored first and
    loaded back last, and the rest spills."""
    b = Builder("wide", 128, ("in", "out"))
    values = [b.load("in", 16 * i, hint="x") for i in range(40)]
    total = values[0]
    for i, value in enumerate(values):
        b.store("out", 16 * i, b.xor(value, values[(i + 1) % 40]))
    for value in values[1:]:
        total = b.add(total, value, lane=32)
    b.store("out", 16 * 40, total)
    program = b.finish()
    fn = asm.function("kernel_asm", program, NEON, "t", asm.DIALECTS["gas"])
    assert any(line.startswith("\tstp d8, d9, [sp]") for line in fn.saves)
    assert any(line.startswith("\tldp d14, d15,") for line in fn.restores)
    assert fn.allocation.slots > 0 and fn.frame == 64 + 16 * fn.allocation.slots
    memory_ = memory(1, 16 * 41)
    assert run_compiled(program, NEON, memory_, "out", tmp_path) == bytes(interpreter.run(program, memory_)["out"])


def test_a_small_program_has_no_frame():
    b = Builder("small", 128, ("in", "out"))
    b.store("out", 0, b.xor(b.load("in", 0), b.load("in", 16)))
    fn = asm.function("kernel_asm", b.finish(), NEON, "t", asm.DIALECTS["gas"])
    assert fn.frame == 0 and fn.saves == [] and fn.restores == []
    assert [line.split("/*")[0].strip() for line in fn.body] == [
        "ldr q0, [x0]", "ldr q1, [x0, #16]", "eor v0.16b, v0.16b, v1.16b", "str q0, [x1]"]
