"""The ZUC lanes kernel programs, abstract and lowered for every target, run
in the IR interpreter against the Python reference's kernel ABI, and what
the round's forms (gen/choices.py zuc.<form>) cost on each target."""

import itertools
import random
import struct
import zlib

import numpy as np
import pytest

from gen import choices, cli
from gen.backends import SIMD_TARGETS, kernels
from gen.backends.target import NoLowering
from gen.backends.x86.avx512_gfni import bitwise_pair_as_ternary_logic
from gen import explore
from gen.emit import zuc_kernel_files
from gen.ir import Builder, Loop, Op, ct_check, run
from gen.ir.opcodes import ABSTRACT
from gen.kernels import zuc_lanes, zuc_reference
from gen.specs import zuc

from compiled_kernels import run_compiled, why_not_runnable

TARGETS = list(zuc_kernel_files.TARGET_ORDER)


def random_lanes(lanes, variant, seed):
    rng = random.Random(seed)
    key_bytes = zuc.KEY_BYTES[variant]
    keys = [bytes(rng.randrange(256) for _ in range(key_bytes)) for _ in range(lanes)]
    if variant != 256:
        ivs = [bytes(rng.randrange(256) for _ in range(16)) for _ in range(lanes)]
    else:
        ivs = [bytes(rng.randrange(256) for _ in range(17)) + bytes(rng.randrange(64) for _ in range(8))
               for _ in range(lanes)]
    return zuc_reference.lanes_state(variant, keys, ivs)


def words(memory):
    return list(struct.unpack(f"<{len(memory) // 4}I", memory))


def check_programs(init, keystream, variant, seed, blocks=2, keystream_xor=None, word=None, flip_dont_care=False,
                   init_more=None):
    """(init_more, NEA6's extra initialisation rounds, then) init, then
    `blocks` keystream blocks into each lane's own row; with
    keystream_xor, one more block XORed into random per-lane messages; with
    `word`, three single rounds (keystream_word) and a block after them, which
    finds the LFSR where the rounds left it.  `flip_dont_care`: run with the
    shifts' don't-care bits flipped."""
    lanes = keystream.info["lanes"]
    state = random_lanes(lanes, variant, seed)
    memory = {"state": bytearray(struct.pack(f"<{len(state)}I", *state)),
              "out": [bytearray(64) for _ in range(lanes)]}
    if init_more is not None:
        run(init_more, memory, flip_dont_care)
        zuc_reference.init_more_rounds(state, lanes)
        assert words(memory["state"]) == state
    run(init, memory, flip_dont_care)
    zuc_reference.init_rounds(state, lanes)
    assert words(memory["state"]) == state
    for _ in range(blocks):
        run(keystream, memory, flip_dont_care)
        assert b"".join(memory["out"]) == zuc_reference.keystream_block(state, lanes)
        assert words(memory["state"]) == state
    if keystream_xor is not None:
        rng = random.Random(seed)
        messages = [rng.randbytes(64) for _ in range(lanes)]
        memory["src"] = [bytearray(m) for m in messages]
        run(keystream_xor, memory)
        ks = zuc_reference.keystream_block(state, lanes)
        assert [bytes(row) for row in memory["out"]] == [
            bytes(a ^ b for a, b in zip(ks[64 * j:64 * j + 64], messages[j])) for j in range(lanes)]
        assert [bytes(row) for row in memory["src"]] == messages
        assert words(memory["state"]) == state
    if word is not None:
        memory["out"] = bytearray(4 * lanes)
        for _ in range(3):
            run(word, memory, flip_dont_care)
            assert words(memory["out"]) == zuc_reference.keystream_word(state, lanes)
            assert words(memory["state"]) == state
        memory["out"] = [bytearray(64) for _ in range(lanes)]
        run(keystream, memory, flip_dont_care)
        assert b"".join(memory["out"]) == zuc_reference.keystream_block(state, lanes)


@pytest.mark.parametrize("bits", [128, 256, 512])
@pytest.mark.parametrize("s0_form", zuc_lanes.S0_FORMS)
@pytest.mark.parametrize("add_form", zuc_lanes.ADD_FORMS)
def test_abstract_programs_match_reference(bits, s0_form, add_form):
    options = dict(groups=1, s0_form=s0_form, add_form=add_form, isomorphism=bits % 8)
    check_programs(zuc_lanes.init_program(bits, **options), zuc_lanes.keystream_program(bits, **options),
                   variant=256, seed=bits, word=zuc_lanes.word_program(bits, **options))


