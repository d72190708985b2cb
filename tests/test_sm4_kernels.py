"""Every SM4 kernel program, before and after every target's lowering, run in
the IR interpreter against the Python reference, before any C exists."""

import random
import zlib

import pytest

from gen import choices
from gen.backends import SIMD_TARGETS, kernels
from gen.emit.sm4_files import program_options
from gen.ir import Loop, Op, run
from gen.ir.opcodes import ABSTRACT
from gen.ir.semantics import sm4_rounds4
from gen.linalg import BitMatrix
from gen.kernels import sm4_byteslice, sm4_rounds4 as rounds4_kernel, sm4_wordslice
from gen.kernels.sm4_constants import decomposition, decompositions, fused_round, sliced_round_key_map
from gen.kernels.sm4_reference import crypt_block, key_schedule

STRATEGIES = {"byteslice": sm4_byteslice, "wordslice": sm4_wordslice}
STRATEGIES_ALL = dict(STRATEGIES, rounds4=rounds4_kernel)


def round_key_bytes(program, rks, index=None):
    if program.info["key_form"] == "sliced":
        m = sliced_round_key_map(decomposition(index))
        return bytearray(m.apply(b) for rk in rks for b in rk.to_bytes(4, "big") for _ in range(4))
    return bytearray(b"".join(rk.to_bytes(4, "little") for rk in rks))


def check_program(program, seed, index=None, decrypt=False):
    rng = random.Random(seed)
    key = bytes(rng.randrange(256) for _ in range(16))
    rks = key_schedule(key)
    if decrypt:
        rks = rks[::-1]
    nbytes = program.info["batch_blocks"] * 16
    data = bytes(rng.randrange(256) for _ in range(nbytes))
    memory = {"rk": round_key_bytes(program, rks, index), "in": bytearray(data), "out": bytearray(nbytes)}
    run(program, memory)
    expected = b"".join(crypt_block(rks, data[i:i + 16]) for i in range(0, nbytes, 16))
    assert bytes(memory["out"]) == expected


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("bits", [128, 256, 512])
def test_abstract_program_matches_reference(strategy, bits):
    check_program(STRATEGIES[strategy].program(bits, groups=1), seed=bits)


@pytest.mark.parametrize("rounds", [4, 16, 32])
@pytest.mark.parametrize("strategy", ["byteslice", "wordslice"])
def test_every_rounds_per_iteration_gives_the_same_cipher(strategy, rounds):
    """sm4.rounds_per_iteration (gen/choices.py) changes the loop, never the cipher."""
    check_program(STRATEGIES[strategy].program(128, groups=2, rounds_per_iteration=rounds), seed=rounds)


@pytest.mark.parametrize("rounds", [0, 6, 12, 64])
def test_rounds_per_iteration_must_be_a_multiple_of_4_dividing_32(rounds):
    with pytest.raises(ValueError, match="multiple of 4 dividing 32"):
        sm4_wordslice.program(128, rounds_per_iteration=rounds)


@pytest.mark.parametrize("strategy, target", kernels("sm4"))
def test_lowered_program_matches_reference(strategy, target):
    t = SIMD_TARGETS[target]
    program = t.lower(STRATEGIES_ALL[strategy].program(t.bits, **program_options(strategy, t, choices.load())))
    opcodes = {s.opcode for s in program.walk() if isinstance(s, Op)}
    assert not opcodes & ABSTRACT
    check_program(program, seed=zlib.crc32(f"{strategy}_{target}".encode()))  # reproducible across runs
    check_program(program, seed=7, decrypt=True)


@pytest.mark.parametrize("index", [415, 601, 812, 2039])
def test_other_decompositions_give_the_same_cipher(index):
    """A different matrix choice changes constants, never the cipher (415 is
    libgcrypt's GFNI pair, 601 Botan's, 812 sm4ni's AES-NI tables)."""
    assert len(decompositions()) == 2040
    for target in ("avx2_gfni", "ssse3_aesni"):
        t = SIMD_TARGETS[target]
        program = t.lower(sm4_byteslice.program(t.bits, decomposition_index=index))
        check_program(program, seed=index, index=index)


def test_the_basis_blocks_are_every_spanning_set_of_the_grids_three_blocks():
    grid = fused_round(decomposition(0)).grid
    blocks = sm4_byteslice.distinct_blocks(grid)
    assert len(blocks) == 3 and blocks[2] == BitMatrix(tuple(a ^ b for a, b in zip(blocks[0].rows, blocks[1].rows)), 8)
    assert list(sm4_byteslice.bases(grid)) == ["b1_b2", "b1_b3", "b2_b3", "b1_b2_b3"]   # the paper's first
    # Output terms per byte: B'1 once, B'2 twice, B'3 once in every row of M'_L.
    terms = {name: [len(row) for row in sm4_byteslice.block_terms(grid, name)[2]] for name in sm4_byteslice.bases(grid)}
    assert terms == {"b1_b2": [5] * 4, "b1_b3": [6] * 4, "b2_b3": [5] * 4, "b1_b2_b3": [4] * 4}
    with pytest.raises(ValueError, match="b1_b2, b1_b3"):
        sm4_byteslice.block_terms(grid, "b3")


