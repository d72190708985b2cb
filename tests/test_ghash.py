"""GHASH (gen/kernels/ghash.py): the reference's product (SP 800-38D's
Algorithm 1) against polynomial arithmetic in GF(2^128); the published GHASH
values of the GCM specification; the key program's table of powers and the
aggregated update, abstract at every width and several n, in the IR
interpreter against the reference; both lowered for every C target (clmul by
PCLMULQDQ, VPCLMULQDQ, PMULL/PMULL2 or shifts and masks), still equal in the
interpreter and passing the static constant-time check; and compiled (C and
assembly twin) natively or under qemu for every target with a carry-less
multiply."""

import random

import pytest

from gen.backends import SIMD_TARGETS
from gen.ir import ct_check, run
from gen.kernels import ghash, ghash_reference as ref
from gen.linalg import Field, is_irreducible
from gen.specs import gf128

from compiled_kernels import run_compiled, why_not_runnable

C_TARGETS = [t for t in SIMD_TARGETS.values() if t.form == "c"]
WIDTHS = (128, 256, 512)


def natural(block):
    """A GCM block as the polynomial sum a_i x^i, bit i the coefficient of x^i:
    the block's bit string (most significant bit of byte 0 first) reversed."""
    return int(f"{int.from_bytes(block, 'big'):0128b}"[::-1], 2)


def block_of(poly):
    return int(f"{poly:0128b}"[::-1], 2).to_bytes(16, "big")


def test_the_field_polynomial_is_irreducible():
    assert gf128.POLY == (1 << 128) | 0x87
    assert is_irreducible(gf128.POLY)


@pytest.mark.parametrize("seed", range(8))
def test_algorithm_1_multiplies_in_the_field(seed):
    rng = random.Random(seed)
    a, b = rng.randbytes(16), rng.randbytes(16)
    field = Field(gf128.POLY)
    assert ref.multiply(a, b) == block_of(field.mul(natural(a), natural(b)))


def test_x127_times_x_is_reduced_by_the_polynomial():
    # x^127 * x = x^128 = x^7 + x^2 + x + 1: the bit string 11100001 0^120
    assert ref.multiply(block_of(1 << 127), block_of(1 << 1)) == bytes([0xE1]) + bytes(15)


# (H, A, C, GHASH(H, A, C)): test cases 1 to 6 of D. McGrew and J. Viega, "The
# Galois/Counter Mode of Operation (GCM)", revised 2005, appendix B (AES-128; H = E_K(0)).
TC1_2_H = "66e94bd4ef8a2c3b884cfa59ca342b2e"
TC3_6_H = "b83b533708bf535d0aa6e52980d53b78"
TC3_C = ("42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e"
         "21d514b25466931c7d8f6a5aac84aa051ba30b396a0aac973d58e091473f5985")
TC4_6_A = "feedfacedeadbeeffeedfacedeadbeefabaddad2"
PUBLISHED = [
    (TC1_2_H, "", "", "00000000000000000000000000000000"),
    (TC1_2_H, "", "0388dace60b6a392f328c2b971b2fe78", "f38cbb1ad69223dcc3457ae5b6b0f885"),
    (TC3_6_H, "", TC3_C, "7f1b32b81b820d02614f8895ac1d4eac"),
    (TC3_6_H, TC4_6_A, TC3_C[:120], "698e57f70e6ecc7fd9463b7260a9ae5f"),
    (TC3_6_H, TC4_6_A, "61353b4c2806934a777ff51fa22a4755699b2a714fcdc6f83766e5f97b6c7423"
                       "73806900e49f24b22b097544d4896b424989b5e1ebac0f07c23f4598", "df586bb4c249b92cb6922877e444d37b"),
    (TC3_6_H, TC4_6_A, "8ce24998625615b603a033aca13fb894be9112a5c3a211a8ba262a3cca7e2ca7"
                       "01e4a9a4fba43c90ccdcb281d48c7c6fd62875d2aca417034c34aee5", "1c5afe9760d3932f3c9a878aac3dc3de"),
]


def table(h, blocks, program=None):
    """The key program's table for H (abstract unless a lowered program is given)."""
    memory = {"table": bytearray(16 * blocks), "h": bytearray(h)}
    run(program or ghash.key_program(blocks), memory)
    return bytes(memory["table"])


