"""The static constant-time check of lowered programs (gen/ir/ct_check.py):
every kernel program the emitters write, for every target of every
architecture, passes it; deliberately leaky programs fail it, each for the
reason it leaks."""

from dataclasses import dataclass

import pytest

from gen import choices, cli
from gen.backends import SIMD_TARGETS, kernels
from gen.emit.bodies import KernelBodies
from gen.emit import gf128_files, ublock_files
from gen.ir import Builder, ct_check
from gen.ir.opcodes import ABSTRACT, TARGET_LEVEL
from gen.ir.program import Assign, Index, Loop, Op, Value
from gen.ir.semantics import private_ops

# Every backend-private op, reviewed for constant time: the one instruction
# it is (whose timing does not depend on its operands on the CPUs these
# targets run on).  A backend that registers a new op fails
# test_every_private_op_was_reviewed until it is reviewed and listed here.
REVIEWED_PRIVATE_OPS = {
    "gf2p8affine": "x86 GF2P8AFFINEQB",
    "gf2p8affineinv": "x86 GF2P8AFFINEINVQB",
    "aesenclast": "x86 AESENCLAST / VAESENCLAST",
    "ternlog": "x86 VPTERNLOGD",
    "blendv": "x86 PBLENDVB / VPBLENDVB (a register blend, not a branch)",
    "permute2b": "x86 VPERMI2B (a lookup in two registers)",
    "permute2q": "x86 VPERMI2Q (qwords picked by a constant index)",
    "rotl_native": "x86 VPROLD / VPROLQ",
    "shld_native": "x86 VPSHLDD / VPSHLDW",
    "aese": "AArch64 AESE",
    "sli": "AArch64 SLI",
    "bsl": "AArch64 BSL (a register select, not a branch)",
    "sm4e": "AArch64 SM4E (four SM4 rounds in one instruction)",
    "eor3": "AArch64 EOR3 (a three-way XOR)",
    "rev": "AArch64 REV16 / REV32 / REV64 (a fixed byte permutation)",
    "trn": "AArch64 TRN1 / TRN2 (a fixed element interleave)",
    "rbit": "AArch64 RBIT on bytes (a fixed bit permutation)",
}

CIPHERS = ("sm4", "zuc", "ublock")
KERNELS = [(cipher, strategy, target) for cipher in CIPHERS for strategy, target in kernels(cipher)]
# What gen ct-check goes over: the kernels and, beside them, uBlock's key schedules.
CHECKED = [(cipher, strategy, target) for cipher in CIPHERS for strategy, target in cli.checked_kernels(cipher)]


def expected_programs(cipher, strategy):
    """How many functions each kernel file holds: SM4 a block kernel, its
    xor_into_stores form, its counter form, its whitened form (XTS's blocks),
    GCM's stitched form (gen/ir/keystream.py, gen/ir/stitch.py), the one-block
    form, the multi-key form but on rounds4 (gen/emit/sm4_files.py), GHASH's step
    and XTS's tweaks (two rules, two starts: gen/emit/gf128_files.py); ZUC
    NEA6's extra initialisation rounds, init, keystream, keystream XORed into the messages, the one-round
    keystream word and the two MAC folds (gen/kernels/zuc_mac.py); uBlock per variant both directions, the fused
    encryption and the counter form, with CTR's counter pairs for the
    strategies whose counter form is their own, and the one-block program
    in both directions."""
    if cipher == "sm4":
        return 5 + 1 + 2 * len(gf128_files.TWEAK_STARTS) + 1 + (strategy != "rounds4")
    if cipher == "zuc":
        return 7
    per_variant = 4 + (1 if strategy in ublock_files.COUNTER_FORMS else 0) + 2
    return per_variant * len(ublock_files.variants())


def names(violations):
    return [v.reason for v in violations]


# ---- every emitted kernel program ------------------------------------------

def test_every_architecture_is_covered():
    arches = {SIMD_TARGETS[target].arch.name for _, _, target in KERNELS}
    assert arches == {"x86_64", "aarch64"}


@pytest.mark.parametrize("cipher,strategy,target", KERNELS, ids=[f"{c}_{s}_{t}" for c, s, t in KERNELS])
def test_emitted_kernel_programs_are_constant_time(cipher, strategy, target):
    programs = cli.emitted_programs(cipher, strategy, SIMD_TARGETS[target], choices.load())
    assert len(programs) == expected_programs(cipher, strategy)
    assert any(p.name.endswith("_xor") for p in programs)  # the fused CTR form is checked too
    if cipher == "zuc":  # and both MAC folds, each with its carry-less products
        folds = [p for p in programs if p.name.startswith("zuc_mac_fold")]
        assert len(folds) == 2 and all(any(getattr(s, "opcode", None) == "clmul" for s in p.walk()) for p in folds)
    for program in programs:
        # Not vacuous: every kernel reads memory, so the analysis has secrets to follow.
        assert ct_check.secret_sources(program), program.name
        assert ct_check.check(program) == [], program.name