@pytest.mark.parametrize("basis", ["b1_b3", "b2_b3", "b1_b2_b3"])
def test_other_basis_blocks_give_the_same_cipher(basis):
    """A basis is another grouping of M'_L's products: more products, fewer
    XORs or the reverse, never another cipher.  On GFNI each product fuses
    with the inversion: a round is 4 GF2P8AFFINEINVQB per basis block."""
    for target in ("avx2_gfni", "ssse3_aesni"):
        t = SIMD_TARGETS[target]
        program = t.lower(sm4_byteslice.program(t.bits, basis_blocks=basis))
        check_program(program, seed=len(basis))
        if target == "avx2_gfni":
            assert count(round_loop(program).body, "gf2p8affineinv") == 4 * (basis.count("_") + 1) * ROUNDS_PER_ITERATION


ROUNDS_PER_ITERATION = 8   # sm4_byteslice.program's default


def round_loop(program):
    return next(s for s in program.body if isinstance(s, Loop))


def count(stmts, opcode):
    return sum(1 for s in stmts if isinstance(s, Op) and s.opcode == opcode)


@pytest.mark.parametrize("rounds", [4, 8, 16, 32])
def test_gfni_round_is_eight_affine_inverse_instructions(rounds):
    """On GFNI the inversion fuses into both block products of M'_L: a round
    of the byte-sliced kernel is 8 GF2P8AFFINEINVQB, no separate inversion;
    the loop body holds `rounds` of them (gen/choices.py sm4.rounds_per_iteration)."""
    t = SIMD_TARGETS["avx512_gfni"]
    program = t.lower(sm4_byteslice.program(t.bits, groups=1, rounds_per_iteration=rounds))
    assert program.info["rounds_per_iteration"] == rounds
    loop = round_loop(program)
    assert loop.count == 32 // rounds
    assert count(loop.body, "gf2p8affineinv") == 8 * rounds
    assert count(loop.body, "gf2p8affine") == 0


def test_aesni_round_is_four_aesenclast_and_sixteen_table_lookups():
    t = SIMD_TARGETS["ssse3_aesni"]
    loop = round_loop(t.lower(sm4_byteslice.program(t.bits, groups=1)))
    assert count(loop.body, "aesenclast") == 4 * ROUNDS_PER_ITERATION
    # 4 inverse-ShiftRows shuffles + 8 products x 2 nibble lookups per round
    assert count(loop.body, "lookup16") == 20 * ROUNDS_PER_ITERATION


def test_avx2_aesni_splits_aesenclast_and_vaes_does_not():
    for name, expected_128 in (("avx2_aesni", True), ("avx2_vaes", False)):
        t = SIMD_TARGETS[name]
        program = t.lower(sm4_byteslice.program(t.bits, groups=1))
        widths = {s.result.bits for s in program.walk() if isinstance(s, Op) and s.opcode == "aesenclast"}
        assert (widths == {128}) == expected_128


def test_common_subexpressions_never_span_a_state_update():
    """Rounds k and k+4 XOR the same state variables, but after they changed:
    the rewriter's CSE must not merge them (it once did)."""
    t = SIMD_TARGETS["avx2_gfni"]
    program = t.lower(sm4_byteslice.program(t.bits, groups=1))
    loop = round_loop(program)
    assert count(loop.body, "xor") >= 4 * 3 * ROUNDS_PER_ITERATION


def test_decomposition_index_out_of_range():
    with pytest.raises(ValueError, match="out of range"):
        decomposition(5000)


@pytest.mark.parametrize("groups", [1, 3, 8])
def test_rounds4_program_matches_reference(groups):
    """The four-round-instruction strategy, abstract (no target of this
    machine's need lowers it), with 1 to 8 blocks side by side, both ways."""
    program = rounds4_kernel.program(128, groups=groups)
    check_program(program, seed=groups)
    check_program(program, seed=groups + 1, decrypt=True)


def test_sm4_rounds4_is_four_rounds_of_the_cipher():
    """The op's fixed function against the reference's rounds: 32 rounds by 8
    of them give the block cipher, with the spec's own test vector."""
    key = bytes.fromhex("0123456789abcdeffedcba9876543210")
    rks = key_schedule(key)
    x = tuple(int.from_bytes(key[i:i + 4], "big") for i in range(0, 16, 4))
    for i in range(0, 32, 4):
        x = sm4_rounds4(x, rks[i:i + 4])
    out = b"".join(w.to_bytes(4, "big") for w in reversed(x))
    assert out == bytes.fromhex("681edf34d206965e86b3e94f536e4246")


# ---- the one-block form (serial chains and single blocks) ----------------------

