"""gen/backends/aarch64: its private ops against independent models (linalg's
AESE model, Python integers, NumPy), and what its rules make of small
programs (which instructions appear, which disappear)."""

import numpy as np
from hypothesis import given, settings, strategies as st

from gen.backends import SIMD_TARGETS
from gen.backends.aarch64 import rules
from gen.backends.passes import rewrite
from gen.ir import Builder, Op, run
from gen.ir.semantics import SHIFT_ROWS, aes_sbox_table
from gen.linalg import AffineMap, BitMatrix
from gen.linalg.aesni_form import aese
from test_ir_interpreter import run_ops

vec = st.binary(min_size=16, max_size=16)


@settings(max_examples=30)
@given(vec, vec)
def test_aese_matches_the_linalg_model(state, key):
    out = run_ops(128, [state, key], lambda bl, x, k: bl._emit("aese", (x, k), "a"))
    assert out == aese(state, key, aes_sbox_table(), SHIFT_ROWS)


@settings(max_examples=30)
@given(vec, vec, st.sampled_from([8, 16, 32, 64]), st.data())
def test_sli_matches_integers(a, b, lane, data):
    n = data.draw(st.integers(1, lane - 1))
    out = run_ops(128, [a, b], lambda bl, x, y: bl._emit("sli", (x, y), "s", n=n, lane=lane))
    step = lane // 8
    for i in range(0, 16, step):
        x, y = (int.from_bytes(v[i:i + step], "little") for v in (a, b))
        want = ((y << n) | (x & ((1 << n) - 1))) & ((1 << lane) - 1)
        assert int.from_bytes(out[i:i + step], "little") == want