def test_recording_leaves_the_emitter_as_it_was():
    original = KernelBodies.__call__
    cli.emitted_programs("sm4", "wordslice", SIMD_TARGETS["ssse3_aesni"], choices.load())
    assert KernelBodies.__call__ is original


# ---- the allow-list ----------------------------------------------------------

def test_every_private_op_was_reviewed():
    assert set(private_ops()) == set(REVIEWED_PRIVATE_OPS)


def test_allow_list_is_target_level_and_private_ops_never_abstract():
    allowed = ct_check.constant_time_opcodes()
    assert allowed == TARGET_LEVEL | set(REVIEWED_PRIVATE_OPS)
    assert not allowed & ABSTRACT


# ---- a clean program passes, and the taint follows the data ----------------

def clean_program():
    b = Builder("clean", 128, ("out", "in", "key"))
    acc = b.var("acc")
    mask = b.const(bytes(range(16)), "mask", "identity shuffle")
    key = b.load("key", 0, "k")
    b.assign(acc, key)
    with b.loop("r", 4) as r:
        block = b.load("in", Index(0, ((r, 16),)), "blk")
        mixed = b.lookup16(b.xor(block, acc), mask, "mix")
        b.assign(acc, mixed)
        b.store("out", Index(0, ((r, 16),)), mixed)
    return b.finish(), mask, key


def test_a_clean_program_passes():
    program, _, _ = clean_program()
    assert ct_check.check(program) == []


def test_taint_marks_loaded_values_and_what_follows_them_but_not_constants():
    program, mask, key = clean_program()
    taint = ct_check.secret_sources(program)
    assert mask not in taint
    assert taint[key] == "body[1]"  # the load of the key, after the hoisted constant
    acc = program.state[0]
    assert acc in taint
    ops = [s for s in program.walk() if isinstance(s, Op) and s.result is not None]
    assert all(op.result in taint for op in ops if op.opcode != "const")


# ---- deliberately leaky programs fail ---------------------------------------

def leaky(build):
    """A 128-bit program over (out, in, table): `build(builder, secret)` adds
    the leak after one load of secret data."""
    b = Builder("leaky", 128, ("out", "in", "table"))
    secret = b.load("in", 0, "secret")
    build(b, secret)
    return b.finish()


def test_a_load_indexed_by_a_loaded_value_fails():
    def build(b, secret):  # the Builder refuses this, so the op is made by hand: that is the point
        looked_up = Value(128, "looked_up")
        b.body.append(Op("load", looked_up, (), {"param": "table", "index": Index(0, ((secret.name, 1),))}))
        b.store("out", 0, looked_up)
    violations = ct_check.check(leaky(build))
    assert len(violations) == 1
    assert violations[0].position == "body[1]"
    assert "index term 'secret' is not the variable of a loop around it" in violations[0].reason


def test_an_index_that_is_a_value_names_the_secret_it_comes_from():
    def build(b, secret):
        b.body.append(Op("load", Value(128, "t"), (), {"param": "table", "index": secret}))
    [violation] = ct_check.check(leaky(build))
    assert "index is %secret (secret: derived from the memory read at body[0])" in violation.reason
    assert "load() table+%secret" in violation.statement


def test_a_gather_made_of_a_load_with_a_value_operand_fails():
    def build(b, secret):
        b.body.append(Op("load", Value(128, "t"), (secret,), {"param": "table", "index": Index(0)}))
    [violation] = ct_check.check(leaky(build))
    assert "its address would depend on a value" in violation.reason


def test_a_row_or_an_unknown_address_attribute_from_a_value_fails():
    def build(b, secret):
        b.body.append(Op("store", None, (secret,), {"param": "out", "index": Index(0), "row": secret}))
        b.body.append(Op("load", Value(128, "t"), (), {"param": "table", "index": Index(0), "offsets": secret}))
    reasons = names(ct_check.check(leaky(build)))
    assert any(r.startswith("row is %secret (secret") for r in reasons)
    assert any(r.startswith("unknown address attribute offsets=%secret") for r in reasons)


def test_a_secret_carried_by_a_state_variable_is_still_secret():
    def build(b, secret):
        carried = b.var("carried")
        b.assign(carried, b.xor(secret, b.const(bytes(16), "zero", "zero"), "mixed"))
        b.body.append(Op("load", Value(128, "t"), (), {"param": "table", "index": carried}))
    [violation] = ct_check.check(leaky(build))
    assert "%carried (secret: derived from the memory read at body[1])" in violation.reason