@pytest.mark.parametrize("strategy, target", [("wordslice", None)] + list(kernels("sm4")),
                         ids=lambda x: x or "abstract")
def test_one_block_form_is_cbc_encryption_step(strategy, target):
    """Every SM4 kernel file's one-block form through xor_into_loads, abstract
    and lowered for its target: out = E(in ^ src) (CBC encryption's step), D
    with the decryption round keys, in place (out = src, the chain) too."""
    from gen.emit.sm4_files import one_block_program
    from gen.ir.keystream import xor_into_loads
    program = xor_into_loads(one_block_program(strategy, SIMD_TARGETS[target or "avx512_gfni"], choices.load()))
    if target is not None:
        program = SIMD_TARGETS[target].lower(program)
    assert (program.bits, program.info["batch_blocks"], program.params) == (128, 1, ("rk", "in", "out", "src"))
    rng = random.Random(f"one/{strategy}/{target}")
    key, data, chain = rng.randbytes(16), rng.randbytes(16), rng.randbytes(16)
    rks = key_schedule(key)
    for keys in (rks, rks[::-1]):
        for in_place in (False, True):
            memory = {"rk": round_key_bytes(program, keys), "in": bytearray(data), "src": bytearray(chain)}
            memory["out"] = memory["src"] if in_place else bytearray(16)
            run(program, memory)
            assert bytes(memory["out"]) == crypt_block(keys, bytes(a ^ b for a, b in zip(data, chain)))


def test_one_block_round_joins_the_layer_parts():
    """Within a loop body the S-box input takes the newest word's two parts
    (one three-input XOR after L), not the word: one XOR per round off the
    chain.  Lowered for avx512_gfni (AVX512VL), its L is VPROLD and VPTERNLOGD
    on xmm registers 0-15 (VEX wherever a VEX form exists)."""
    import re
    from gen.backends.assembly import assembly_file
    program = sm4_wordslice.one_block_program(rounds_per_iteration=8)
    loop = next(s for s in program.body if isinstance(s, Loop))
    xors = [s for s in loop.body if isinstance(s, Op) and s.opcode == "xor"]
    joined = [s for s in xors if s.result.name.startswith("g0t") and s.args[1].name.startswith("g0f")]
    assert len(joined) == 7  # every round of the body but its first
    target = SIMD_TARGETS["avx512_gfni"]
    lowered = target.lower(program)
    opcodes = {s.opcode for s in lowered.walk() if isinstance(s, Op)}
    assert {"ternlog", "rotl_native", "gf2p8affine", "gf2p8affineinv"} <= opcodes
    text = assembly_file("/* test */", [("one_block_test", lowered)], target.asm_twin(), "one_block_test")
    assert "vprold $2, %xmm" in text and "vpternlogd" in text
    registers = {int(n) for n in re.findall(r"%[xyz]mm(\d+)", text)}
    assert max(registers) < 16 and "%zmm" not in text and "%ymm" not in text


# ---- the multi-key form (many CBC streams side by side) ------------------------

@pytest.mark.parametrize("strategy, target", [("wordslice", None)] + list(kernels("sm4")),
                         ids=lambda x: x or "abstract")
def test_multi_key_form_gives_every_block_its_own_key(strategy, target):
    """Every SM4 kernel file's multi-key form (none for rounds4) through
    xor_into_loads, abstract and lowered: block j of the pass is
    E_j(in_j ^ src_j) under stream j's round keys, laid out per round in
    key_order, for each direction's keys."""
    from gen.emit.sm4_files import MULTI_STREAMS, multi_key_program
    from gen.ir.keystream import xor_into_loads
    t = SIMD_TARGETS[target or "avx2_gfni"]
    abstract = multi_key_program(strategy, t, choices.load())
    if strategy == "rounds4":
        assert abstract is None
        return
    program = xor_into_loads(abstract)
    if target is not None:
        program = t.lower(program)
    order = abstract.info["key_order"]
    assert abstract.info["batch_blocks"] == MULTI_STREAMS and sorted(order) == list(range(MULTI_STREAMS))
    rng = random.Random(f"multi/{strategy}/{target}")
    schedules = [key_schedule(rng.randbytes(16)) for _ in range(MULTI_STREAMS)]
    data, chain = rng.randbytes(16 * MULTI_STREAMS), rng.randbytes(16 * MULTI_STREAMS)
    for reverse in (False, True):
        keys = [rks[::-1] if reverse else rks for rks in schedules]
        table = bytearray(b"".join(keys[order[p]][r].to_bytes(4, "little")
                                   for r in range(32) for p in range(MULTI_STREAMS)))
        memory = {"rk": table, "in": bytearray(data), "src": bytearray(chain), "out": bytearray(len(data))}
        run(program, memory)
        want = b"".join(crypt_block(keys[j], bytes(a ^ b for a, b in zip(data[16 * j:16 * j + 16],
                                                                         chain[16 * j:16 * j + 16])))
                        for j in range(MULTI_STREAMS))
        assert bytes(memory["out"]) == want