@pytest.mark.parametrize("s0_form", ["folded", "rotate"])
def test_s0_reads_only_the_bits_its_byte_shifts_care_about(s0_form):
    """S0's nibble split shifts bytes with care = the low nibble: with the
    interpreter flipping every other bit of those shifts the stream is unchanged
    (and the `known` nibbles shifted back up hold: the interpreter checks them)."""
    options = dict(groups=1, s0_form=s0_form, add_form="fold", isomorphism=0)
    check_programs(zuc_lanes.init_program(256, **options), zuc_lanes.keystream_program(256, **options),
                   variant=128, seed=7, blocks=1, flip_dont_care=True)


@pytest.mark.parametrize("rot16_form", zuc_lanes.ROT16_FORMS)
@pytest.mark.parametrize("swap_form", zuc_lanes.SWAP_FORMS)
def test_rotation_and_exchange_forms_match_reference(rot16_form, swap_form):
    options = dict(groups=1, rot16_form=rot16_form, swap_form=swap_form)
    check_programs(zuc_lanes.init_program(256, **options), zuc_lanes.keystream_program(256, **options),
                   variant=128, seed=len(rot16_form + swap_form))


@pytest.mark.parametrize("bits", [128, 256, 512])
@pytest.mark.parametrize("groups", [1, 2])
def test_lfsr_in_memory_matches_reference(bits, groups):
    """The LFSR kept in the state array: every access to a cell's row is
    volatile, each round loads the 11 cells a round reads (s0, s2, s4, s5, s7,
    s9, s10, s11, s13, s14, s15) once, except s15 after the first round (the
    previous round's new cell, still in its register), and stores its new
    cell; R1 and R2 are loaded once and stored once, plainly."""
    program = zuc_lanes.keystream_program(bits, groups, lfsr_in_memory=True, s0_form="table", add_form="min")
    first_fsm_byte = 16 * (bits // 8) * groups  # row 16 (R1) of group 0
    cell_ops, fsm_ops = [], []
    for s in program.walk():
        if isinstance(s, Op) and s.opcode in ("load", "store") and s.attrs["param"] == "state":
            (cell_ops if s.attrs["index"].evaluate({}) < first_fsm_byte else fsm_ops).append(s)
    rounds = zuc_lanes.ROUNDS_PER_BLOCK * groups
    assert all(s.attrs.get("volatile") for s in cell_ops)
    assert sum(s.opcode == "load" for s in cell_ops) == 11 * rounds - (zuc_lanes.ROUNDS_PER_BLOCK - 1) * groups
    assert sum(s.opcode == "store" for s in cell_ops) == rounds
    assert len(fsm_ops) == 4 * groups and not any(s.attrs.get("volatile") for s in fsm_ops)
    check_programs(zuc_lanes.init_program(bits, groups), program, variant=256, seed=bits + groups, blocks=2)


@pytest.mark.parametrize("bits", [128, 256, 512])
@pytest.mark.parametrize("groups", [1, 2])
def test_rolled_block_matches_reference(bits, groups):
    """The rolled block: one loop of 16 iterations, each loading the 10 cells a
    round reads from the ring (s15 is the previous round's new cell, in a
    variable) and storing the new cell, all volatile, and its Z word to a row
    of its own; the state's 16 cells are copied in before and out after."""
    program = zuc_lanes.keystream_program(bits, groups, rolled=True)
    loops = [s for s in program.body if isinstance(s, Loop)]
    assert len(loops) == 1 and loops[0].count == zuc_lanes.ROUNDS_PER_BLOCK
    in_loop = [s for s in loops[0].body if isinstance(s, Op) and s.opcode in ("load", "store")]
    ring = [s for s in in_loop if s.attrs["param"] == zuc_lanes.RING]
    assert all(s.attrs.get("volatile") for s in ring)
    assert sum(s.opcode == "load" for s in ring) == 10 * groups and sum(s.opcode == "store" for s in ring) == groups
    assert [s.opcode for s in in_loop if s.attrs["param"] == zuc_lanes.Z_ROWS] == ["store"] * groups
    assert set(program.scratch) == {zuc_lanes.RING, zuc_lanes.Z_ROWS}
    check_programs(zuc_lanes.init_program(bits, groups), program, variant=256, seed=3 * bits + groups, blocks=2)


def test_rolled_and_lfsr_in_memory_are_exclusive():
    with pytest.raises(ValueError, match="rolled"):
        zuc_lanes.keystream_program(256, rolled=True, lfsr_in_memory=True)


def test_unknown_form_is_rejected():
    with pytest.raises(ValueError, match="swap_form"):
        zuc_lanes.keystream_program(128, swap_form="blend")


@pytest.mark.parametrize("strategy, target", kernels("zuc"))
def test_lowered_programs_match_reference(strategy, target):
    """What `gen` emits: the chosen S0 form and isomorphism, the kernel's groups."""
    t = SIMD_TARGETS[target]
    programs = zuc_kernel_files.lowered_programs(t, strategy, choices.load())
    assert programs["keystream"].info["lanes"] == t.bits // 32 * {"lanes": 1, "lanesx2": 2}[strategy]
    for program in programs.values():
        assert not {s.opcode for s in program.walk() if isinstance(s, Op)} & ABSTRACT
    seed = zlib.crc32((strategy + target).encode())
    check_programs(programs["init"], programs["keystream"], variant=128, seed=seed, blocks=1,
                   keystream_xor=programs["keystream_xor"], word=programs["keystream_word"])
    check_programs(programs["init"], programs["keystream"], variant=256, seed=seed + 1, blocks=1)
    check_programs(programs["init"], programs["keystream"], variant=zuc.NEA6, seed=seed + 2, blocks=1,
                   init_more=programs["init_more"])


@pytest.mark.parametrize("bits", [128, 256, 512])
@pytest.mark.parametrize("groups", [1, 2])
def test_init_more_rounds_is_nea6s_first_rounds(bits, groups):
    """NEA6's 48 initialisation rounds as the kernels run them, init_more
    then init: the first keystream block is the one-stream reference's, and
    init_more alone moves the LFSR on by its 16 rounds, one loop of them."""
    init_more = zuc_lanes.init_more_program(bits, groups)
    loops = [s for s in init_more.body if isinstance(s, Loop)]
    assert [loop.count for loop in loops] == [zuc_reference.INIT_MORE_ROUNDS // zuc_lanes.ROUNDS_PER_BLOCK]
    keystream = zuc_lanes.keystream_program(bits, groups)
    check_programs(zuc_lanes.init_program(bits, groups), keystream, variant=zuc.NEA6, seed=bits * groups,
                   blocks=1, init_more=init_more)
    lanes = keystream.info["lanes"]
    rng = random.Random(bits + groups)
    keys = [rng.randbytes(32) for _ in range(lanes)]
    ivs = [rng.randbytes(16) for _ in range(lanes)]
    state = zuc_reference.lanes_state(zuc.NEA6, keys, ivs)
    memory = {"state": bytearray(struct.pack(f"<{len(state)}I", *state)), "out": [bytearray(64) for _ in range(lanes)]}
    for program in (init_more, zuc_lanes.init_program(bits, groups), keystream):
        run(program, memory)
    assert [bytes(row) for row in memory["out"]] == [
        b"".join(w.to_bytes(4, "big") for w in zuc_reference.keystream_words(zuc.NEA6, k, v, 16))
        for k, v in zip(keys, ivs)]



@pytest.mark.parametrize("strategy, target", kernels("zuc"))
def test_every_kernel_file_carries_its_word_round_constant_time(strategy, target):
    """The one-round program and NEA6's extra initialisation rounds are among
    the functions gen writes for the kernel (so ct-check and the assembly
    twins see them) and pass the constant-time check."""
    t = SIMD_TARGETS[target]
    emitted = {p.name: p for p in cli.emitted_programs("zuc", strategy, t, choices.load())}
    word, init_more = emitted[f"zuc_word{t.bits}"], emitted[f"zuc_init_more{t.bits}"]
    assert word.params == ("state", "out") and not ct_check.check(word)
    assert init_more.params == ("state",) and not ct_check.check(init_more)

@pytest.mark.parametrize("target", ["avx2_gfni", "ssse3_aesni"])
@pytest.mark.parametrize("isomorphism", [0, 3, 7])
def test_every_isomorphism_and_s0_form_lowers_correctly(target, isomorphism):
    t = SIMD_TARGETS[target]
    names = list(zuc_lanes.FORMS)
    for combo in itertools.product(*zuc_lanes.FORMS.values()):
        forms = dict(zip(names, combo))
        try:
            init = t.lower(zuc_lanes.init_program(t.bits, 1, isomorphism, **forms))
            keystream = t.lower(zuc_lanes.keystream_program(t.bits, 1, isomorphism, **forms))
        except NoLowering:
            continue  # an instruction this target lacks (SSSE3 has no PMINUD, only AVX-512 a byte table)
        check_programs(init, keystream, variant=256, seed=isomorphism, blocks=1)


def opcodes(program):
    return [s.opcode for s in program.walk() if isinstance(s, Op)]


def test_s1_is_two_gfni_instructions_and_the_rotation_one_more():
    t = SIMD_TARGETS["avx512_gfni"]
    folded = opcodes(t.lower(zuc_lanes.word_program(512, s0_form="folded", add_form="min")))
    rotate = opcodes(t.lower(zuc_lanes.word_program(512, s0_form="rotate", add_form="min")))
    assert folded.count("gf2p8affine") == 1 and folded.count("gf2p8affineinv") == 1
    assert rotate.count("gf2p8affine") == 2  # S0's rotation by 5 as one GFNI matrix


def test_s1_on_aesni_is_the_papers_form():
    ops = opcodes(SIMD_TARGETS["ssse3_aesni"].lower(zuc_lanes.word_program(128, s0_form="folded", add_form="fold")))
    assert ops.count("aesenclast") == 1
    # S0: 3 lookups; S1: 2 + inverse ShiftRows + 2; L1, L2 and the swaps: byte rotations.
    assert ops.count("lookup16") >= 8


def block_ops(target, **forms):
    """Operations of one group's lowered 16-round keystream block (explore's static count)."""
    t = SIMD_TARGETS[target]
    return sum(explore.counts(t.lower(zuc_lanes.keystream_program(t.bits, 1, **forms)))[0].values())


def test_s0_table_form_on_avx512_only():
    """VPERMI2B looks a byte up in 128 at 512 bits: the 256-byte table is two
    lookups and a blend on the index's top bit.  Narrower targets have no rule."""
    t = SIMD_TARGETS["avx512_gfni"]
    ops = opcodes(t.lower(zuc_lanes.word_program(512, s0_form="table", add_form="min")))
    assert ops.count("permute2b") == 2 and ops.count("blendv") == 1 and "sbox8" not in ops
    assert block_ops("avx512_gfni", s0_form="table", add_form="min") < block_ops("avx512_gfni", add_form="min")
    for name in ("avx2_gfni", "avx2_vaes", "ssse3_aesni", "neon_aes"):
        with pytest.raises(NoLowering, match="sbox8"):
            block_ops(name, s0_form="table")


def test_minimum_addition_needs_sse41():
    with pytest.raises(NoLowering):
        block_ops("ssse3_aesni", add_form="min")
    assert block_ops("avx2_vaes", add_form="min") < block_ops("avx2_vaes", add_form="fold")


def test_exchange_and_rotation_forms_follow_the_cost_of_a_select():
    """A select is one instruction with AVX2 (VPBLENDVB) and AVX-512 (VPTERNLOGD),
    three with SSSE3: there the delta swap and the byte rotation cost less."""
    assert block_ops("ssse3_aesni", swap_form="xor", rot16_form="rotate") < block_ops("ssse3_aesni")
    for target in ("avx2_gfni", "avx512_gfni"):
        assert block_ops(target, add_form="min") < block_ops(target, add_form="min", swap_form="xor")
        assert block_ops(target, add_form="min") <= block_ops(target, add_form="min", rot16_form="rotate")


def test_folded_s0_is_cheaper_than_a_separate_rotation_everywhere():
    for target in TARGETS:
        assert block_ops(target, s0_form="folded", add_form="fold") < block_ops(target, s0_form="rotate", add_form="fold")


def test_double_shifts_are_native_on_avx512():
    ops = opcodes(SIMD_TARGETS["avx512_gfni"].lower(zuc_lanes.word_program(512, s0_form="folded", add_form="min")))
    assert "shld_native" in ops and "shld" not in ops


@pytest.mark.parametrize("inner", ["xor", "and", "or", "andnot"])
@pytest.mark.parametrize("outer", ["xor", "and", "or", "andnot"])
def test_bitwise_pairs_fuse_into_one_correct_ternary_logic(inner, outer):
    b = Builder("pair", 512, ("in", "out"))
    x, y, z = (b.load("in", 64 * i) for i in range(3))
    first = b._emit(inner, (x, y), "g")
    b.store("out", 0, b._emit(outer, (first, z), "f"))
    program = b.finish()
    lowered = SIMD_TARGETS["avx512_gfni"].lower(program)
    assert "ternlog" in opcodes(lowered) and inner not in opcodes(lowered) or inner == outer == "andnot"
    data = np.random.default_rng(1).integers(0, 256, 192, dtype=np.uint8).tobytes()
    expect = run(program, {"in": bytearray(data), "out": bytearray(64)})["out"]
    assert run(lowered, {"in": bytearray(data), "out": bytearray(64)})["out"] == expect


@pytest.mark.parametrize("target", TARGETS)
def test_select_lowers_to_the_same_bits(target):
    t = SIMD_TARGETS[target]
    b = Builder("select", t.bits, ("in", "out"))
    n = t.bits // 8
    a, c = b.load("in", 0), b.load("in", n)
    mask = b.const(bytes([0, 0xFF] * 8), "odd", "odd bytes")
    b.store("out", 0, b.select(mask, a, c))
    program = b.finish()
    data = np.random.default_rng(2).integers(0, 256, 2 * n, dtype=np.uint8).tobytes()
    got = run(t.lower(program), {"in": bytearray(data), "out": bytearray(n)})["out"]
    assert bytes(got) == bytes(x if i % 2 == 0 else y for i, (x, y) in enumerate(zip(data[:n], data[n:])))


def test_sbox8_lowered_by_vpermi2b_is_the_table_for_every_byte():
    t = SIMD_TARGETS["avx512_gfni"]
    table = bytes(zuc.s0_table())
    b = Builder("s0", 512, ("in", "out"))
    for block in range(4):
        b.store("out", 64 * block, b.sbox8(b.load("in", 64 * block), table, "s0"))
    lowered = t.lower(b.finish())
    assert "sbox8" not in opcodes(lowered)
    memory = {"in": bytearray(range(256)), "out": bytearray(256)}
    assert bytes(run(lowered, memory)["out"]) == table


def mod_p_cell(value):
    """A value mod 2^31 - 1 as the LFSR holds it: in [1, p], p standing for 0."""
    return value % zuc_lanes.MODULUS or zuc_lanes.MODULUS


@pytest.mark.parametrize("target, add_form", [("ssse3_aesni", "fold"), ("avx2_gfni", "fold"), ("avx2_gfni", "min"),
                                              ("avx512_gfni", "min")])
def test_feedback_sum_is_exact_at_the_edges_of_the_field(target, add_form):
    """sum_mod(terms, anchor) = anchor + sum(terms) mod p in [1, p], for terms in
    [0, p] and a nonzero anchor cell, at the values where the reductions turn:
    sums of exactly p and 2p, t just under and over 2^31, the largest terms."""
    t = SIMD_TARGETS[target]
    p, lanes = zuc_lanes.MODULUS, t.bits // 32
    edges = [0, 1, 2, p // 2, p // 2 + 1, p - 2, p - 1, p]
    rng = random.Random(add_form)
    cases = [(a, b, c, d, anchor) for a in edges for b in edges for c in (0, p - 1, p) for d in (0, 1, p)
             for anchor in (1, p - 1, p)]
    cases += [tuple(rng.randrange(p + 1) for _ in range(4)) + (rng.randrange(1, p + 1),) for _ in range(200)]
    cases += [(p, p, p, p, p), (0, 0, 0, 0, p), (p - 1, 1, 0, 0, p)]
    cases += [cases[-1]] * (-len(cases) % lanes)  # whole registers
    b = Builder("sum_mod", t.bits, ("in", "out"))
    rnd = zuc_lanes.LaneRound(b, isomorphism=0, **{**zuc_lanes.DEFAULT_FORMS, "add_form": add_form})
    words = [b.load("in", i * t.bits // 8) for i in range(5)]
    b.store("out", 0, rnd.sum_mod(words[:4], words[4], "fb"))
    program = t.lower(b.finish())
    for start in range(0, len(cases), lanes):
        chunk = cases[start:start + lanes]
        data = b"".join(struct.pack(f"<{lanes}I", *(case[i] for case in chunk)) for i in range(5))
        out = run(program, {"in": bytearray(data), "out": bytearray(t.bits // 8)})["out"]
        assert list(struct.unpack(f"<{lanes}I", bytes(out))) == [mod_p_cell(sum(case)) for case in chunk]


@pytest.mark.parametrize("strategy, target", zuc_kernel_files.KERNELS)
def test_compiled_word_round_matches_reference(strategy, target, tmp_path):
    """The one-round program as gen emits it for the kernel (C intrinsics, or
    the assembly twin's own code), compiled and run natively or under qemu:
    the lanes' keystream words and the state one cell on, as the reference's."""
    t = SIMD_TARGETS[target]
    if why_not_runnable(t):
        pytest.skip(why_not_runnable(t))
    word = zuc_kernel_files.lowered_programs(t, strategy, choices.load())["keystream_word"]
    lanes = word.info["lanes"]
    state = random_lanes(lanes, 128, zlib.crc32(target.encode()))
    zuc_reference.init_rounds(state, lanes)
    memory = {"state": struct.pack(f"<{len(state)}I", *state), "out": bytes(4 * lanes)}
    got_out = run_compiled(word, t, memory, "out", tmp_path)
    got_state = run_compiled(word, t, memory, "state", tmp_path)
    assert words(got_out) == zuc_reference.keystream_word(state, lanes)
    assert words(got_state) == state
