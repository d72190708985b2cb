"""gen/ir/keystream.py: a block kernel with the message XORed into its stores
computes E(in) ^ src, before and after lowering, for both uBlock strategies
and SM4, in the IR interpreter; its counter form builds the counter blocks
V + j0 + k from the group buffer, for 16- and 32-byte blocks at every width
and on every target, across carries; and the transforms refuse what they
cannot do."""

import random

import pytest

from gen.backends import SIMD_TARGETS
from gen.ir import Builder, run
from gen.ir.program import Index
from gen.backends.c_emitter import function_body
from gen.backends.x86 import intrinsics
from gen.ir.keystream import CTR_GROUP_BLOCKS, counter_blocks, counter_group_bytes, whiten, xor_into_stores
from gen.kernels import sm4_byteslice, sm4_reference, sm4_rounds4, sm4_wordslice, ublock_nibbleslice, ublock_register
from gen.kernels.ublock_reference import encrypt_block, round_keys
from gen.specs import sm4, ublock
from test_sm4_kernels import round_key_bytes


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


def _group(v, block_bytes, first):
    """The group buffer: V, V + CTR_GROUP_BLOCKS (big-endian) and the byte j0."""
    top = 1 << (8 * block_bytes)
    buffer = v.to_bytes(block_bytes, "big") + ((v + CTR_GROUP_BLOCKS) % top).to_bytes(block_bytes, "big")
    buffer += bytes([first])
    assert len(buffer) == counter_group_bytes(block_bytes)
    return buffer


def _edge_counters(block_bytes, rng):
    """Counters whose low byte carries within a batch, whose carry runs through
    every byte, that wrap around, and one anywhere."""
    top = 1 << (8 * block_bytes)
    return [top - 1 - rng.randrange(8), top - 256 + rng.randrange(200, 256), (rng.randrange(top) | 0xFFFF) - 3,
            rng.randrange(top)]


@pytest.mark.parametrize("target", ["ssse3", "avx2", "avx512", "neon"])
@pytest.mark.parametrize("block_bytes", [16, 32])
def test_counter_blocks_are_the_counters(target, block_bytes):
    """A program that copies four registers from `in` to `out`, in counter
    form: out holds V + j0 + k for its blocks k, as Python's integers say,
    abstract and lowered, for every first block j0 the group allows."""
    t = SIMD_TARGETS[target]
    b = Builder("copy", t.bits, ("in", "out"))
    register = t.bits // 8
    for r in range(4):
        b.store("out", r * register, b.load("in", r * register))
    abstract = counter_blocks(b.finish(), block_bytes)
    assert abstract.params == ("in", "out") and abstract.info["input"] == "counter group"
    blocks = 4 * register // block_bytes
    top = 1 << (8 * block_bytes)
    rng = random.Random(f"{target}/{block_bytes}")
    for program in (abstract, t.lower(abstract)):
        for v in _edge_counters(block_bytes, rng):
            for first in (0, 1, rng.randrange(CTR_GROUP_BLOCKS - blocks), CTR_GROUP_BLOCKS - blocks):
                memory = {"in": bytearray(_group(v, block_bytes, first)), "out": bytearray(blocks * block_bytes)}
                run(program, memory)
                want = b"".join(((v + first + k) % top).to_bytes(block_bytes, "big") for k in range(blocks))
                assert bytes(memory["out"]) == want, (program.name, hex(v), first)


SM4_STRATEGIES = [(sm4_byteslice, "avx2_gfni"), (sm4_wordslice, "avx512_gfni"), (sm4_wordslice, "neon_aes"),
                  (sm4_byteslice, "ssse3_aesni"), (sm4_rounds4, "neon_sm4")]


@pytest.mark.parametrize("module, target", SM4_STRATEGIES, ids=lambda x: getattr(x, "__name__", x))
def test_sm4_counter_form_is_ctr(module, target):
    """An SM4 kernel's CTR form (counter blocks, then the message XORed into
    the stores), lowered, is CTR by the reference from the batch's first counter."""
    t = SIMD_TARGETS[target]
    index = 601
    plain = module.program(t.bits, decomposition_index=index)
    program = t.lower(xor_into_stores(counter_blocks(plain, sm4.BLOCK_BYTES)))
    assert program.params == ("rk", "in", "out", "src")
    rng = random.Random(target)
    key = rng.randbytes(16)
    rk = round_key_bytes(plain, sm4_reference.key_schedule(key), index)
    blocks = plain.info["batch_blocks"]
    for v in _edge_counters(16, rng)[:2]:
        first = rng.randrange(CTR_GROUP_BLOCKS - blocks + 1)
        message = rng.randbytes(16 * blocks)
        memory = {"rk": bytearray(rk), "in": bytearray(_group(v, 16, first)), "out": bytearray(len(message)),
                  "src": bytearray(message)}
        run(program, memory)
        keystream = b"".join(sm4_reference.encrypt_block(key, ((v + first + k) % (1 << 128)).to_bytes(16, "big"))
                             for k in range(blocks))
        assert bytes(memory["out"]) == bytes(a ^ b for a, b in zip(keystream, message)), hex(v)


