"""gen/backends/x86/ops: the x86 backend's own ops, which it registers with the
IR interpreter, against independent models (linalg's instruction models,
Python integers, the instructions' definitions)."""

from hypothesis import given, settings, strategies as st

from gen.backends.x86 import ops as x86_ops
from gen.ir.opcodes import NEUTRAL
from gen.ir.semantics import SHIFT_ROWS, aes_sbox_table, private_ops
from gen.linalg import aesenclast, gf2p8affineinvqb, gf2p8affineqb
from test_ir_interpreter import run_ops

X86_OPS = {"gf2p8affine", "gf2p8affineinv", "aesenclast", "ternlog", "blendv", "permute2b",
           "rotl_native", "shld_native"}

vec = st.binary(min_size=32, max_size=32)
vec512 = st.binary(min_size=64, max_size=64)


def test_every_x86_op_is_registered_with_a_doc_and_none_is_an_ir_op():
    registered = private_ops()
    assert X86_OPS <= set(registered)
    assert all(registered[name].doc for name in X86_OPS)
    assert not X86_OPS & NEUTRAL


@settings(max_examples=30)
@given(vec, st.integers(0, 2**64 - 1), st.integers(0, 255))
def test_gfni_ops_match_linalg_models(a, qword, imm):
    def build(invert):
        def f(bl, x):
            m = bl.const(qword.to_bytes(8, "little") * 2, "m", "test matrix")
            return bl._emit("gf2p8affineinv" if invert else "gf2p8affine", (x, m), "g", imm=imm)
        return f
    assert run_ops(256, [a], build(False)) == gf2p8affineqb(a, qword, imm)
    assert run_ops(256, [a], build(True)) == gf2p8affineinvqb(a, qword, imm)


@settings(max_examples=30)
@given(vec, st.binary(min_size=16, max_size=16))
def test_aesenclast_matches_linalg_model(a, key):
    out = run_ops(256, [a], lambda bl, x: bl._emit("aesenclast", (x, bl.const(key, "k", "key")), "e"))
    sbox = aes_sbox_table()
    assert out == aesenclast(a[:16], key, sbox, SHIFT_ROWS) + aesenclast(a[16:], key, sbox, SHIFT_ROWS)


@given(vec, vec, vec, st.integers(0, 255))
def test_ternlog_looks_each_bit_up_in_the_truth_table(a, b, c, imm):
    out = run_ops(256, [a, b, c], lambda bl, x, y, z: bl._emit("ternlog", (x, y, z), "t", imm=imm))
    for k in range(32):
        for bit in range(8):
            row = (a[k] >> bit & 1) << 2 | (b[k] >> bit & 1) << 1 | (c[k] >> bit & 1)
            assert out[k] >> bit & 1 == imm >> row & 1


@given(vec, vec, vec)
def test_blendv_takes_b_where_the_mask_byte_is_negative(a, b, mask):
    out = run_ops(256, [a, b, mask], lambda bl, x, y, m: bl._emit("blendv", (x, y, m), "bl"))
    assert out == bytes(y if m & 0x80 else x for x, y, m in zip(a, b, mask))


@given(vec512, vec512, vec512)
def test_permute2b_is_vpermi2b(index, a, b):
    """VPERMI2B: byte k is byte index[k] mod 128 of a's 64 bytes followed by b's."""
    out = run_ops(512, [index, a, b], x86_ops.permute2b)
    assert out == bytes((a + b)[i % 128] for i in index)


@given(vec512, vec512, st.sampled_from([16, 32, 64]), st.data())
def test_native_rotations_and_double_shifts_are_the_ir_ops(a, b, lane, data):
    """rotl_native and shld_native are rotl and shld done by one instruction:
    the same bits as the IR's ops, and as Python integers."""
    n = data.draw(st.integers(1, lane - 1))
    size, mask = lane // 8, (1 << lane) - 1
    rot = run_ops(512, [a], lambda bl, x: bl._emit("rotl_native", (x,), "r", n=n, lane=lane))
    shld = run_ops(512, [a, b], lambda bl, x, y: bl._emit("shld_native", (x, y), "s", n=n, lane=lane))
    assert rot == run_ops(512, [a], lambda bl, x: bl.rotl(x, n, lane))
    assert shld == run_ops(512, [a, b], lambda bl, x, y: bl.shld(x, y, n, lane))
    for i in range(0, 64, size):
        x, y = int.from_bytes(a[i:i + size], "little"), int.from_bytes(b[i:i + size], "little")
        assert int.from_bytes(rot[i:i + size], "little") == ((x << n) | (x >> (lane - n))) & mask
        assert int.from_bytes(shld[i:i + size], "little") == ((x << n) | (y >> (lane - n))) & mask