def update(program, bits, y, powers, msg):
    """Y after one step of `program`; checks that every block of y holds it."""
    memory = {"y": bytearray(y + bytes(range(bits // 8 - 16))), "table": bytearray(powers), "msg": bytearray(msg)}
    run(program, memory)
    out = bytes(memory["y"])
    assert out == out[:16] * (bits // 128)
    return out[:16]


def ghash_by_programs(h, data, bits):
    """GHASH_H(data) by the abstract programs: steps of n = 2 (at 128 and 256
    bits) or 4 (at 512) blocks, then the rest one block at a time by a 128-bit step of one block,
    which reads T_1, the last entry of the same table (an m-block step reads
    its last m entries)."""
    blocks = max(2, bits // 128)
    powers, step, tail = table(h, blocks), ghash.update_program(bits, blocks), ghash.update_program(128, 1)
    y, at = bytes(16), 0
    while len(data) - at >= 16 * blocks:
        y = update(step, bits, y, powers, data[at:at + 16 * blocks])
        at += 16 * blocks
    while at < len(data):
        y = update(tail, 128, y, powers[16 * (blocks - 1):], data[at:at + 16])
        at += 16
    return y


@pytest.mark.parametrize("h, aad, ciphertext, want", PUBLISHED)
def test_published_ghash_values(h, aad, ciphertext, want):
    h, data = bytes.fromhex(h), ref.gcm_blocks(bytes.fromhex(aad), bytes.fromhex(ciphertext))
    assert ref.ghash(h, data).hex() == want
    for bits in WIDTHS:
        assert ghash_by_programs(h, data, bits).hex() == want


def test_the_constants_follow_from_the_polynomial():
    q = ghash.reversed_polynomial()
    # OpenSSL's ghash-x86_64.pl names the reversed polynomial .L0x1c2_polynomial
    assert q == 0x1C2 << 120 | 1
    assert ghash.fold() == 0xC2 << 56            # y^63 + y^62 + y^57
    assert ghash.key_form_multiplier() == Field(q).pow(2, 129)
    for seed in range(4):
        v = random.Random(seed).getrandbits(128) | seed % 2 << 127
        # times y modulo Q: a left shift by one, Q added when bit 127 falls out
        assert ghash.to_key_form(v) == v << 1 ^ (q if v >> 127 else 0)


@pytest.mark.parametrize("blocks", [1, 2, 3, 5, 8, 16])
def test_key_program_makes_the_powers_of_h(blocks):
    h = random.Random(blocks).randbytes(16)
    want = b"".join(ghash.table_entry(ref.power(h, k)) for k in range(blocks, 0, -1))
    assert table(h, blocks) == want


def check_update(program, bits, blocks, seed, steps=1):
    rng = random.Random(seed)
    h, y, msg = rng.randbytes(16), rng.randbytes(16), rng.randbytes(16 * blocks * steps)
    powers = b"".join(ghash.table_entry(ref.power(h, k)) for k in range(blocks, 0, -1))
    assert update(program, bits, y, powers, msg) == ref.ghash(h, msg, y)


@pytest.mark.parametrize("bits", WIDTHS)
@pytest.mark.parametrize("steps", [2, 5])
def test_steps_chain_in_registers(bits, steps):
    """Several steps in one program (GCM's stitched form) hash as many steps one after another."""
    blocks = max(4, bits // 128)
    program = ghash.update_program(bits, blocks, steps)
    assert sum(1 for s in program.walk() if getattr(s, "opcode", None) == "store") == 1
    check_update(program, bits, blocks, seed=steps * bits, steps=steps)
    with pytest.raises(ValueError, match="steps"):
        ghash.update_program(bits, blocks, 0)


@pytest.mark.parametrize("bits", WIDTHS)
@pytest.mark.parametrize("blocks", [1, 2, 4, 8, 12, 16])
def test_abstract_update_matches_the_reference(bits, blocks):
    if blocks % (bits // 128):
        with pytest.raises(ValueError, match="whole"):
            ghash.update_program(bits, blocks)
        return
    for seed in range(3):
        check_update(ghash.update_program(bits, blocks), bits, blocks, seed=seed + 7 * blocks + bits)


def _opcodes(program):
    return {s.opcode for s in program.walk() if hasattr(s, "opcode")}


def lowered_programs(target):
    """The update program at the target's width, and on a 128-bit target the
    key program (128 bits wide: a wider x86 target would take AVX-512VL forms
    of its ops that its flags do not ask for)."""
    programs = {"update": target.lower(ghash.update_program(target.bits))}
    if target.bits == 128:
        programs["key"] = target.lower(ghash.key_program())
    return programs


@pytest.mark.parametrize("target", C_TARGETS, ids=lambda t: t.name)
def test_lowered_programs_match_the_reference_and_are_constant_time(target):
    programs = lowered_programs(target)
    for program in programs.values():
        assert not ct_check.check(program)
        assert ("clmul" in _opcodes(program)) == ("clmul" not in target.lacks)
    check_update(programs["update"], target.bits, ghash.BLOCKS, seed=len(target.name))
    if "key" in programs:
        h = random.Random(target.name).randbytes(16)
        assert table(h, ghash.BLOCKS, programs["key"]) == table(h, ghash.BLOCKS)


# Compiled: the targets with a carry-less multiply, C and assembly twins.  The
# shift-and-mask legalization makes a step some 13,500 operations, which compile
# for minutes (cross-GCC took over 9 on neon_sm4): the interpreter checks those.
CLMUL_TARGETS = [t for t in SIMD_TARGETS.values() if "clmul" not in t.lacks]


@pytest.mark.parametrize("target", CLMUL_TARGETS, ids=lambda t: t.name)
def test_compiled_programs_match_the_reference(target, tmp_path):
    if why_not_runnable(target):
        pytest.skip(why_not_runnable(target))
    rng = random.Random(target.name + "compiled")
    h, y, msg = rng.randbytes(16), rng.randbytes(16), rng.randbytes(16 * ghash.BLOCKS)
    powers = b"".join(ghash.table_entry(ref.power(h, k)) for k in range(ghash.BLOCKS, 0, -1))
    programs = lowered_programs(target)
    for name in programs:
        (tmp_path / name).mkdir()
    out = run_compiled(programs["update"], target, {"y": y + bytes(target.bits // 8 - 16), "table": powers,
                                                     "msg": msg}, "y", tmp_path / "update")
    assert out == ref.ghash(h, msg, y) * (target.bits // 128)
    if "key" in programs:
        assert run_compiled(programs["key"], target, {"table": bytes(len(powers)), "h": h}, "table",
                            tmp_path / "key") == powers


def polyval_step(update, key, h, y0, msg, bits):
    """y after one POLYVAL step from y0 over msg (16 blocks), with key's table of h."""
    memory = {"table": bytearray(16 * ghash.BLOCKS), "h": bytearray(h)}
    run(key, memory)
    state = {"y": bytearray(y0 + bytes(bits // 8 - 16)), "table": memory["table"], "msg": bytearray(msg)}
    run(update, state)
    return bytes(state["y"])


@pytest.mark.parametrize("bits", WIDTHS)
def test_polyval_is_the_update_without_reflection(bits):
    """POLYVAL (RFC 8452) through update_program(polyval=True) and its table of
    dot powers, against the RFC-checked reference (gen/kernels/zuc_nxa6_reference.py),
    continuing from a state: every block of y holds it."""
    from gen.kernels import zuc_nxa6_reference as nxa6
    rng = random.Random(bits)
    h, y0, msg = rng.randbytes(16), rng.randbytes(16), rng.randbytes(16 * ghash.BLOCKS)
    got = polyval_step(ghash.update_program(bits, polyval=True), ghash.key_program(polyval=True), h, y0, msg, bits)
    want = nxa6.polyval(h, bytes(a ^ b for a, b in zip(msg, y0)) + msg[16:])
    assert got == want * (bits // 128)


@pytest.mark.parametrize("target", [t for t in CLMUL_TARGETS if t.form == "c"], ids=lambda t: t.name)
def test_lowered_polyval_matches_and_is_constant_time(target):
    from gen.kernels import zuc_nxa6_reference as nxa6
    update = target.lower(ghash.update_program(target.bits, polyval=True))
    key = target.lower(ghash.key_program(polyval=True))
    assert not ct_check.check(update) and not ct_check.check(key)
    rng = random.Random(target.name)
    h, msg = rng.randbytes(16), rng.randbytes(16 * ghash.BLOCKS)
    assert polyval_step(update, key, h, bytes(16), msg, target.bits)[:16] == nxa6.polyval(h, msg)
