"""The nibble-sliced uBlock kernel programs, abstract and lowered for ssse3,
avx2 and avx512, run in the IR interpreter against the Python reference;
the key form "folded_sboxes" they read; the transposition in and out."""

import random
import zlib
from collections import Counter
from functools import reduce
from operator import xor

import pytest

from gen.backends import SIMD_TARGETS, kernels
from gen.ir import Builder, Loop, Op, run
from gen.ir.opcodes import ABSTRACT
from gen.kernels import ublock_nibbleslice as nibbleslice
from gen.kernels.transpose import join_halves256, split_halves256
from gen.kernels.ublock_constants import DIRECTIONS
from gen.kernels.ublock_reference import (decrypt_block, encrypt_block, linear_layer, permute_bytes, round_keys,
                                          to_nibbles)
from gen.specs import ublock

from conftest import ctr_edge_counters

VARIANTS = list(ublock.VARIANTS)  # (block bits, key bits)
TARGETS = [t for s, t in kernels("ublock") if s == "nibbleslice"]
WIDTHS = (128, 256, 512)


def variant_id(variant):
    return "ublock{}_{}".format(*variant)


def seed_of(*parts):
    """A seed that is the same on every run and differs between test cases."""
    return zlib.crc32("/".join(map(str, parts)).encode())