def test_a_loop_index_outside_its_loop_fails():
    def build(b, secret):
        with b.loop("i", 2):
            b.store("out", Index(0, (("i", 16),)), secret)
        b.store("out", Index(0, (("i", 16),)), secret)
    [violation] = ct_check.check(leaky(build))
    assert violation.position == "body[2]"
    assert "index term 'i' is not the variable of a loop around it" in violation.reason


def test_a_loop_counted_by_a_value_fails():
    def build(b, secret):
        b.body.append(Loop("r", secret, [Op("store", None, (secret,), {"param": "out", "index": Index(0)})]))
    [violation] = ct_check.check(leaky(build))
    assert violation.position == "body[1]"
    assert violation.reason == "loop count %secret (secret: derived from the memory read at body[0]) is not a constant"


def test_an_unlowered_sbox8_fails():
    def build(b, secret):
        b.store("out", 0, b.sbox8(secret, range(256), "sub"))
    [violation] = ct_check.check(leaky(build))
    assert violation.reason.startswith("abstract op sbox8 left unlowered (on secret operands): "
                                       "a table lookup in memory")


def test_an_unknown_opcode_fails():
    def build(b, secret):
        b._emit("vpgatherdd", (secret,), "gathered")
    [violation] = ct_check.check(leaky(build))
    assert violation.reason == "opcode 'vpgatherdd' is not on the constant-time allow-list (on secret operands)"


def test_an_opcode_outside_a_given_allow_list_fails():
    program, _, _ = clean_program()
    reasons = names(ct_check.check(program, allowed=TARGET_LEVEL - {"lookup16"}))
    assert reasons == ["opcode 'lookup16' is not on the constant-time allow-list (on secret operands)"]


def test_a_shift_by_a_value_fails():
    def build(b, secret):
        b.body.append(Op("shl", Value(128, "s"), (secret,), {"n": secret, "lane": 32}))
    [violation] = ct_check.check(leaky(build))
    assert violation.reason.startswith("attribute n is %secret (secret")


@dataclass
class Branch:
    """A statement kind the IR does not have: an if on a value."""
    condition: Value
    body: list


def test_a_branch_fails():
    def build(b, secret):
        b.body.append(Branch(secret, []))
    [violation] = ct_check.check(leaky(build))
    assert violation.reason.startswith("unknown statement kind Branch")


def test_memory_outside_the_parameters_fails():
    def build(b, secret):
        b.body.append(Op("store", None, (secret,), {"param": "elsewhere", "index": Index(0)}))
    [violation] = ct_check.check(leaky(build))
    assert violation.reason == "'elsewhere' is neither a parameter nor a scratch buffer"


def test_an_assignment_of_a_non_value_fails():
    def build(b, secret):
        b.body.append(Assign(b.var("v"), 3))
    [violation] = ct_check.check(leaky(build))
    assert "copy a value into a state variable" in violation.reason


# ---- gen ct-check --------------------------------------------------------------

def test_gen_ct_check_fails_on_a_leaky_program_and_says_where(monkeypatch, capsys):
    def build(b, secret):
        b.store("out", 0, b.sbox8(secret, range(256), "sub"))
    program = leaky(build)
    monkeypatch.setattr(cli, "emitted_programs", lambda *args: [program])
    assert cli.main(["ct-check"]) == 1
    out, err = capsys.readouterr()
    assert f"{len(CHECKED)} failed" in out
    assert "sm4_byteslice_avx512_gfni, program 1 (leaky): body[1]: %sub = sbox8(%secret): abstract op sbox8" in err


def test_gen_ct_check_passes_clean_programs(monkeypatch, capsys):
    program, _, _ = clean_program()
    monkeypatch.setattr(cli, "emitted_programs", lambda *args: [program])
    assert cli.main(["ct-check"]) == 0
    out, _ = capsys.readouterr()
    x86 = sum(SIMD_TARGETS[t].arch.name == "x86_64" for _, _, t in CHECKED)
    assert f"{len(CHECKED)} kernel programs ({x86} x86_64, {len(CHECKED) - x86} aarch64)" in out
    assert ("beside the kernels among them: sm4_key_schedule_ssse3 (1), sm4_key_schedule_neon (1), "
            "sm4_gf128_ssse3_aesni (1), sm4_gf128_neon_aes (1), "
            "ublock_key_schedule_ssse3 (1), ublock_key_schedule_neon (1)") in out


def test_gen_ct_check_fails_when_it_sees_no_program(monkeypatch, capsys):
    monkeypatch.setattr(cli, "emitted_programs", lambda *args: [])
    assert cli.main(["ct-check"]) == 1
    assert "no program recorded" in capsys.readouterr().err
