"""Camellia's byte-sliced kernel program (gen/kernels/camellia_byteslice.py),
abstract and lowered for every target that has an inversion instruction, run
in the IR interpreter against the Python reference
(gen/kernels/camellia_reference.py), both directions, every key length, every
field isomorphism, and through the constant-time check.  (Not emitted into
generated/ yet: the library and the harness come next.)"""

import random

import pytest

from gen.backends import SIMD_TARGETS, kernels
from gen.ir import ct_check, run
from gen.ir.opcodes import ABSTRACT
from gen.ir.program import Op
from gen.kernels import camellia_byteslice, camellia_key_schedule, camellia_reference as ref
from gen.linalg.gf2n import Field
from gen.specs import aes, camellia

from block_programs import check_both_directions

INVERSION_TARGETS = sorted({t for s, t in kernels("sm4") if s == "byteslice"})


def check(program, key_bytes, seed):
    key = random.Random(seed).randbytes(key_bytes)
    keys = ref.subkeys(key)
    check_both_directions(program, camellia_byteslice.subkey_bytes(keys, key_bytes),
                          camellia_byteslice.subkey_bytes(ref.decryption_subkeys(keys), key_bytes),
                          lambda block: ref.encrypt_block(key, block), seed)


@pytest.mark.parametrize("isomorphism", range(8))
def test_sbox_forms_are_the_sboxes_through_every_isomorphism(isomorphism):
    inv = Field(aes.FIELD_POLY).inv
    for number, (inner, outer) in camellia_byteslice.sbox_forms(isomorphism).items():
        assert all(outer.apply(inv(inner.apply(x))) == ref.sbox(number, x) for x in range(256))


@pytest.mark.parametrize("key_bytes", camellia.KEY_BYTES)
@pytest.mark.parametrize("bits", [128, 256, 512])
def test_abstract_program_matches_reference(bits, key_bytes):
    program = camellia_byteslice.program(bits, key_bytes)
    assert program.info["rounds"] == camellia.ROUNDS[key_bytes]
    check(program, key_bytes, seed=bits + key_bytes)


def test_groups_and_isomorphisms_give_the_same_cipher():
    check(camellia_byteslice.program(128, 16, groups=2, isomorphism=5), 16, seed=5)


def test_subkey_order_reads_each_subkey_once():
    for key_bytes in camellia.KEY_BYTES:
        order = camellia_byteslice.subkey_order(key_bytes)
        rounds = camellia.ROUNDS[key_bytes]
        assert len(order) == len(set(order)) == 4 + rounds + 2 * (rounds // 6 - 1)


@pytest.mark.parametrize("target", INVERSION_TARGETS)
def test_lowered_programs_match_reference_and_are_constant_time(target):
    t = SIMD_TARGETS[target]
    for key_bytes in camellia.KEY_BYTES:
        program = t.lower(camellia_byteslice.program(t.bits, key_bytes))
        assert not {s.opcode for s in program.walk() if isinstance(s, Op)} & ABSTRACT
        check(program, key_bytes, seed=len(target) + key_bytes)
        assert ct_check.secret_sources(program) and ct_check.check(program) == []


@pytest.mark.parametrize("target", INVERSION_TARGETS)
def test_key_schedule_program_writes_both_orders_and_is_constant_time(target):
    """The subkeys in the byte-sliced program's order and in the decryption
    order, from the key schedule's own program (gen/kernels/camellia_key_schedule.py)."""
    t = SIMD_TARGETS[target]
    for key_bytes in camellia.KEY_BYTES:
        program = t.lower(camellia_key_schedule.program(key_bytes))
        key = random.Random(key_bytes).randbytes(key_bytes)
        keys = ref.subkeys(key)
        want = camellia_byteslice.subkey_bytes(keys, key_bytes)
        memory = {"key": bytearray(key), "ek": bytearray(len(want)), "dk": bytearray(len(want))}
        run(program, memory)
        assert memory["ek"] == want
        assert memory["dk"] == camellia_byteslice.subkey_bytes(ref.decryption_subkeys(keys), key_bytes)
        assert ct_check.secret_sources(program) and ct_check.check(program) == []
