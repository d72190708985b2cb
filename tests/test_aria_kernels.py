"""ARIA's byte-sliced kernel program (gen/kernels/aria_byteslice.py), abstract
and lowered for every target that has an inversion instruction (GFNI, AES-NI,
VAES, AArch64's AESE), run in the IR interpreter against the Python reference
(gen/kernels/aria_reference.py), both directions and every key length, and
through the constant-time check.  (The kernel is not emitted into generated/
yet: the library, the harness and the assembly twins come next.)"""

import random

import pytest

from gen.backends import SIMD_TARGETS, kernels
from gen.ir import ct_check, run
from gen.ir.opcodes import ABSTRACT
from gen.ir.program import Loop, Op
from gen.kernels import aria_byteslice, aria_key_schedule, aria_reference as ref
from gen.specs import aria

from block_programs import check_both_directions

# The targets whose lowering has an inversion in AES's field: SM4's byte-sliced ones.
INVERSION_TARGETS = sorted({t for s, t in kernels("sm4") if s == "byteslice"})


def check(program, key_bytes, seed):
    key = random.Random(seed).randbytes(key_bytes)
    check_both_directions(program, aria_byteslice.round_key_bytes(ref.encryption_keys(key)),
                          aria_byteslice.round_key_bytes(ref.decryption_keys(key)),
                          lambda block: ref.encrypt_block(key, block), seed)


def test_sbox_forms_are_the_sboxes():
    boxes = ref.sboxes()
    from gen.linalg.gf2n import Field
    inv = Field(aria.FIELD_POLY).inv
    for number, (inner, outer) in aria_byteslice.sbox_forms().items():
        assert tuple(outer.apply(inv(inner.apply(x) if inner else x)) for x in range(256)) == boxes[number - 1]


@pytest.mark.parametrize("key_bytes", aria.KEY_BYTES)
@pytest.mark.parametrize("bits", [128, 256, 512])
def test_abstract_program_matches_reference(bits, key_bytes):
    program = aria_byteslice.program(bits, key_bytes)
    assert program.info["rounds"] == aria.ROUNDS[key_bytes]
    check(program, key_bytes, seed=bits + key_bytes)


def test_interleaved_groups_give_the_same_cipher():
    check(aria_byteslice.program(128, 24, groups=2), 24, seed=2)


@pytest.mark.parametrize("target", INVERSION_TARGETS)
def test_lowered_programs_match_reference_and_are_constant_time(target):
    t = SIMD_TARGETS[target]
    for key_bytes in aria.KEY_BYTES:
        program = t.lower(aria_byteslice.program(t.bits, key_bytes))
        assert not {s.opcode for s in program.walk() if isinstance(s, Op)} & ABSTRACT
        check(program, key_bytes, seed=len(target) + key_bytes)
        assert ct_check.secret_sources(program) and ct_check.check(program) == []


def test_gfni_rounds_are_one_instruction_per_sbox_where_the_map_is_outer_only():
    """SB1 and SB2 are one GF2P8AFFINEINVQB each, SB3 and SB4 a GF2P8AFFINEQB
    first: 24 S-box instructions a round on 16 registers, two rounds a loop pass."""
    program = SIMD_TARGETS["avx512_gfni"].lower(aria_byteslice.program(512, 16))
    (loop,) = [s for s in program.body if isinstance(s, Loop)]
    ops = [s.opcode for s in loop.body if isinstance(s, Op)]
    assert loop.count == (aria.ROUNDS[16] - 2) // 2
    assert ops.count("gf2p8affineinv") == 2 * 16 and ops.count("gf2p8affine") == 2 * 8


@pytest.mark.parametrize("target", INVERSION_TARGETS)
def test_key_schedule_program_writes_both_key_sets_and_is_constant_time(target):
    """ek_1..ek_(n+1) and the decryption keys, in the kernels' form, from the
    key schedule's own program (gen/kernels/aria_key_schedule.py)."""
    t = SIMD_TARGETS[target]
    for key_bytes in aria.KEY_BYTES:
        program = t.lower(aria_key_schedule.program(key_bytes))
        key = random.Random(key_bytes).randbytes(key_bytes)
        size = (aria.ROUNDS[key_bytes] + 1) * aria.BLOCK_BYTES * aria_byteslice.KEY_WORD_BYTES
        memory = {"key": bytearray(key), "ek": bytearray(size), "dk": bytearray(size)}
        run(program, memory)
        assert memory["ek"] == aria_byteslice.round_key_bytes(ref.encryption_keys(key))
        assert memory["dk"] == aria_byteslice.round_key_bytes(ref.decryption_keys(key))
        assert ct_check.secret_sources(program) and ct_check.check(program) == []
