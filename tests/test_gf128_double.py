"""gen/kernels/gf128_double.py: XTS's tweak sequences (IEEE 1619 and
GB/T 17964-2021) and CMAC's subkeys as IR programs.

The references (gen/kernels/gf128_reference.py, each standard's own rule)
are checked against field arithmetic done independently (gen/linalg's
GF(2^128) and Python integers per convention) and against RFC 4493's
published subkeys; the programs, abstract and lowered for every target, run
in the interpreter against the references on random values, their lowered
forms pass the static constant-time check, and each target's C and assembly
emitters write them."""

import json
import os
import random
from pathlib import Path

import pytest

from gen.backends import SIMD_TARGETS
from gen.backends.assembly import assembly_file
from gen.ir import ct_check, run
from gen.kernels import gf128_double, gf128_reference, modes_reference, sm4_reference
from gen.linalg import Field, is_irreducible
from gen.specs import gf128
from compiled_kernels import run_compiled, why_not_runnable

# RFC 4493 section 4, "Subkey Generation": L = AES-128(K, 0^128) and its subkeys.
RFC4493_L = bytes.fromhex("7df76b0c1ab899b33e42f047b91b546f")
RFC4493_K1 = bytes.fromhex("fbeed618357133667c85e08f7236a8de")
RFC4493_K2 = bytes.fromhex("f7ddac306ae266ccf90bc11ee46d513b")

WIDTHS = (128, 256, 512)
REGISTERS = (1, 2, 4)
STARTS = ("tweak", "register")


def _decode(convention, block):
    """The field element (bit i: coefficient of x^i) that `block` stands for in `convention`."""
    out = 0
    for degree in range(128):
        byte, bit = convention.position(degree)
        out |= (block[byte] >> bit & 1) << degree
    return out


def _encode(convention, element):
    out = bytearray(16)
    for degree in range(128):
        byte, bit = convention.position(degree)
        out[byte] |= (element >> degree & 1) << bit
    return bytes(out)


def _edge_values(rng):
    """Values whose reductions and carries fire, or not: every one bit at
    each half's ends, all ones, zero, and random ones."""
    edges = [bytes(16), bytes([0xFF]) * 16]
    for byte in (0, 7, 8, 15):
        for bit in (0, 7):
            edges.append(bytes(byte) + bytes([1 << bit]) + bytes(15 - byte))
    return edges + [rng.randbytes(16) for _ in range(8)]


def test_the_polynomial_is_irreducible():
    assert gf128.POLY.bit_length() == 129 and is_irreducible(gf128.POLY)


@pytest.mark.parametrize("convention", gf128.CONVENTIONS.values(), ids=lambda c: c.name)
def test_references_multiply_by_x_in_the_field(convention):
    """Each standard's byte rule is multiplication by x in GF(2)[x]/POLY,
    read through the convention's coefficient positions."""
    field = Field(gf128.POLY)
    times_x = gf128_reference.TIMES_X[convention.name]
    for value in _edge_values(random.Random(convention.name)):
        assert times_x(value) == _encode(convention, field.mul(_decode(convention, value), 0b10))


def test_references_agree_with_integer_arithmetic():
    """Independent statements of the three rules on Python integers: IEEE
    the little-endian number doubled, GB the big-endian number halved
    (0xE1 at the top when bit 0 falls out), CMAC the big-endian one doubled."""
    top = (1 << 128) - 1
    for value in _edge_values(random.Random("int")):
        le, be = int.from_bytes(value, "little"), int.from_bytes(value, "big")
        ieee = (le << 1 & top) ^ (0x87 if le >> 127 else 0)
        gb = (be >> 1) ^ (0xE1 << 120 if be & 1 else 0)
        cmac = (be << 1 & top) ^ (0x87 if be >> 127 else 0)
        assert gf128_reference.xts_ieee_times_alpha(value) == ieee.to_bytes(16, "little")
        assert gf128_reference.xts_gb_times_alpha(value) == gb.to_bytes(16, "big")
        assert gf128_reference.cmac_dbl(value) == cmac.to_bytes(16, "big")


def test_reference_cmac_subkeys_are_rfc_4493s():
    assert gf128_reference.cmac_subkeys(RFC4493_L) == (RFC4493_K1, RFC4493_K2)


def _sm4_xts_vectors():
    """The published SM4-XTS vectors of both tweak rules (tests/vectors/sm4.json's
    "xts": GB/T 17964-2021 as in OpenSSL's evpciph_sm4.txt): key = K1 || K2, IV,
    plaintext, ciphertext, tweak rule."""
    folder = Path(os.environ.get("KC_VECTORS_DIR", Path(__file__).resolve().parent / "vectors"))
    return [(o["key"], o["iv"], o["plaintext"], o["ciphertext"], gf128.CONVENTIONS[o["tweak_rule"]])
            for o in json.loads((folder / "sm4.json").read_text())["xts"]]


