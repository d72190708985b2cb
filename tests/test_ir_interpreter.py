"""The interpreter's ops against independent models (linalg's instruction
models, Python integers)."""

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from gen.ir import Builder, run
from gen.ir.semantics import aes_sbox_table, private_op, register_op
from gen.linalg import AffineMap, BitMatrix, pshufb

vec = st.binary(min_size=32, max_size=32)


def run_binary(build, a, b=None, bits=256):
    bld = Builder("t", bits, ("a", "b", "out"))
    x = bld.load("a", 0)
    y = bld.load("b", 0) if b is not None else None
    bld.store("out", 0, build(bld, x, y))
    mem = {"a": bytearray(a), "b": bytearray(b or bytes(len(a))), "out": bytearray(len(a))}
    run(bld.finish(), mem)
    return bytes(mem["out"])


# Index bytes in the 16-entry lookup's domain: 0..15 pick, 0x80..0xFF zero.
lookup_index = st.lists(st.one_of(st.integers(0, 15), st.integers(0x80, 0xFF)), min_size=32,
                        max_size=32).map(bytes)


@given(vec, lookup_index)
def test_lookup16_looks_up_16_entries_per_block(a, b):
    """On its domain the lookup is what pshufb and TBL both do: byte k of the
    index picks that byte of the table's same 128-bit block, or gives zero."""
    out = run_binary(lambda bl, x, y: bl.lookup16(x, y), a, b)
    assert out == bytes(0 if i >= 0x80 else a[k - k % 16 + i] for k, i in enumerate(b))
    assert out == pshufb(a[:16], b[:16]) + pshufb(a[16:], b[16:])


@given(vec, lookup_index, st.integers(0, 31), st.integers(16, 0x7F))
def test_lookup16_refuses_an_index_outside_its_domain(a, b, at, bad):
    """16..0x7F means different things on x86 (i & 15) and AArch64 (zero): an error."""
    index = b[:at] + bytes([bad]) + b[at + 1:]
    with pytest.raises(ValueError, match=rf"lookup16 %shuf: index byte {at} is {bad:#04x}, outside its domain"):
        run_binary(lambda bl, x, y: bl.lookup16(x, y), a, index)


@given(vec, vec, st.sampled_from([8, 16, 32, 64]))
def test_unpack_interleaves_low_and_high_halves(a, b, lane):
    size = lane // 8
    lo = run_binary(lambda bl, x, y: bl.unpacklo(x, y, lane), a, b)
    hi = run_binary(lambda bl, x, y: bl.unpackhi(x, y, lane), a, b)
    for base in (0, 16):
        ea = [a[base + i:base + i + size] for i in range(0, 16, size)]
        eb = [b[base + i:base + i + size] for i in range(0, 16, size)]
        half = len(ea) // 2
        assert lo[base:base + 16] == b"".join(x + y for x, y in zip(ea[:half], eb[:half]))
        assert hi[base:base + 16] == b"".join(x + y for x, y in zip(ea[half:], eb[half:]))


@given(vec, st.sampled_from([16, 32, 64]), st.integers(1, 15))
def test_shifts_and_rotates_match_integers(a, lane, n):
    size = lane // 8
    mask = (1 << lane) - 1
    for op, model in (("shl", lambda v: (v << n) & mask), ("shr", lambda v: v >> n),
                      ("rotl", lambda v: ((v << n) | (v >> (lane - n))) & mask)):
        out = run_binary(lambda bl, x, y: getattr(bl, op)(x, n, lane), a)
        for i in range(0, 32, size):
            v = int.from_bytes(a[i:i + size], "little")
            assert int.from_bytes(out[i:i + size], "little") == model(v)


@given(vec, vec)
def test_add32_wraps(a, b):
    out = run_binary(lambda bl, x, y: bl.add(x, y, 32), a, b)
    for i in range(0, 32, 4):
        s = (int.from_bytes(a[i:i + 4], "little") + int.from_bytes(b[i:i + 4], "little")) % 2**32
        assert out[i:i + 4] == s.to_bytes(4, "little")


