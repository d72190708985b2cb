"""The uBlock register kernel programs (the AVX2 paper's method), abstract and
lowered for the vector-ISA targets, in the IR interpreter against the Python
reference: every width, variant and direction, one key for the whole batch
and a different key in every key slot; the key image layout against the
contract's wording; the round's shape (one shuffle per nibble half in the
S-box, a lane swap only where a 256-bit half spans lanes); and the emitted C,
compiled and run natively where this machine can."""

import random
import zlib

import pytest

from gen import choices
from gen.backends import SIMD_TARGETS, kernels
from gen.ir import Loop, Op, run
from gen.ir.opcodes import ABSTRACT
from gen.kernels import ublock_reference as ref
from gen.kernels import ublock_register as ur
from gen.specs import ublock
from compiled_kernels import run_compiled, why_not_runnable

VARIANTS = sorted(ublock.VARIANTS)
DIRECTIONS = ("encrypt", "decrypt")
TARGETS = [t for s, t in kernels("ublock") if s == "register"]


def batch_case(program, block_bits, key_bits, seed, distinct_keys):
    """Memory for one kernel pass and the reference's output for it."""
    rng = random.Random(seed)
    slots, blocks = program.info["key_slots"], program.info["batch_blocks"]
    keys = [bytes(rng.randrange(256) for _ in range(key_bits // 8)) for _ in range(slots if distinct_keys else 1)]
    keys = [keys[s % len(keys)] for s in range(slots)]
    schedules = [ref.round_keys(block_bits, key_bits, key) for key in keys]
    data = [bytes(rng.randrange(256) for _ in range(block_bits // 8)) for _ in range(blocks)]
    crypt = ref.encrypt_block if program.info["direction"] == "encrypt" else ref.decrypt_block
    expect = b"".join(crypt(block_bits, key_bits, keys[i % slots], block, schedules[i % slots])
                      for i, block in enumerate(data))
    memory = {"rk": ur.key_material(schedules, program.bits, block_bits, program.info["direction"]),
              "in": b"".join(data), "out": bytes(len(expect))}
    return memory, expect


def check(program, block_bits, key_bits, seed, flip_dont_care=False):
    for distinct_keys in (False, True):
        memory, expect = batch_case(program, block_bits, key_bits, seed, distinct_keys)
        out = run(program, {k: bytearray(v) for k, v in memory.items()}, flip_dont_care)["out"]
        assert bytes(out) == expect, f"distinct_keys={distinct_keys}"


@pytest.mark.parametrize("direction", DIRECTIONS)
@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("bits", [128, 256, 512])
def test_abstract_program_matches_reference(bits, variant, direction):
    block_bits, key_bits = variant
    program = ur.program(bits, block_bits, ublock.VARIANTS[variant], direction)
    check(program, block_bits, key_bits, seed=zlib.crc32(f"{bits}{variant}{direction}".encode()))


@pytest.mark.parametrize("direction", DIRECTIONS)
@pytest.mark.parametrize("block_bits", [128, 256])
def test_nibble_moves_read_only_the_bits_their_byte_shifts_care_about(block_bits, direction):
    """The S-box's nibble split and spread_pair/pack_pair select one nibble of
    each shifted byte (care): flipping every other bit of those shifts changes nothing."""
    variant = max(v for v in VARIANTS if v[0] == block_bits)
    program = ur.program(256, block_bits, ublock.VARIANTS[variant], direction)
    shifts = [s for s in program.walk() if isinstance(s, Op) and s.opcode in ("shl", "shr")]
    assert {s.attrs.get("care") for s in shifts} == {0x0F, 0xF0}
    check(program, *variant, seed=block_bits, flip_dont_care=True)


@pytest.mark.parametrize("direction", DIRECTIONS)
@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("target", TARGETS)
def test_lowered_program_matches_reference(target, variant, direction):
    t = SIMD_TARGETS[target]
    block_bits, key_bits = variant
    program = t.lower(ur.program(t.bits, block_bits, ublock.VARIANTS[variant], direction,
                                choices.load().of("ublock.groups", "register", t)))
    assert not {s.opcode for s in program.walk() if isinstance(s, Op)} & ABSTRACT
    check(program, block_bits, key_bits, seed=zlib.crc32(f"{target}{variant}{direction}".encode()))


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("block_bits", [128, 256])
def test_interleaved_groups_share_the_key_images(target, block_bits):
    t = SIMD_TARGETS[target]
    key_bits = 256
    program = t.lower(ur.program(t.bits, block_bits, ublock.VARIANTS[block_bits, key_bits], "encrypt", groups=2))
    assert program.info["batch_blocks"] == 2 * program.info["key_slots"]
    check(program, block_bits, key_bits, seed=block_bits)


@pytest.mark.parametrize("bits, block_bits, batch", [(128, 128, 2), (256, 128, 4), (512, 128, 8),
                                                     (128, 256, 2), (256, 256, 2), (512, 256, 4)])
def test_batch_and_key_image_sizes(bits, block_bits, batch):
    program = ur.program(bits, block_bits, 16, "encrypt")
    assert program.info["batch_blocks"] == ur.batch_blocks(bits, block_bits) == program.info["key_slots"] == batch
    assert program.info["image_bytes"] == max(bits, block_bits) // 8
    assert program.info["key_bytes"] == 17 * ur.IMAGE_STEP_BYTES
    assert {"batch_blocks", "key_form", "block_bits", "rounds", "direction", "strategy"} <= program.info.keys()
    assert (program.info["key_form"], program.info["strategy"]) == ("register_image", "register")


@pytest.mark.parametrize("bits, block_bits", [(128, 128), (256, 128), (512, 128), (128, 256), (256, 256), (512, 256)])
def test_key_image_is_the_contracts_layout(bits, block_bits):
    """128-bit blocks: block s in lane s % lanes; 256-bit blocks: in 256-bit
    slot s % slots; low nibble for the first half of the slots, high for the rest."""
    rng = random.Random(bits + block_bits)
    slots = ur.batch_blocks(bits, block_bits)
    keys = [[rng.randrange(16) for _ in range(block_bits // 4)] for _ in range(slots)]
    image = ur.key_image(keys, bits, block_bits)
    half, unit = block_bits // 8, max(bits, block_bits) // 8 // (slots // 2)
    assert len(image) == ur.IMAGE_STEP_BYTES  # each half padded to the widest register
    assert not any(byte for h in (0, 1)
                   for byte in image[ur.IMAGE_HALF_BYTES * h + (slots // 2) * unit:ur.IMAGE_HALF_BYTES * (h + 1)])
    for s, key in enumerate(keys):
        shift = 0 if s < slots // 2 else 4
        for h in (0, 1):
            base = h * len(image) // 2 + (s % (slots // 2)) * unit
            assert [image[base + p] >> shift & 15 for p in range(half)] == key[h * half:(h + 1) * half]


def test_key_image_rejects_wrong_shapes():
    with pytest.raises(ValueError, match="key slots"):
        ur.key_image([[0] * 32] * 3, 256, 128)
    with pytest.raises(ValueError, match="nibbles"):
        ur.key_image([[0] * 31] * 4, 256, 128)
    with pytest.raises(ValueError, match="direction"):
        ur.program(256, 128, 16, "sideways")
    with pytest.raises(ValueError, match="blocks are"):
        ur.program(256, 192, 16, "encrypt")


def round_ops(program):
    loop = next(s for s in program.body if isinstance(s, Loop))
    ops = [s.opcode for s in loop.body if isinstance(s, Op)]
    return {code: ops.count(code) for code in set(ops)}


@pytest.mark.parametrize("target, block_bits, shuffles, swaps", [
    ("avx2", 128, 4 + 4 + 2, 0),      # S-box 2 per half, 4 rotations, PL and PR
    ("avx2", 256, 4 + 4 + 4, 2),      # algorithm 5: two shuffles and a lane swap per half
    ("avx512", 256, 4 + 4 + 4, 2),
    ("ssse3", 256, 8 + 8 + 8, 0),     # two registers per half; the swap is the other register
])
def test_round_shape(target, block_bits, shuffles, swaps):
    t = SIMD_TARGETS[target]
    for direction in DIRECTIONS:
        ops = round_ops(t.lower(ur.program(t.bits, block_bits, 24, direction)))
        assert ops.get("lookup16", 0) == shuffles and ops.get("blocks128", 0) == swaps
        assert ops.get("load", 0) == 2 * max(1, block_bits // t.bits)  # the two key images, nothing else


def test_avx512_selects_and_fuses_bitwise_pairs_with_ternary_logic():
    """The nibble selects of spreading and packing are one VPTERNLOGD each; in
    the round, the S-box's or joins the linear layer's first xor."""
    program = SIMD_TARGETS["avx512"].lower(ur.program(512, 128, 16, "encrypt"))
    opcodes = [s.opcode for s in program.walk() if isinstance(s, Op)]
    assert opcodes.count("ternlog") == 4 + round_ops(program)["ternlog"] and "andnot" not in opcodes
    assert round_ops(program)["ternlog"] == 1


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("variant, direction", [((128, 128), "decrypt"), ((256, 256), "encrypt")])
def test_emitted_c_matches_reference(target, variant, direction, tmp_path):
    t = SIMD_TARGETS[target]
    if why_not_runnable(t):
        pytest.skip(why_not_runnable(t))
    block_bits, key_bits = variant
    program = t.lower(ur.program(t.bits, block_bits, ublock.VARIANTS[variant], direction))
    memory, expect = batch_case(program, block_bits, key_bits, seed=t.bits, distinct_keys=True)
    assert run_compiled(program, t, memory, "out", tmp_path) == expect


ONE_BLOCK_TARGETS = sorted({t for _, t in kernels("ublock")})  # every kernel file carries the one-block form


@pytest.mark.parametrize("direction", DIRECTIONS)
@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("target", ["abstract"] + ONE_BLOCK_TARGETS)
def test_one_block_program_matches_reference(target, variant, direction):
    """The one-block form, abstract and lowered for every target that has
    uBlock kernels: the block alone in the low nibbles, so another key in the
    image's high nibbles (distinct_keys) and flipped don't-care bits change nothing."""
    block_bits, key_bits = variant
    program = ur.one_block_program(block_bits, ublock.VARIANTS[variant], direction)
    if target != "abstract":
        program = SIMD_TARGETS[target].lower(program)
    assert (program.bits, program.info["batch_blocks"], program.info["key_form"]) == (128, 1, "register_image")
    check(program, block_bits, key_bits, seed=zlib.crc32(f"one{target}{variant}{direction}".encode()),
          flip_dont_care=True)


@pytest.mark.parametrize("block_bits", [128, 256])
def test_one_block_round_looks_up_the_low_nibbles_only(block_bits):
    """Per half part one S-box shuffle (the batch form's two, less one) and no
    nibble shift: the high nibbles hold no block."""
    for direction in DIRECTIONS:
        one = round_ops(ur.one_block_program(block_bits, 24, direction))
        batch = round_ops(ur.program(128, block_bits, 24, direction))
        parts = 2 * block_bits // 128
        assert one["lookup16"] == batch["lookup16"] - parts
        assert "shr" not in one and "or" not in one
        assert one.get("load", 0) == batch.get("load", 0) == parts  # the key images, nothing else


@pytest.mark.parametrize("block_bits", [128, 256])
def test_one_block_form_on_avx512_is_vex_only(block_bits):
    """The avx512 target has no AVX512VL: its 128-bit one-block program takes
    no VPTERNLOGD or VPROLD, and its assembly names xmm0-15 only, VEX forms."""
    import re
    from gen.backends.assembly import assembly_file
    target = SIMD_TARGETS["avx512"]
    for direction in DIRECTIONS:
        lowered = target.lower(ur.one_block_program(block_bits, 24, direction))
        assert not {s.opcode for s in lowered.walk() if isinstance(s, Op)} & {"ternlog", "rotl_native"}
        text = assembly_file("/* test */", [("one_block_asm", lowered)], target.asm_twin(), "one_block_test")
        registers = {int(n) for n in re.findall(r"%[xyz]mm(\d+)", text)}
        assert registers and max(registers) < 16 and "%zmm" not in text and "vmovdqa64" not in text