@pytest.mark.parametrize("module, target", SM4_STRATEGIES, ids=lambda x: getattr(x, "__name__", x))
@pytest.mark.parametrize("in_place", [False, True], ids=["apart", "in_place"])
def test_sm4_whitened_form_is_xts_block(module, target, in_place):
    """The whitened form (XTS's block), lowered: out = E(in ^ t) ^ t block by
    block, with the decryption round keys D(in ^ t) ^ t, in place too."""
    t = SIMD_TARGETS[target]
    index = 601
    plain = module.program(t.bits, decomposition_index=index)
    program = t.lower(whiten(plain))
    assert program.params == ("rk", "in", "out", "src")
    rng = random.Random(f"whiten/{target}")
    key = rng.randbytes(16)
    schedule = sm4_reference.key_schedule(key)
    blocks = plain.info["batch_blocks"]
    data, tweaks = rng.randbytes(16 * blocks), rng.randbytes(16 * blocks)
    for rks, block in ((schedule, sm4_reference.encrypt_block), (schedule[::-1], sm4_reference.decrypt_block)):
        memory = {"rk": bytearray(round_key_bytes(plain, rks, index)), "in": bytearray(data), "src": bytearray(tweaks)}
        memory["out"] = memory["in"] if in_place else bytearray(len(data))
        run(program, memory)
        want = b"".join(bytes(a ^ b for a, b in zip(block(key, bytes(x ^ y for x, y in zip(data[i:i + 16], tweaks[i:i + 16]))),
                                                    tweaks[i:i + 16])) for i in range(0, len(data), 16))
        assert bytes(memory["out"]) == want


def test_whiten_refuses_what_it_cannot_rewrite():
    b = Builder("broadcasts", 128, ("in", "out"))
    b.store("out", 0, b.bcast128("in", 0))
    with pytest.raises(ValueError, match="whole registers"):
        whiten(b.finish())
    with pytest.raises(ValueError, match="already has"):
        whiten(whiten(sm4_byteslice.program(128)))


@pytest.mark.parametrize("target", ["ssse3", "avx512"])
@pytest.mark.parametrize("variant", [(128, 128), (256, 256)], ids=lambda v: f"ublock{v[0]}_{v[1]}")
def test_ublock_register_counter_form_is_ctr(target, variant):
    """The register method's CTR form, lowered, for 16- and 32-byte blocks."""
    block_bits, key_bits = variant
    t = SIMD_TARGETS[target]
    plain = ublock_register.program(t.bits, block_bits, ublock.VARIANTS[variant], "encrypt")
    program = t.lower(xor_into_stores(counter_blocks(plain, block_bits // 8)))
    rng = random.Random(f"{target}/{variant}")
    key = rng.randbytes(key_bits // 8)
    rks = round_keys(block_bits, key_bits, key)
    bb, top = block_bits // 8, 1 << block_bits
    blocks = plain.info["batch_blocks"]
    for v in _edge_counters(bb, rng)[:2]:
        first = rng.randrange(CTR_GROUP_BLOCKS - blocks + 1)
        message = rng.randbytes(bb * blocks)
        memory = {"rk": bytearray(_key_form(plain, rks)), "in": bytearray(_group(v, bb, first)),
                  "out": bytearray(len(message)), "src": bytearray(message)}
        run(program, memory)
        keystream = b"".join(encrypt_block(block_bits, key_bits, key, ((v + first + k) % top).to_bytes(bb, "big"), rks)
                             for k in range(blocks))
        assert bytes(memory["out"]) == bytes(a ^ b for a, b in zip(keystream, message)), hex(v)


def test_counter_blocks_refuse_what_they_cannot_build():
    b = Builder("looped", 128, ("in", "out"))
    with b.loop("i", 2):
        b.store("out", Index(0, (("i", 16),)), b.load("in", Index(0, (("i", 16),))))
    with pytest.raises(ValueError, match="constant offsets"):
        counter_blocks(b.finish(), 16)
    b = Builder("plain", 128, ("in", "out"))
    b.store("out", 0, b.load("in", 0))
    with pytest.raises(ValueError, match="16- and 32-byte"):
        counter_blocks(b.finish(), 8)
    with pytest.raises(ValueError, match="no parameter 'blocks'"):
        counter_blocks(b.finish(), 16, source="blocks")


def test_xor_into_loads_takes_src_into_loads_only():
    """out = E(in ^ src): every load from `in` XORed with `src` at its offset,
    the stores untouched (unlike whiten), a parameter added once."""
    from gen.ir.keystream import xor_into_loads
    b = Builder("copy", 128, ("in", "out"))
    b.store("out", 16, b.xor(b.load("in", 16, "x"), b.load("in", 0, "y")))
    program = xor_into_loads(b.finish())
    assert program.params == ("in", "out", "src")
    memory = {"in": bytearray(range(32)), "src": bytearray(range(100, 132)), "out": bytearray(32)}
    run(program, memory)
    want = bytes((16 + i) ^ (116 + i) ^ i ^ (100 + i) for i in range(16))
    assert bytes(memory["out"]) == bytes(16) + want
    with pytest.raises(ValueError, match="already has"):
        xor_into_loads(program)
    with pytest.raises(ValueError, match="no parameter"):
        xor_into_loads(b.finish(), loads_from="msg")