@pytest.mark.parametrize("vector", _sm4_xts_vectors(), ids=lambda v: f"{v[4].name}_{len(v[2]) // 2}B")
def test_sm4_xts_vectors_with_the_programs_tweaks(vector):
    """The published SM4-XTS vectors of both tweak rules, encrypted with the
    tweaks the 512-bit program computes from T = SM4(K2, IV): the GB rule and
    the IEEE rule each give their own ciphertext from the second block on."""
    key, iv, plaintext, ciphertext, convention = (bytes.fromhex(v) if isinstance(v, str) else v for v in vector)
    program = gf128_double.tweak_program(512, 1, convention)
    memory = {"tweak": bytearray(sm4_reference.encrypt_block(key[16:], iv)), "out": bytearray(128)}
    run(program, memory)
    tweaks = [bytes(memory["out"][16 * j:16 * j + 16]) for j in range(8)]
    assert modes_reference.xts_with_tweaks(modes_reference.sm4(key[:16]), tweaks, plaintext) == ciphertext


def test_conventions_differ():
    """The same bytes times x differ between the conventions (a test that
    mixed them up would pass otherwise): 0x80 in byte 0 is x^7 for IEEE,
    x^0 for GB, x^127 for CMAC."""
    value = bytes([0x80]) + bytes(15)
    products = {name: f(value) for name, f in gf128_reference.TIMES_X.items()}
    assert products["ieee"] == bytes([0, 1]) + bytes(14)
    assert products["gb"] == bytes([0x40]) + bytes(15)
    assert products["cmac"] == bytes([0x00]) + bytes(14) + bytes([0x87])


def test_layouts_are_derived_from_the_conventions():
    lay = {name: gf128_double.layout(c) for name, c in gf128.CONVENTIONS.items()}
    assert (lay["ieee"].reverse, lay["ieee"].ascending) == (False, True)
    assert (lay["gb"].reverse, lay["gb"].ascending) == (True, False)
    assert (lay["cmac"].reverse, lay["cmac"].ascending) == (True, True)


@pytest.mark.parametrize("m", range(1, gf128_double.MAX_POWER + 1))
@pytest.mark.parametrize("convention", gf128.CONVENTIONS.values(), ids=lambda c: c.name)
def test_reduction_tables_are_the_products(convention, m):
    """Reassembled from their segments, the tables give for every overflow
    h the working form of h * (x^7 + x^2 + x + 1), the reduction of h * x^128:
    field multiplication of h's element by x^m, less the shifted bits."""
    lay = gf128_double.layout(convention)
    field = Field(gf128.POLY)
    for index in range(1 << m):
        got = bytearray(16)
        for positions, table, _ in gf128_double.reduction_tables(lay, m):
            for t, j in enumerate(positions):
                got[j] = table[(t << m) + index]
        # the element whose overflow bits are `index`: the working form's bits at the far end
        far = [lay.degree(128 - m + i) if lay.ascending else lay.degree(i) for i in range(m)]
        element = sum(1 << far[i] for i in range(m) if index >> i & 1)
        shifted_out = field.mul(element, 1 << m) ^ ((element << m) & ((1 << 128) - 1))
        assert bytes(got) == lay.encode(shifted_out), index


def _programs():
    for bits in WIDTHS:
        for convention in gf128.XTS_CONVENTIONS:
            for registers in REGISTERS:
                for start in STARTS:
                    yield gf128_double.tweak_program(bits, registers, convention, start)
        yield gf128_double.cmac_subkeys_program(bits)