@given(vec, st.sampled_from(rules.REV_FORMS))
def test_rev_reverses_elements_within_groups(x, form):
    group, element = form
    out = run_ops(128, [x], lambda bl, v: bl._emit("rev", (v,), "r", group=group, element=element))
    want = np.frombuffer(x, np.uint8).reshape(-1, group // element, element)[:, ::-1, :].reshape(-1)
    assert out == want.tobytes()
    # and it is the byte move rev_pattern names
    assert out == bytes(x[i] for i in rules.rev_pattern(group, element))


def _opcodes(program):
    return [s.opcode for s in program.walk() if isinstance(s, Op)]


def test_byte_swaps_and_half_word_rotations_become_rev():
    b = Builder("t", 128, ("m", "out"))
    x = b.load("m", 0)
    b.store("out", 0, b.rotl(x, 16, 32))
    b.store("out", 16, b.lookup16(x, b.const(rules.rev_pattern(4, 1), "bswap", "byte swap")))
    lowered = SIMD_TARGETS["neon"].lower(b.finish())
    assert _opcodes(lowered).count("rev") == 2 and "lookup16" not in _opcodes(lowered)


def test_a_uniform_round_key_goes_into_aese():
    """affine_inv8(a ^ b ^ key) with a uniform key: the key is AESE's, one XOR
    is left of the three (the rebuilt a ^ b), and the result is unchanged."""
    def program(uniform):
        b = Builder("t", 128, ("m", "k", "out"))
        t = b.xor(b.xor(b.load("m", 0), b.bcast32("k", 0, uniform=uniform)), b.load("m", 16))
        b.store("out", 0, b.affine_inv8(t, AffineMap(BitMatrix.identity(8), 0x1F), "y"))
        return b.finish()
    target = SIMD_TARGETS["neon_aes"]
    folded, plain = target.lower(program(True)), target.lower(program(False))
    assert _opcodes(folded).count("xor") < _opcodes(plain).count("xor")
    memory = {"m": bytes(range(7, 39)), "k": b"\x5c" * 4}
    outs = [run(p, {k: bytearray(v) for k, v in dict(memory, out=bytes(16)).items()})["out"]
            for p in (folded, plain)]
    assert outs[0] == outs[1]


def test_three_way_xors_become_eor3_only_on_neon_sha3():
    b = Builder("t", 128, ("m", "out"))
    b.store("out", 0, b.xor(b.xor(b.load("m", 0), b.load("m", 16)), b.load("m", 32)))
    program = b.finish()
    assert _opcodes(rewrite(program, (rules.xor3_by_eor3,))).count("eor3") == 1
    assert "eor3" in _opcodes(SIMD_TARGETS["neon_sha3"].lower(program))
    assert "eor3" not in _opcodes(SIMD_TARGETS["neon_aes"].lower(program))


def test_the_nibble_mask_after_a_byte_shift_goes():
    """USHR on bytes leaves nothing above the nibble: the AND x86 needs is dropped."""
    b = Builder("t", 128, ("m", "out"))
    shifted = b.shr(b.load("m", 0), 4, 8, "h", care=0x0F)
    b.store("out", 0, b.and_(shifted, b.const(bytes([0x0F] * 16), "mask", "low nibble")))
    lowered = SIMD_TARGETS["neon"].lower(b.finish())
    assert "and" not in _opcodes(lowered)
    memory = {"m": bytearray(range(200, 216)), "out": bytearray(16)}
    assert bytes(run(lowered, memory)["out"]) == bytes(v >> 4 for v in range(200, 216))


@given(vec, vec, st.sampled_from([8, 16, 32, 64]), st.sampled_from([1, 2]))
def test_trn_interleaves_even_or_odd_elements(a, b, lane, half):
    out = run_ops(128, [a, b], lambda bl, x, y: bl._emit("trn", (x, y), "t", half=half, lane=lane))
    size = lane // 8
    elements = [(a, b)[pair % 2][size * (2 * (pair // 2) + half - 1):][:size] for pair in range(16 // size)]
    assert out == b"".join(elements)


def test_selects_that_interleave_elements_become_trn():
    """select(odd elements, x >> e, y) is TRN2(x, y) and select(odd elements,
    x, y << e) TRN1(x, y), for bytes, halfwords and words; a select on another mask
    stays a BSL, and the shifts the TRNs replace are gone."""
    b = Builder("t", 128, ("m", "out"))
    x, y = b.load("m", 0), b.load("m", 16)
    for k, size in enumerate((1, 2, 4)):
        odd = b.const((bytes(size) + b"\xff" * size) * (8 // size), f"odd{size}", "odd elements")
        b.store("out", 32 * k, b.select(odd, b.shr(x, 8 * size, 16 * size), y))
        b.store("out", 32 * k + 16, b.select(odd, x, b.shl(y, 8 * size, 16 * size)))
    other = b.const(bytes([0, 0xFF, 0xFF, 0]) * 4, "other", "not odd elements")
    b.store("out", 96, b.select(other, b.shr(x, 8, 16), y))
    odd = b.const(bytes([0, 0xFF]) * 8, "odd1", "odd bytes")
    b.store("out", 112, b.select(odd, b.shr(x, 4, 16), y))        # not a whole element: no TRN
    program = b.finish()
    lowered = SIMD_TARGETS["neon"].lower(program)
    ops = _opcodes(lowered)
    assert ops.count("trn") == 6 and ops.count("bsl") == 2
    assert ops.count("shr") + ops.count("shl") == 2
    memory = {"m": bytes(range(101, 133)), "out": bytes(128)}
    outs = [bytes(run(p, {k: bytearray(v) for k, v in memory.items()})["out"]) for p in (program, lowered)]
    assert outs[0] == outs[1]


def _defining_opcode(program, value):
    """The opcode of the op in `program` that makes `value`."""
    return next(s.opcode for s in program.walk() if isinstance(s, Op) and s.result is value)


def test_aese_takes_a_xor_only_where_nothing_else_reads_it():
    def program(shared):
        b = Builder("t", 128, ("m", "out"))
        both = b.xor(b.load("m", 0), b.load("m", 16))
        b.store("out", 0, b._emit("aese", (both, b.const(bytes(16), "zero", "key 0")), "a"))
        if shared:
            b.store("out", 16, both)
        return b.finish()
    for shared in (False, True):
        source = program(shared)
        lowered = rewrite(source, (rules.aese_takes_xor,))
        aese_op = next(s for s in lowered.walk() if isinstance(s, Op) and s.opcode == "aese")
        assert ("const" in [_defining_opcode(lowered, a) for a in aese_op.args]) == shared
        memory = {"m": bytes(range(40, 72)), "out": bytes(32)}
        outs = [bytes(run(p, {k: bytearray(v) for k, v in memory.items()})["out"]) for p in (source, lowered)]
        assert outs[0] == outs[1]


def test_the_nibble_tables_xor_goes_into_aese():
    """affine_inv8(affine8(x)): the bytes are moved (inverse ShiftRows) before
    the inner map's nibble tables, whose XOR AESE's key takes; the result is
    unchanged.  An inner map that something else reads stays where it is."""
    def program(shared):
        b = Builder("t", 128, ("m", "out"))
        inner = b.affine8(b.load("m", 0), AffineMap(BitMatrix.from_columns([1 << (7 - j) for j in range(8)], 8), 0x63))
        b.store("out", 0, b.affine_inv8(inner, AffineMap(BitMatrix.identity(8), 0x1F), "y"))
        if shared:
            b.store("out", 16, inner)
        return b.finish()
    for shared in (False, True):
        source = program(shared)
        lowered = SIMD_TARGETS["neon_aes"].lower(source)
        aese_op = next(s for s in lowered.walk() if isinstance(s, Op) and s.opcode == "aese")
        keys = [_defining_opcode(lowered, a) for a in aese_op.args]
        assert ("const" in keys) == shared
        memory = {"m": bytes(range(3, 19)), "out": bytes(32)}
        outs = [bytes(run(p, {k: bytearray(v) for k, v in memory.items()})["out"]) for p in (source, lowered)]
        assert outs[0] == outs[1]
