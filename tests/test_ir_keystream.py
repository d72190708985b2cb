"""gen/ir/keystream.py: a block kernel with the message XORed into its stores
computes E(in) ^ src, before and after lowering, for both uBlock strategies
and SM4, in the IR interpreter; and the transform refuses what it cannot do."""

import random

import pytest

from gen.backends import SIMD_TARGETS
from gen.ir import Builder, run
from gen.backends.c_emitter import function_body
from gen.backends.x86 import intrinsics
from gen.ir.keystream import xor_into_stores
from gen.kernels import ublock_nibbleslice, ublock_register
from gen.kernels.ublock_reference import encrypt_block, round_keys
from gen.specs import ublock


def _key_form(program, rks):
    """The `rk` buffer of either strategy for one key (every slot the same)."""
    if program.info["key_form"] == "folded_sboxes":
        return ublock_nibbleslice.folded_tables(rks, "encrypt")
    slots = program.info["batch_blocks"]
    return ublock_register.key_material([rks] * slots, program.bits, program.info["block_bits"], "encrypt")


@pytest.mark.parametrize("strategy", [ublock_nibbleslice, ublock_register], ids=["nibbleslice", "register"])
@pytest.mark.parametrize("target", ["ssse3", "avx2"])
@pytest.mark.parametrize("variant", [(128, 128), (256, 256)], ids=lambda v: f"ublock{v[0]}_{v[1]}")
@pytest.mark.parametrize("in_place", [False, True], ids=["apart", "src_is_out"])
def test_fused_kernel_is_keystream_xor_message(strategy, target, variant, in_place):
    block_bits, key_bits = variant
    t = SIMD_TARGETS[target]
    plain = strategy.program(t.bits, block_bits, ublock.VARIANTS[variant], "encrypt")
    fused = t.lower(xor_into_stores(plain))
    assert fused.params == plain.params + ("src",)
    rng = random.Random(f"{strategy.__name__}/{target}/{variant}/{in_place}")
    key = rng.randbytes(key_bits // 8)
    rks = round_keys(block_bits, key_bits, key)
    bb = block_bits // 8
    counters = rng.randbytes(fused.info["batch_blocks"] * bb)
    message = rng.randbytes(len(counters))
    memory = {"rk": bytearray(_key_form(plain, rks)), "in": bytearray(counters),
              "src": bytearray(message)}
    memory["out"] = memory["src"] if in_place else bytearray(len(message))
    run(fused, memory)
    keystream = b"".join(encrypt_block(block_bits, key_bits, key, counters[i:i + bb], rks)
                         for i in range(0, len(counters), bb))
    assert bytes(memory["out"]) == bytes(a ^ b for a, b in zip(keystream, message))


def test_only_stores_to_out_take_the_message():
    b = Builder("two_outputs", 128, ("in", "out", "log"))
    v = b.load("in", 0)
    b.store("out", 0, v)
    b.store("log", 0, v)
    memory = {"in": bytearray(range(16)), "out": bytearray(16), "log": bytearray(16), "src": bytearray([0xff] * 16)}
    run(xor_into_stores(b.finish()), memory)
    assert bytes(memory["out"]) == bytes(x ^ 0xff for x in range(16))
    assert bytes(memory["log"]) == bytes(range(16))


def test_fresh_names_do_not_clash():
    b = Builder("named", 128, ("in", "out"))
    b.store("out", 0, b.xor(b.load("in", 0, "msg"), b.load("in", 16, "ct"), "msg"))
    names = [s.result.name for s in xor_into_stores(b.finish()).walk() if getattr(s, "result", None) is not None]
    assert len(names) == len(set(names))


def test_refuses_a_program_it_cannot_rewrite():
    b = Builder("has_src", 128, ("in", "out", "src"))
    b.store("out", 0, b.load("in", 0))
    with pytest.raises(ValueError, match="already has a parameter 'src'"):
        xor_into_stores(b.finish())
    b = Builder("no_out", 128, ("in", "dst"))
    b.store("dst", 0, b.load("in", 0))
    with pytest.raises(ValueError, match="no parameter 'out'"):
        xor_into_stores(b.finish())


def test_rows_take_the_message_of_their_own_row():
    """An array-of-pointers output (one pointer per row, as the ZUC kernels
    write each lane): each store's message comes from the same row of `src`,
    and the emitted C addresses param[row] + offset."""
    b = Builder("rows", 128, ("in", "out"))
    for row in range(3):
        b.store("out", 16, b.load("in", 16 * row), row=row)
    fused = xor_into_stores(b.finish())
    messages = [bytes([0x11 * (row + 1)] * 32) for row in range(3)]
    memory = {"in": bytearray(range(48)), "out": [bytearray(32) for _ in range(3)],
              "src": [bytearray(m) for m in messages]}
    run(fused, memory)
    for row in range(3):
        assert bytes(memory["out"][row][:16]) == bytes(16)
        assert bytes(memory["out"][row][16:]) == bytes(x ^ messages[row][0] for x in range(16 * row, 16 * row + 16))
    lines = "\n".join(function_body(fused, intrinsics))
    assert "_mm_loadu_si128((const void *)(src[2] + 16))" in lines
    assert "_mm_storeu_si128((void *)(out[2] + 16)" in lines