def _check(program, rng):
    """Run `program` on random and edge values; compare with the references."""
    nbytes = program.bits // 8
    k = program.bits // 128
    if program.name == "cmac_subkeys":
        values = _edge_values(rng)
        for at in range(0, len(values) - k + 1, k):
            ls = values[at:at + k]
            memory = {"l": bytearray(b"".join(ls)), "out": bytearray(2 * nbytes)}
            run(program, memory)
            subkeys = [gf128_reference.cmac_subkeys(l_block) for l_block in ls]
            assert bytes(memory["out"]) == b"".join(k1 for k1, _ in subkeys) + b"".join(k2 for _, k2 in subkeys)
        return
    convention = program.info["convention"]
    blocks = program.info["batch_blocks"]
    for tweak in _edge_values(rng):
        sequence = gf128_reference.sequence(convention, tweak, blocks + k)
        given = tweak if program.info["input"] == "tweak" else b"".join(sequence[:k])
        memory = {"tweak": bytearray(given), "out": bytearray(nbytes * (blocks // k + 1))}
        run(program, memory)
        assert bytes(memory["out"]) == b"".join(sequence), (program.name, tweak.hex())


@pytest.mark.parametrize("program", list(_programs()), ids=lambda p: f"{p.name}_{p.bits}")
def test_abstract_programs_compute_the_references(program):
    _check(program, random.Random(program.name + str(program.bits)))


def test_rfc_4493_subkeys_from_the_program():
    program = gf128_double.cmac_subkeys_program(128)
    memory = {"l": bytearray(RFC4493_L), "out": bytearray(32)}
    run(program, memory)
    assert bytes(memory["out"]) == RFC4493_K1 + RFC4493_K2


def test_batches_chain():
    """A batch started from the register the batch before carried continues
    the sequence: two batches of 2 registers are one of 4."""
    convention, bits = gf128.GB, 512
    tweak = random.Random("chain").randbytes(16)
    first = gf128_double.tweak_program(bits, 2, convention, "tweak")
    later = gf128_double.tweak_program(bits, 2, convention, "register")
    memory = {"tweak": bytearray(tweak), "out": bytearray(3 * 64)}
    run(first, memory)
    carried = bytes(memory["out"][128:])
    memory2 = {"tweak": bytearray(carried), "out": bytearray(3 * 64)}
    run(later, memory2)
    whole = gf128_reference.sequence(convention.name, tweak, 20)
    assert bytes(memory["out"][:128]) + bytes(memory2["out"]) == b"".join(whole)


def test_refuses_what_it_cannot_build():
    lay = gf128_double.layout(gf128.IEEE)
    from gen.ir import Builder
    b = Builder("t", 128, ("a",))
    with pytest.raises(ValueError, match="1 <= m <= 4"):
        gf128_double.times_x_power(b, b.load("a", 0), 5, lay)
    with pytest.raises(ValueError, match="neither 'tweak' nor 'register'"):
        gf128_double.tweak_program(128, 1, gf128.IEEE, "counter")


def test_programs_use_no_branch_compare_or_memory_lookup():
    """Constant time by construction: the abstract programs read their input
    once, at constant offsets, and use only register operations."""
    for program in _programs():
        opcodes = {s.opcode for s in program.walk() if hasattr(s, "opcode")}
        assert opcodes <= {"load", "bcast128", "store", "const", "xor", "and", "or", "shl", "shr", "lookup16",
                           "blocks128"}, (program.name, opcodes)
        assert not ct_check.check(program)


@pytest.mark.parametrize("target", SIMD_TARGETS.values(), ids=lambda t: t.name)
def test_every_target_lowers_them_and_keeps_their_meaning(target):
    """For each program at the target's width: lowered, the interpreter gives
    the references' values, the static constant-time check passes, and the
    target's emitter writes it (C statements, or the twin's assembly)."""
    rng = random.Random(target.name)
    for program in _programs():
        if program.bits != target.bits:
            continue
        lowered = target.lower(program)
        assert not ct_check.check(lowered), (target.name, program.name)
        _check(lowered, rng)
        if target.form == "c":
            assert target.c_body(lowered)
        else:
            assert assembly_file("/* test */", [(f"{program.name}_asm", lowered)], target, "gf128_test")


# One target per width and architecture, each with its assembly twin: the
# compiled C and assembly against the interpreter (native x86, AArch64 under qemu).
COMPILED = ("ssse3_aesni", "avx2_vaes", "avx512_gfni", "neon_aes", "neon_sm4")


@pytest.mark.parametrize("name", [n for base in COMPILED for n in (base, f"{base}_asm")])
def test_compiled_programs_compute_the_references(name, tmp_path):
    """The tweak programs of both conventions (2 registers, from one tweak)
    and CMAC's subkeys, lowered, compiled and run, give the references' bytes."""
    target = SIMD_TARGETS[name]
    if why_not_runnable(target):
        pytest.skip(why_not_runnable(target))
    rng = random.Random(name)
    nbytes = target.bits // 8
    k = target.bits // 128
    for convention in gf128.XTS_CONVENTIONS:
        program = target.lower(gf128_double.tweak_program(target.bits, 2, convention))
        tweak = rng.randbytes(16)
        got = run_compiled(program, target, {"tweak": tweak, "out": bytes(3 * nbytes)}, "out", tmp_path)
        assert got == b"".join(gf128_reference.sequence(convention.name, tweak, 3 * k)), (name, convention.name)
    ls = [RFC4493_L] + [rng.randbytes(16) for _ in range(k - 1)]
    program = target.lower(gf128_double.cmac_subkeys_program(target.bits))
    got = run_compiled(program, target, {"l": b"".join(ls), "out": bytes(2 * nbytes)}, "out", tmp_path)
    subkeys = [gf128_reference.cmac_subkeys(l_block) for l_block in ls]
    assert got == b"".join(k1 for k1, _ in subkeys) + b"".join(k2 for _, k2 in subkeys)
    assert got[:16] == RFC4493_K1