def test_aes_sbox_known_values():
    sbox = aes_sbox_table()
    assert (sbox[0x00], sbox[0x01], sbox[0x53], sbox[0xFF]) == (0x63, 0x7C, 0xED, 0x16)


@settings(max_examples=20)
@given(vec, st.lists(st.integers(0, 255), min_size=8, max_size=8), st.integers(0, 255))
def test_affine8_applies_map_to_every_byte(a, rows, c):
    m = AffineMap(BitMatrix(tuple(rows), 8), c)
    out = run_binary(lambda bl, x, y: bl.affine8(x, m), a)
    assert out == bytes(m.apply(v) for v in a)


def test_loops_and_state_variables():
    bld = Builder("t", 128, ("rk", "out"))
    acc = bld.var("acc")
    bld.assign(acc, bld.const(bytes(16), "zero", "zero"))
    with bld.loop("r", 5):
        from gen.ir import Index
        bld.assign(acc, bld.xor(acc, bld.bcast8("rk", Index(0, (("r", 1),)))))
    bld.store("out", 0, acc)
    mem = {"rk": bytearray([1, 2, 4, 8, 16]), "out": bytearray(16)}
    run(bld.finish(), mem)
    assert bytes(mem["out"]) == bytes([31]) * 16
    assert np.frombuffer(bytes(mem["out"]), dtype=np.uint8).sum() == 31 * 16


