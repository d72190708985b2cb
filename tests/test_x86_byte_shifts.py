"""gen/backends/x86/rules.byte_shift_by_word_shift: x86 has no byte shifts, so a
lane-8 shl/shr becomes a 16-bit shift and an AND with the byte's own bits,
the AND left out exactly when the op's `known` and `care` masks show that no
bit crossing between bytes reaches a bit a user reads."""

import pytest
from hypothesis import given, settings, strategies as st

from gen.backends import SIMD_TARGETS
from gen.backends.arch import X86_64
from gen.backends.x86 import rules
from gen.backends.passes import rewrite
from gen.ir import Builder, Op, run

vec = st.binary(min_size=32, max_size=32)
shifts = st.tuples(st.sampled_from(["shl", "shr"]), st.integers(1, 7))


def byte_shift_program(opcode, n, known=None, care=None, bits=256):
    bld = Builder("t", bits, ("a", "out"))
    bld.store("out", 0, getattr(bld, opcode)(bld.load("a", 0), n, 8, "s", known=known, care=care))
    return bld.finish()


def run_on(program, data):
    memory = {"a": bytearray(data), "out": bytearray(len(data))}
    run(program, memory)
    return bytes(memory["out"])


def ops(program):
    return [(s.opcode, s.attrs.get("lane")) for s in program.walk() if isinstance(s, Op)
            and s.opcode not in ("load", "store", "const")]


def without_and(program):
    """The lowered program with its AND skipped: the 16-bit shift alone."""
    body = [s for s in program.body if not (isinstance(s, Op) and s.opcode == "and")]
    shift = next(s for s in body if isinstance(s, Op) and s.opcode in ("shl", "shr"))
    store = body[-1]
    store.args = (shift.result,)
    program.body = body
    return program


def crossing(opcode, n, known):
    """The bits of a result byte that a 16-bit shift fills from the neighbour
    byte, for inputs within `known` (computed bit by bit, not as the rule does)."""
    bits = 0
    for bit in range(8):
        if known >> bit & 1:
            lands = bit + n - 8 if opcode == "shl" else bit - n + 8
            if 0 <= lands < 8:
                bits |= 1 << lands
    return bits


def test_a_plain_byte_shift_becomes_a_16_bit_shift_and_an_and():
    lowered = rewrite(byte_shift_program("shr", 3), rules.BYTE_SHIFT_PASS)
    assert ops(lowered) == [("shr", 16), ("and", None)]
    masks = [s.attrs["data"] for s in lowered.walk() if isinstance(s, Op) and s.opcode == "const"]
    assert masks == [bytes([0x1F] * 16)]
    data = bytes(range(0, 256, 8))
    assert run_on(lowered, data) == bytes(v >> 3 for v in data)


@settings(max_examples=200)
@given(shifts, st.integers(0, 0xFF), st.integers(0, 0xFF), vec)
def test_the_and_is_dropped_exactly_when_known_and_care_allow(shift, known, care, data):
    opcode, n = shift
    source = byte_shift_program(opcode, n, known, care)
    lowered = rewrite(source, rules.BYTE_SHIFT_PASS)
    inside = bytes(v & known for v in data)
    expected = run_on(source, inside)
    keeps_and = bool(crossing(opcode, n, known) & care)
    assert ops(lowered) == [(opcode, 16)] + [("and", None)] * keeps_and
    # Whatever the rule chose, the bits a user reads are the byte shift's.
    assert [v & care for v in run_on(lowered, inside)] == [v & care for v in expected]
    if keeps_and:
        # The AND was needed: with every known bit set, a crossing bit lands on a cared-for one.
        full = bytes([known] * 32)
        assert any((x ^ y) & care for x, y in zip(run_on(without_and(lowered), full), run_on(source, full)))


def test_known_nibbles_shifted_up_need_no_and():
    """unslice's case: nibbles below 16 shifted left by 4 cannot cross."""
    assert ops(rewrite(byte_shift_program("shl", 4, known=0x0F), rules.BYTE_SHIFT_PASS)) == [("shl", 16)]
    assert ops(rewrite(byte_shift_program("shl", 4, known=0x1F), rules.BYTE_SHIFT_PASS)) == [("shl", 16), ("and", None)]


def test_care_below_the_crossing_bits_needs_no_and():
    """The nibble split's case: shr 4 and the user reads the low nibble only."""
    assert ops(rewrite(byte_shift_program("shr", 4, care=0x0F), rules.BYTE_SHIFT_PASS)) == [("shr", 16)]
    # Bit 4 read: a bit of the next byte lands there, and the AND must stay.
    lowered = rewrite(byte_shift_program("shr", 4, care=0x1F), rules.BYTE_SHIFT_PASS)
    assert ops(lowered) == [("shr", 16), ("and", None)]
    data = bytes([0x01] * 32)
    assert run_on(without_and(lowered), data) != run_on(byte_shift_program("shr", 4), data)


def test_a_byte_rotation_is_two_masked_shifts_without_gfni():
    """rotate_by_shifts takes lane 8 too: rotl8 = shl8 | shr8, each a 16-bit
    shift and an AND on x86 (what rotate_bytes_by_masked_shifts wrote by hand)."""
    bld = Builder("t", 128, ("a", "out"))
    bld.store("out", 0, bld.rotl(bld.load("a", 0), 5, 8, "r"))
    lowered = SIMD_TARGETS["ssse3_aesni"].lower(bld.finish())
    assert sorted(ops(lowered), key=str) == sorted([("shl", 16), ("and", None), ("shr", 16), ("and", None),
                                                    ("or", None)], key=str)
    data = bytes(range(7, 7 + 16 * 13, 13))
    assert run_on(lowered, data) == bytes(((v << 5) | (v >> 3)) & 0xFF for v in data)


@pytest.mark.parametrize("target", sorted(t for t in SIMD_TARGETS if SIMD_TARGETS[t].arch == X86_64 and SIMD_TARGETS[t].form == "c"))
def test_every_x86_target_lowers_byte_shifts(target):
    """The C emitter has no 8-bit shift: no target may leave one."""
    t = SIMD_TARGETS[target]
    bld = Builder("t", t.bits, ("a", "out"))
    x = bld.load("a", 0)
    shifted = bld.xor(bld.shl(x, 3, 8, "l"), bld.shr(x, 6, 8, "r", care=0xF3), "x")
    bld.store("out", 0, shifted)
    source = bld.finish()
    lowered = t.lower(source)
    assert not [s for s in lowered.walk() if isinstance(s, Op) and s.opcode in ("shl", "shr") and s.attrs["lane"] == 8]
    data = bytes((37 * i + 11) & 0xFF for i in range(t.bits // 8))
    got, want = run_on(lowered, data), run_on(source, data)
    assert [v & 0xF3 for v in got] == [v & 0xF3 for v in want]  # bits 2 and 3 are the shr's don't-care