def check_program(program, key_bits, seed, in_place=False, flip_dont_care=False):
    """Run `program` on random blocks under a random key; compare with the reference."""
    info = program.info
    block_bits, direction = info["block_bits"], info["direction"]
    block_bytes = block_bits // 8
    rng = random.Random(seed)
    key = rng.randbytes(key_bits // 8)
    rks = round_keys(block_bits, key_bits, key)
    data = rng.randbytes(info["batch_blocks"] * block_bytes)
    memory = {"rk": bytearray(nibbleslice.folded_tables(rks, direction)), "in": bytearray(data)}
    memory["out"] = memory["in"] if in_place else bytearray(len(data))
    run(program, memory, flip_dont_care)
    crypt = encrypt_block if direction == "encrypt" else decrypt_block
    expected = b"".join(crypt(block_bits, key_bits, key, data[i:i + block_bytes], rks)
                        for i in range(0, len(data), block_bytes))
    assert bytes(memory["out"]) == expected


def lowered(target, block_bits, key_bits, direction):
    t = SIMD_TARGETS[target]
    return t.lower(nibbleslice.program(t.bits, block_bits, ublock.VARIANTS[block_bits, key_bits], direction))


@pytest.mark.parametrize("direction", DIRECTIONS)
@pytest.mark.parametrize("bits", WIDTHS)
@pytest.mark.parametrize("variant", VARIANTS, ids=variant_id)
def test_abstract_program_matches_reference(variant, bits, direction):
    block_bits, key_bits = variant
    program = nibbleslice.program(bits, block_bits, ublock.VARIANTS[variant], direction)
    check_program(program, key_bits, seed_of(variant, bits, direction))


@pytest.mark.parametrize("direction", DIRECTIONS)
@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("variant", VARIANTS, ids=variant_id)
def test_lowered_program_matches_reference(variant, target, direction):
    program = lowered(target, *variant, direction)
    opcodes = {s.opcode for s in program.walk() if isinstance(s, Op)}
    assert not opcodes & (ABSTRACT | set(SIMD_TARGETS[target].lacks))
    check_program(program, variant[1], seed_of(variant, target, direction))


def check_counter_programs(pairs, batch, key_bits, counter, firsts, flip_dont_care=False):
    """CTR's counter form from V = `counter`: the pairs program on V || V + 256
    fills a group buffer; the batch program, at each first block j0 of
    `firsts`, must give the reference's E(V + j0 + j) (mod 2^block_bits)."""
    info = batch.info
    block_bits = info["block_bits"]
    block_bytes, modulus = block_bits // 8, 1 << block_bits
    rng = random.Random(counter)
    key = rng.randbytes(key_bits // 8)
    rks = round_keys(block_bits, key_bits, key)
    rk = bytearray(nibbleslice.folded_tables(rks, "encrypt"))
    form = b"".join(((counter + k) % modulus).to_bytes(block_bytes, "big") for k in (0, 256))
    group = bytearray(rng.randbytes(nibbleslice.group_bytes(batch.bits, block_bits)))  # garbage where unwritten
    run(pairs, {"rk": rk, "in": bytearray(form), "out": group}, flip_dont_care)
    group[nibbleslice.GROUP_LOW_BYTE] = counter & 0xff
    for first in firsts:
        group[nibbleslice.GROUP_FIRST_BLOCK] = first
        memory = {"rk": rk, "in": bytearray(group), "out": bytearray(info["batch_blocks"] * block_bytes)}
        run(batch, memory, flip_dont_care)
        expected = b"".join(encrypt_block(block_bits, key_bits, key,
                                          ((counter + first + j) % modulus).to_bytes(block_bytes, "big"), rks)
                            for j in range(info["batch_blocks"]))
        assert bytes(memory["out"]) == expected, (hex(counter), first)


def counters(block_bits, seed):
    return ctr_edge_counters(block_bits, random.Random(seed))


def group_firsts(bits):
    """The first and the last batch of a group, and one between."""
    batch = bits // 8
    return sorted({0, nibbleslice.GROUP_BLOCKS // 2, nibbleslice.GROUP_BLOCKS - batch})


@pytest.mark.parametrize("bits", WIDTHS)
@pytest.mark.parametrize("block_bits", (128, 256))
def test_counter_programs_match_reference(block_bits, bits):
    key_bits = max(k for n, k in VARIANTS if n == block_bits)
    rounds = ublock.VARIANTS[block_bits, key_bits]
    pairs = nibbleslice.counter_pairs_program(bits, block_bits, rounds)
    batch = nibbleslice.program(bits, block_bits, rounds, "encrypt", counters=True)
    assert (pairs.info["output"], batch.info["input"]) == ("counter group", "counter group")
    for counter in counters(block_bits, seed_of("counters", block_bits, bits)):
        check_counter_programs(pairs, batch, key_bits, counter, group_firsts(bits))


@pytest.mark.parametrize("block_bits", (128, 256))
def test_byte_shifts_are_honest_about_known_and_care(block_bits):
    """The nibble split (care: the low nibble, which the AND keeps), the
    carry (care: bit 0) and the join (known: nibbles below 16, which the
    interpreter checks): with every don't-care bit flipped the blocks are unchanged."""
    key_bits = max(k for n, k in VARIANTS if n == block_bits)
    rounds = ublock.VARIANTS[block_bits, key_bits]
    for direction in DIRECTIONS:
        program = nibbleslice.program(256, block_bits, rounds, direction)
        check_program(program, key_bits, seed_of("flip", block_bits, direction), flip_dont_care=True)
    pairs = nibbleslice.counter_pairs_program(256, block_bits, rounds)
    batch = nibbleslice.program(256, block_bits, rounds, "encrypt", counters=True)
    shifts = {(s.opcode, s.attrs.get("known"), s.attrs.get("care")) for s in batch.walk()
              if isinstance(s, Op) and s.opcode in ("shl", "shr")}
    assert shifts == {("shr", None, 0x0F), ("shr", None, 0x01), ("shl", 0x0F, None)}
    for counter in counters(block_bits, seed_of("flip counters", block_bits))[:3]:
        check_counter_programs(pairs, batch, key_bits, counter, group_firsts(256), flip_dont_care=True)


@pytest.mark.parametrize("target", TARGETS)
def test_lowered_counter_programs_match_reference(target):
    t = SIMD_TARGETS[target]
    rounds = ublock.VARIANTS[256, 256]
    pairs = t.lower(nibbleslice.counter_pairs_program(t.bits, 256, rounds))
    batch = t.lower(nibbleslice.program(t.bits, 256, rounds, "encrypt", counters=True))
    for counter in counters(256, seed_of("lowered counters", target)):
        check_counter_programs(pairs, batch, 256, counter, group_firsts(t.bits))


def test_counter_form_saves_the_first_round():
    """Per batch the counter form runs one round fewer in its loop, and its
    first round costs a fraction of one: two table lookups (the last byte's
    nibbles) instead of one per nibble, and no XORs beyond a few for the last
    byte's share and one per output it reaches."""
    block_bits, rounds = 256, ublock.VARIANTS[256, 256]
    batch = nibbleslice.program(256, block_bits, rounds, "encrypt", counters=True)
    loop = next(s for s in batch.body if isinstance(s, Loop))
    assert loop.count == rounds - 1
    before = Counter(s.opcode for s in batch.body[:batch.body.index(loop)] if isinstance(s, Op))
    assert before["bcast128"] == 2
    assert before["xor"] < block_bits // 4 // 2


def test_counter_program_is_encryption_only():
    with pytest.raises(ValueError, match="encrypts only"):
        nibbleslice.program(256, 128, 16, "decrypt", counters=True)


def test_counter_pairs_program_refuses_unknown_variants():
    with pytest.raises(ValueError, match="no uBlock variant"):
        nibbleslice.counter_pairs_program(256, 128, 17)


@pytest.mark.parametrize("bits", WIDTHS)
@pytest.mark.parametrize("block_bits", (128, 256))
def test_batch_order_is_a_permutation_of_the_batch(block_bits, bits):
    assert sorted(nibbleslice.batch_order(bits, block_bits)) == list(range(bits // 8))


@pytest.mark.parametrize("direction", DIRECTIONS)
def test_in_place(direction):
    """The ABI allows in == out: every load comes before the first store."""
    check_program(lowered("avx2", 256, 256, direction), 256, seed_of("in place", direction), in_place=True)


@pytest.mark.parametrize("direction", DIRECTIONS)
@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("block_bits", (128, 256))
def test_round_is_one_lookup_per_nibble_and_the_linear_layer(block_bits, target, direction):
    """What the module docstring promises: per round and nibble position one
    table load and one shuffle, three XORs (two VPTERNLOGDs where AVX-512 has
    them: gen/backends/avx512_gfni.shared_xor_as_ternary_logic), and nothing
    else (PL, PR and the rotations are renamings)."""
    key_bits = max(k for n, k in VARIANTS if n == block_bits)
    loop = next(s for s in lowered(target, block_bits, key_bits, direction).body if isinstance(s, Loop))
    counts = Counter(s.opcode for s in loop.body if isinstance(s, Op))
    nibbles = block_bits // nibbleslice.NIBBLE_BITS
    linear_layer = {"ternlog": 2 * nibbles} if target == "avx512" else {"xor": 3 * nibbles}
    assert counts == {"bcast128": nibbles, "lookup16": nibbles, **linear_layer}


@pytest.mark.parametrize("bits", WIDTHS)
@pytest.mark.parametrize("variant", VARIANTS, ids=variant_id)
def test_program_info(variant, bits):
    block_bits, _ = variant
    rounds = ublock.VARIANTS[variant]
    for direction in DIRECTIONS:
        info = nibbleslice.program(bits, block_bits, rounds, direction).info
        assert info == {"batch_blocks": bits // 8, "key_form": "folded_sboxes", "block_bits": block_bits,
                        "rounds": rounds, "direction": direction, "strategy": "nibbleslice", "input": "blocks"}


def test_rejects_what_is_not_a_variant():
    with pytest.raises(ValueError, match="no uBlock variant"):
        nibbleslice.program(256, 256, 16, "encrypt")
    with pytest.raises(ValueError, match="direction"):
        nibbleslice.program(256, 128, 16, "sideways")
    with pytest.raises(ValueError, match="direction"):
        nibbleslice.folded_tables([[0] * 32] * 17, "sideways")


# The layout of key_form "folded_sboxes": a 16-byte table per step and nibble position, from offset 0.
CONTRACT_TABLE_BYTES = 16


@pytest.mark.parametrize("direction", DIRECTIONS)
@pytest.mark.parametrize("variant", VARIANTS, ids=variant_id)
def test_folded_tables_layout(variant, direction):
    """Every table is the step's S-box (S^-1) with its round key folded in, and
    RK^r folded into the step next to it as c: the last encryption step adds
    c to its outputs, the first decryption step to its index."""
    block_bits, key_bits = variant
    rounds = ublock.VARIANTS[variant]
    nibbles = block_bits // 4
    rng = random.Random(seed_of("tables", variant, direction))
    rks = round_keys(block_bits, key_bits, rng.randbytes(key_bits // 8))
    form = nibbleslice.folded_tables(rks, direction)
    assert len(form) == rounds * nibbles * CONTRACT_TABLE_BYTES
    sources = nibbleslice.final_key_sources(block_bits)
    c = [reduce(xor, (rks[rounds][q] for q in range(nibbles) if sources[p] >> q & 1), 0) for p in range(nibbles)]
    inverse = ublock.inverse_sbox()
    for step in range(rounds):
        for p in range(nibbles):
            at = (step * nibbles + p) * CONTRACT_TABLE_BYTES
            assert nibbleslice.table_offset(block_bits, step, p) == at
            if direction == "encrypt":
                last = c[p] if step == rounds - 1 else 0
                expected = [ublock.SBOX[x ^ rks[step][p]] ^ last for x in range(16)]
            else:
                first = c[p] if step == 0 else 0
                expected = [inverse[x ^ first] ^ rks[rounds - 1 - step][p] for x in range(16)]
            assert list(form[at:at + CONTRACT_TABLE_BYTES]) == expected


@pytest.mark.parametrize("block_bits", (128, 256))
def test_final_key_share_is_what_the_linear_layer_and_permutations_turn_into_the_key(block_bits):
    """PL || PR(L(c)) = RK^r: adding c to the last S-box outputs adds RK^r to the block."""
    rng = random.Random(block_bits)
    for _ in range(20):
        key = [rng.randrange(16) for _ in range(block_bits // 4)]
        c = nibbleslice.final_key_share(block_bits, key)
        half = len(c) // 2
        y0, y1 = linear_layer(c[:half], c[half:])
        assert permute_bytes(y0, ublock.PL[block_bits]) + permute_bytes(y1, ublock.PR[block_bits]) == key


def slicing_program(bits, block_bits, regs_out):
    """Slice a batch and either store the nibble registers as they are
    (regs_out) or slice them back."""
    b = Builder("slicing", bits, ("in", "out"))
    nibbles = nibbleslice.slice_batch(b, block_bits)
    if regs_out:
        for p, value in enumerate(nibbles):
            b.store("out", p * bits // 8, value)
    else:
        nibbleslice.unslice_batch(b, block_bits, nibbles)
    return b.finish()


@pytest.mark.parametrize("bits", WIDTHS)
@pytest.mark.parametrize("block_bits", (128, 256))
def test_slicing_puts_nibble_p_of_every_block_in_register_p(block_bits, bits):
    rng = random.Random(seed_of("slice", block_bits, bits))
    batch, nibbles = bits // 8, block_bits // 4
    data = rng.randbytes(batch * block_bits // 8)
    memory = {"in": bytearray(data), "out": bytearray(nibbles * batch)}
    run(slicing_program(bits, block_bits, regs_out=True), memory)
    registers = [memory["out"][p * batch:(p + 1) * batch] for p in range(nibbles)]
    sliced_blocks = sorted(tuple(reg[lane] for reg in registers) for lane in range(batch))
    blocks = sorted(tuple(to_nibbles(data[i:i + block_bits // 8])) for i in range(0, len(data), block_bits // 8))
    assert sliced_blocks == blocks


@pytest.mark.parametrize("bits", WIDTHS)
@pytest.mark.parametrize("block_bits", (128, 256))
def test_unslicing_undoes_slicing(block_bits, bits):
    data = random.Random(seed_of("unslice", block_bits, bits)).randbytes(bits // 8 * block_bits // 8)
    memory = {"in": bytearray(data), "out": bytearray(len(data))}
    run(slicing_program(bits, block_bits, regs_out=False), memory)
    assert bytes(memory["out"]) == data


@pytest.mark.parametrize("bits", WIDTHS)
def test_split_and_join_halves256(bits):
    """split_halves256 puts the low 128-bit halves of x's then y's 256-bit
    elements in one register and the high halves in the other; join undoes it."""
    b = Builder("halves", bits, ("in", "out"))
    x, y = b.load("in", 0), b.load("in", bits // 8)
    lows, highs = split_halves256(b, x, y, "half")
    b.store("out", 0, lows)
    b.store("out", bits // 8, highs)
    x2, y2 = join_halves256(b, lows, highs, "joined")
    b.store("out", 2 * bits // 8, x2)
    b.store("out", 3 * bits // 8, y2)
    data = bytes(range(2 * bits // 8))
    memory = {"in": bytearray(data), "out": bytearray(2 * len(data))}
    run(b.finish(), memory)
    elements = [data[i:i + 32] for i in range(0, len(data), 32)]
    assert bytes(memory["out"][:len(data)]) == b"".join(e[:16] for e in elements) + b"".join(e[16:] for e in elements)
    assert bytes(memory["out"][len(data):]) == data