@given(st.sampled_from([128, 256, 512]), st.binary(min_size=64, max_size=64), st.integers(0, 8))
def test_broadcasts_repeat_their_bytes_in_every_block(bits, memory, offset):
    """bcast128 / bcast256 read 16 / 32 bytes at the index and fill the register
    with them; at the register's own width they are plain loads."""
    nbytes = bits // 8
    widths = [(16, "bcast128")] + ([(32, "bcast256")] if bits >= 256 else [])
    for width, opcode in widths:
        bld = Builder("t", bits, ("m", "out"))
        bld.store("out", 0, getattr(bld, opcode)("m", offset))
        mem = {"m": bytearray(memory), "out": bytearray(nbytes)}
        run(bld.finish(), mem)
        assert bytes(mem["out"]) == memory[offset:offset + width] * (nbytes // width)


@pytest.mark.parametrize("word, holds", [(b"\x5a" * 4, True), (b"\x5a\x5a\x5b\x5a", False)])
def test_a_uniform_bcast32_is_checked_against_memory(word, holds):
    """bcast32's `uniform` is a promise that backends rely on (AArch64 folds
    such a word into AESE's key): the interpreter refuses memory that breaks it."""
    bld = Builder("t", 128, ("m", "out"))
    bld.store("out", 0, bld.bcast32("m", 0, uniform=True))
    mem = {"m": bytearray(word), "out": bytearray(16)}
    if holds:
        run(bld.finish(), mem)
        assert bytes(mem["out"]) == word * 4
    else:
        with pytest.raises(ValueError, match="equal bytes"):
            run(bld.finish(), mem)


def test_bcast256_needs_a_256_bit_register():
    with pytest.raises(ValueError, match="256- or 512-bit"):
        Builder("t", 128, ("m",)).bcast256("m", 0)


@given(st.sampled_from([128, 256, 512]), st.data())
def test_full_width_constants_are_the_whole_register(bits, data):
    nbytes = bits // 8
    full = data.draw(st.binary(min_size=nbytes, max_size=nbytes))
    lane = data.draw(st.binary(min_size=16, max_size=16))
    bld = Builder("t", bits, ("out",))
    bld.store("out", 0, bld.const(full, "full", "full width"))
    bld.store("out", nbytes, bld.const(lane, "lane", "one lane"))
    mem = {"out": bytearray(2 * nbytes)}
    run(bld.finish(), mem)
    assert bytes(mem["out"]) == full + lane * (nbytes // 16)


def test_a_full_width_constant_that_repeats_per_lane_is_the_lane_constant():
    """Same value, same constant: the emitter then broadcasts 16 bytes."""
    bld = Builder("t", 512, ("out",))
    lane = bytes(range(16))
    assert bld.const(lane * 4, "a", "") is bld.const(lane, "b", "")
    (op,) = [s for s in bld.finish().body if s.opcode == "const"]
    assert op.attrs["data"] == lane
    with pytest.raises(ValueError, match="need 16 or 64 bytes"):
        bld.const(bytes(32), "c", "")


@given(st.sampled_from([256, 512]), st.binary(min_size=64, max_size=64))
def test_lane_swap_exchanges_the_128_bit_halves_of_every_256_bits(bits, data):
    nbytes = bits // 8
    swap = tuple(i ^ 1 for i in range(bits // 128))
    out = run_binary(lambda bl, x, y: bl.blocks128(x, x, swap), data[:nbytes], bits=bits)
    assert out == b"".join(data[i + 16:i + 32] + data[i:i + 16] for i in range(0, nbytes, 32))


def run_ops(bits, inputs, build):
    """Run build(builder, *loaded inputs) on `inputs` (bits/8 bytes each)."""
    names = [f"in{k}" for k in range(len(inputs))]
    bld = Builder("t", bits, tuple(names) + ("out",))
    bld.store("out", 0, build(bld, *(bld.load(n, 0) for n in names)))
    mem = {**{n: bytearray(x) for n, x in zip(names, inputs)}, "out": bytearray(bits // 8)}
    run(bld.finish(), mem)
    return bytes(mem["out"])


vec512 = st.binary(min_size=64, max_size=64)


@given(st.permutations(range(256)), vec512)
def test_sbox8_looks_every_byte_up(table, x):
    out = run_ops(512, [x], lambda bl, v: bl.sbox8(v, table))
    assert out == bytes(table[v] for v in x)


def test_sbox8_needs_256_entries():
    bld = Builder("t", 128, ("a",))
    with pytest.raises(ValueError, match="256-byte table"):
        bld.sbox8(bld.load("a", 0), range(16))


def _emit_and_run(opcode, data):
    """Run one op `opcode` on the 16 bytes `data` (no Builder method makes it)."""
    bld = Builder("t", 128, ("a", "out"))
    bld.store("out", 0, bld._emit(opcode, (bld.load("a", 0),), "p"))
    mem = {"a": bytearray(data), "out": bytearray(16)}
    run(bld.finish(), mem)
    return bytes(mem["out"])


def _reverse_bytes(op, args):
    return args[0][::-1].copy()


def test_an_unknown_opcode_is_a_clear_error():
    with pytest.raises(ValueError, match=r"unknown opcode 'no_such_op' \(%p\).*register_op"):
        _emit_and_run("no_such_op", bytes(16))


def test_a_registered_private_op_runs_its_meaning():
    register_op("test_reverse_bytes", _reverse_bytes, "the bytes in reverse order")
    register_op("test_reverse_bytes", _reverse_bytes, "the bytes in reverse order")  # again: the same meaning
    assert private_op("test_reverse_bytes").doc == "the bytes in reverse order"
    assert _emit_and_run("test_reverse_bytes", bytes(range(16))) == bytes(range(15, -1, -1))


def test_register_op_refuses_ir_opcodes_other_meanings_and_no_doc():
    with pytest.raises(ValueError, match="'lookup16' is an IR opcode"):
        register_op("lookup16", _reverse_bytes, "pshufb")
    register_op("test_reverse_once", _reverse_bytes, "the bytes in reverse order")
    with pytest.raises(ValueError, match="already registered with another meaning"):
        register_op("test_reverse_once", lambda op, args: args[0], "identity")
    with pytest.raises(ValueError, match="needs a doc"):
        register_op("test_undocumented", _reverse_bytes, "")


def test_the_ir_imports_no_backend():
    """gen.ir knows no ISA: importing it (interpreter included) loads nothing
    from gen.backends; backends register their ops themselves."""
    code = "import sys, gen.ir, gen.ir.interpreter; print(sorted(m for m in sys.modules if m.startswith('gen.')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=Path(__file__).resolve().parents[1]).stdout
    assert "gen.ir" in out and "gen.backends" not in out


@given(vec, st.integers(1, 7))
def test_byte_shifts_match_integers(a, n):
    """Lane 8 is a shift like any other: no bit crosses into the next byte."""
    left = run_binary(lambda bl, x, y: bl.shl(x, n, 8), a)
    right = run_binary(lambda bl, x, y: bl.shr(x, n, 8), a)
    assert left == bytes((v << n) & 0xFF for v in a)
    assert right == bytes(v >> n for v in a)


@given(st.sampled_from(["shl", "shr"]), st.integers(1, 7), st.integers(0, 0xFE), st.data())
def test_a_byte_shift_checks_its_known_mask(opcode, n, known, data):
    """Input within `known`: the plain shift; a bit outside it: an error naming the byte."""
    inside = data.draw(st.lists(st.integers(0, 255).map(lambda v: v & known), min_size=32, max_size=32).map(bytes))
    out = run_binary(lambda bl, x, y: getattr(bl, opcode)(x, n, 8, known=known), inside)
    assert out == run_binary(lambda bl, x, y: getattr(bl, opcode)(x, n, 8), inside)
    at = data.draw(st.integers(0, 31))
    stray = data.draw(st.sampled_from([1 << bit for bit in range(8) if not known >> bit & 1]))
    outside = inside[:at] + bytes([inside[at] | stray]) + inside[at + 1:]
    message = rf"input byte {at} is {outside[at]:#04x}, outside its known mask {known:#04x}"
    with pytest.raises(ValueError, match=message):
        run_binary(lambda bl, x, y: getattr(bl, opcode)(x, n, 8, known=known), outside)


def run_flipped(build, a):
    """run_binary with the interpreter flipping every shift's don't-care bits."""
    bld = Builder("t", 256, ("a", "out"))
    bld.store("out", 0, build(bld, bld.load("a", 0)))
    mem = {"a": bytearray(a), "out": bytearray(len(a))}
    run(bld.finish(), mem, flip_dont_care=True)
    return bytes(mem["out"])


@given(vec, st.sampled_from(["shl", "shr"]), st.integers(1, 7), st.integers(0, 0xFF))
def test_flip_dont_care_flips_exactly_the_bits_outside_care(a, opcode, n, care):
    plain = run_binary(lambda bl, x, y: getattr(bl, opcode)(x, n, 8), a)
    flipped = run_flipped(lambda bl, x: getattr(bl, opcode)(x, n, 8, care=care), a)
    assert flipped == bytes(v ^ (~care & 0xFF) for v in plain)
    # Without the flag `care` changes nothing.
    assert run_binary(lambda bl, x, y: getattr(bl, opcode)(x, n, 8, care=care), a) == plain


def test_flip_dont_care_catches_a_user_that_reads_a_bit_it_disowned():
    """The high nibble by shr 4, care 0x0F: an AND with 0x0F after it is
    unaffected by the flip, an AND with 0x1F reads bit 4 and is caught."""
    data = bytes(range(0, 256, 8))

    def high_nibble(mask):
        return lambda bl, x: bl.and_(bl.shr(x, 4, 8, care=0x0F), bl.const([mask] * 16, "m", ""))

    honest, greedy = high_nibble(0x0F), high_nibble(0x1F)
    assert run_flipped(honest, data) == run_binary(lambda bl, x, y: honest(bl, x), data) == bytes(v >> 4 for v in data)
    assert run_flipped(greedy, data) != run_binary(lambda bl, x, y: greedy(bl, x), data)


def test_shift_attributes_are_checked():
    bld = Builder("t", 128, ("a",))
    x = bld.load("a", 0)
    with pytest.raises(ValueError, match="byte masks describe byte shifts"):
        bld.shr(x, 4, 16, care=0x0F)
    with pytest.raises(ValueError, match="a byte mask is 0x00..0xff"):
        bld.shl(x, 4, 8, known=0x100)
    for n in (0, 8):
        with pytest.raises(ValueError, match="the amount must be 1..7"):
            bld.shl(x, n, 8)
    assert [s.opcode for s in bld.body] == ["load"]  # the refused calls emitted nothing
