"""harness/mca_model.py on ZUC's two keystream-block shapes: the rolled block
(one round per loop iteration, the LFSR in a ring) must be modelled by its
loop times the rounds, the unrolled one as straight-line code, and a C file
whose shape disagrees with its assembly must be refused."""

import json
import os
import re
import shutil
import sys

import pytest

from gen import choices
from gen.backends import SIMD_TARGETS

from conftest import ROOT

sys.path.insert(0, str(ROOT / "harness"))
import mca_core  # noqa: E402
import mca_model  # noqa: E402
import target_manifest  # noqa: E402

ROLLED_C = """\
#define ZUC_LANES_AVX2_VAES_LANES 8
static void zuc_lanes_avx2_vaes_keystream_block(uint32_t *state_words, uint8_t *const out[])
{
    KC_MCA_BEGIN("keystream_block");
    g0r1_1 = g0r1;
    for (size_t r = 0; r < 16; r++) {
        KC_MCA_BEGIN("loop_r");
        g0r1_1 = f(g0r1_1);
        KC_MCA_END("loop_r");
    }
    KC_MCA_END("keystream_block");
}
"""

UNROLLED_C = """\
#define ZUC_LANES_AVX2_VAES_LANES 8
static void zuc_lanes_avx2_vaes_init_rounds(uint32_t *state_words)
{
    for (size_t r = 0; r < 32; r++) {
        KC_MCA_BEGIN("loop_r");
        KC_MCA_END("loop_r");
    }
}
static void zuc_lanes_avx2_vaes_keystream_block(uint32_t *state_words, uint8_t *const out[])
{
    KC_MCA_BEGIN("keystream_block");
    x = f(x);
    KC_MCA_END("keystream_block");
}
"""

# A rolled keystream_block as GCC compiles it: the whole body marked, the
# round loop inside the marks.
ROLLED_ASM = """\
\t.type\tzuc_lanes_avx2_vaes_keystream_block, @function
zuc_lanes_avx2_vaes_keystream_block:
\t# LLVM-MCA-BEGIN keystream_block
\tvmovdqu\t(%rdi), %ymm0
\txorl\t%eax, %eax
.L4:
\t# LLVM-MCA-BEGIN loop_r
\tvpaddd\t%ymm0, %ymm0, %ymm1
\tvpxor\t%ymm1, %ymm0, %ymm0
\t# LLVM-MCA-END loop_r
\taddq\t$1, %rax
\tcmpq\t$16, %rax
\tjne\t.L4
\tvmovdqu\t%ymm0, (%rsi)
\t# LLVM-MCA-END keystream_block
\tvzeroupper
\tret
\t.size\tzuc_lanes_avx2_vaes_keystream_block, .-zuc_lanes_avx2_vaes_keystream_block
"""

STRAIGHT_ASM = """\
\t.type\tzuc_lanes_avx2_vaes_keystream_block, @function
zuc_lanes_avx2_vaes_keystream_block:
\t# LLVM-MCA-BEGIN keystream_block
\tvmovdqu\t(%rdi), %ymm0
\tvpxor\t%ymm0, %ymm0, %ymm0
\tvmovdqu\t%ymm0, (%rsi)
\t# LLVM-MCA-END keystream_block
\tvzeroupper
\tret
\t.size\tzuc_lanes_avx2_vaes_keystream_block, .-zuc_lanes_avx2_vaes_keystream_block
"""


def test_rolled_block_params_count_the_round_loop():
    p = mca_model.zuc_kernel_params(ROLLED_C, "lanes_avx2_vaes")
    assert (p["shape"], p["rounds"], p["rounds_per_iteration"]) == ("rolled", 16, 1)
    assert p["batch_bytes"] == 64 * 8


def test_unrolled_block_params_ignore_other_functions_loops():
    """init_rounds' loop of 32 is not the keystream block's."""
    p = mca_model.zuc_kernel_params(UNROLLED_C, "lanes_avx2_vaes")
    assert (p["shape"], p["rounds"]) == ("unrolled", 1)


def test_round_loop_must_divide_the_block():
    with pytest.raises(ValueError, match="does not divide"):
        mca_model.zuc_kernel_params(ROLLED_C.replace("r < 16", "r < 5"), "lanes_avx2_vaes")


def test_rolled_job_models_loop_body_and_rest():
    [(cut, params, base)] = mca_model.zuc_jobs("lanes_avx2_vaes", ROLLED_C, ROLLED_ASM)
    assert cut["loop"] and base["shape"] == "rolled" and base["rounds"] == 16
    assert any("vpaddd" in line for line in cut["body"])
    assert not any("vpaddd" in line for line in cut["rest"])
    assert any("vmovdqu" in line for line in cut["rest"])
    assert "round loop (16 iterations)" in base["note"]


def test_shape_mismatch_between_c_and_assembly_is_refused():
    with pytest.raises(ValueError, match="rolled block, the assembly no loop"):
        mca_model.zuc_jobs("lanes_avx2_vaes", ROLLED_C, STRAIGHT_ASM)
    with pytest.raises(ValueError, match="unrolled block, the assembly a loop"):
        mca_model.zuc_jobs("lanes_avx2_vaes", UNROLLED_C, ROLLED_ASM)


def test_model_cycles_of_a_rolled_block_repeat_the_loop(monkeypatch):
    cut = mca_model.cut_kernel(ROLLED_ASM, function="zuc_lanes_avx2_vaes_keystream_block")
    params = mca_model.zuc_kernel_params(ROLLED_C, "lanes_avx2_vaes")
    monkeypatch.setattr(mca_core, "parse_mca", lambda text: [
        {"name": "loop_body", "cycles_per_iteration": 10.0}, {"name": "rest", "cycles_per_iteration": 7.0}])
    out = mca_model.model_cycles(cut, params, "znver3", mca_runner=lambda text, cpu: text)
    assert out["cycles_per_batch"] == pytest.approx(10.0 * 16 + 7.0)
    assert out["cpb"] == pytest.approx((10.0 * 16 + 7.0) / (64 * 8))


@pytest.mark.skipif(shutil.which("gcc") is None or mca_model.find_llvm_mca() is None,
                    reason="needs gcc and llvm-mca (make deps installs both)")
def test_every_generated_zuc_kernel_is_modelled():
    """The generated kernels as `make all` models them: every ZUC kernel, rolled
    or not, gets a modelled c/B on icelake-server (AArch64 ones: neoverse-v1),
    its shape read from the C."""
    generated = ROOT / "generated"
    names = sorted(p.stem[len("zuc_"):] for p in (generated / "src").glob("zuc_lanes*.c"))
    assert names
    shapes = set()
    for name in names:
        arm = mca_model.arch_of_target(mca_model.split_impl(name)[1]) is mca_model.AARCH64
        [rec] = mca_model.model_impl(name, ["neoverse-v1" if arm else "icelake-server"],
                                     str(generated))
        assert rec.get("error") is None and rec["cpb"] > 0, (name, rec)
        expected = rec["rest_cycles"] + rec["loop_cycles_per_iteration"] * rec["iterations_per_batch"]
        assert rec["cycles_per_batch"] == pytest.approx(expected)
        assert rec["iterations_per_batch"] == (16 if rec["shape"] == "rolled" else 1)
        shapes.add(rec["shape"])
    assert shapes == {"rolled", "unrolled"}


# --------------------------------------------------------------------------
# AArch64: cutting, the operation-count bound, a compiled fixture
# --------------------------------------------------------------------------

# GCC-style AArch64 assembly: "//" comments and markers inside the round
# loop, "#" immediates, a forward cbz and a call that are not the loop.
ARM_ASM = """\
\t.type\tsm4_byteslice_neon_x_batch, %function
sm4_byteslice_neon_x_batch:
.LFB1:
\t.cfi_startproc
\tldp\tq1, q0, [x1]
\tcbz\tx2, .L5
\tbl\tkc_helper
\tmov\tx3, 0
.L3:
#APP
// 14 "k.c" 1
\t// LLVM-MCA-BEGIN loop_r
// 0 "" 2
#NO_APP
\teor3\tv1.16b, v1.16b, v6.16b, v5.16b // fused by GCC
\ttbl\tv1.16b, {v1.16b}, v0.16b
\tld1r\t{v5.16b}, [x0], #4
#APP
// 22 "k.c" 1
\t// LLVM-MCA-END loop_r
// 0 "" 2
#NO_APP
\tadd\tx3, x3, #1
\tcmp\tx3, 8
\t{branch}
.L5:
\tstp\tq1, q0, [x2]
\tret
\t.cfi_endproc
\t.size\tsm4_byteslice_neon_x_batch, .-sm4_byteslice_neon_x_batch
"""


@pytest.mark.parametrize("branch", ["bne\t.L3", "b.ne\t.L3", "cbnz\tx4, .L3",
                                    "tbnz\tw3, #3, .L3", "b\t.L3", "b.cc\t.L3"])
def test_aarch64_loop_is_cut_at_its_backward_branch(branch):
    asm = ARM_ASM.replace("{branch}", branch)
    cut = mca_model.cut_kernel(asm, arch=mca_model.AARCH64)
    assert cut["function"] == "sm4_byteslice_neon_x_batch" and cut["marked"] and cut["loop"]
    assert cut["body"][0] == ".L3:" and cut["body"][-1] == "\t" + branch
    # "#" is an immediate on AArch64, "//" the comment.
    assert "\tadd\tx3, x3, #1" in cut["body"] and "\tld1r\t{v5.16b}, [x0], #4" in cut["body"]
    assert "\teor3\tv1.16b, v1.16b, v6.16b, v5.16b" in cut["body"]
    assert cut["rest"] == [".LFB1:", "\tldp\tq1, q0, [x1]", "\tcbz\tx2, .L5", "\tbl\tkc_helper",
                           "\tmov\tx3, 0", ".L5:", "\tstp\tq1, q0, [x2]"]


def test_aarch64_forward_branch_or_call_is_no_loop():
    """Without the backward branch, the cbz forward and the bl are not loops:
    the marked span is the body, straight-line."""
    asm = ARM_ASM.replace("\t{branch}\n", "").replace("bl\tkc_helper", "bl\t.L3")
    cut = mca_model.cut_kernel(asm, arch=mca_model.AARCH64)
    assert not cut["loop"] and cut["regions"] == 1
    assert not any("add\tx3" in line for line in cut["body"])


def test_aarch64_hash_markers_are_accepted_too():
    asm = ARM_ASM.replace("{branch}", "bne\t.L3").replace("// LLVM-MCA", "# LLVM-MCA")
    cut = mca_model.cut_kernel(asm, arch=mca_model.AARCH64)
    assert cut["marked"] and cut["body"][-1] == "\tbne\t.L3"


def test_x86_reading_of_aarch64_text_finds_no_loop():
    """The architecture matters: x86's jumps and "#" comments misread it."""
    asm = ARM_ASM.replace("{branch}", "bne\t.L3")
    cut = mca_model.cut_kernel(asm)
    assert not cut["loop"]
    assert "\tadd\tx3, x3," in cut["rest"]  # the immediate cut off as a comment


def test_targets_choose_the_architecture_and_flags():
    """Each target's architecture and flags are the backend's, through
    generated/targets.json."""
    for name, target in SIMD_TARGETS.items():
        assert mca_model.arch_of_target(name).name == target.arch.name
        assert mca_model.target_flags(name, str(ROOT / "generated")) == list(target.cflags)
    with pytest.raises(ValueError, match="unknown target 'neon_whatever'"):
        mca_model.arch_of_target("neon_whatever")


def test_vector_ops_are_the_fp_asimd_instructions():
    vector = ["\teor\tv0.16b, v1.16b, v2.16b", "\tsm4e\tv0.4s, v24.4s", "\tmov\tv0.d[1], x8",
              "\tdup\tv12.4s, v14.s[0]", "\tfmov\td0, x1", "\ttbl\tv0.16b, { v16.16b, v17.16b }, v1.16b",
              "\tumov\tw0, v1.s[1]", "\tmovi\tv11.16b, #0x40"]
    other = ["\tld1\t{ v0.16b, v1.16b }, [x2], #32", "\tst1\t{ v0.16b }, [x1], #16",
             "\tldr\tq0, [x0, #16]", "\tstp\tq1, q0, [x2]", "\tsubs\tx6, x6, #0x1",
             "\tb.ne\t.Lxb84", "\tadrp\tx5, .LC0", ".Lxd1c:", "\tadd\tx0, x0, #4"]
    assert [mca_core.is_vector_op(l) for l in vector] == [True] * len(vector)
    assert [mca_core.is_vector_op(l) for l in other] == [False] * len(other)
    assert mca_core.vector_ops(vector + other) == len(vector)


# llvm-19's report of two regions on neoverse-n1 (-instruction-info=false),
# the resource pressure kept; its "by instruction" table cut short.
MCA_ARM = """\
[0] Code Region - loop_body

Iterations:        100
Instructions:      400
Total Cycles:      1000
Total uOps:        400

Dispatch Width:    8
uOps Per Cycle:    0.40
IPC:               0.40
Block RThroughput: 2.0


Resources:
[0]   - N1UnitB
[1.0] - N1UnitD
[1.1] - N1UnitD
[2]   - N1UnitV0
[3]   - N1UnitV1


Resource pressure per iteration:
[0]    [1.0]  [1.1]  [2]    [3]    
1.00    -      -     3.00   1.00   

Resource pressure by instruction:
[0]    [1.0]  [1.1]  [2]    [3]    Instructions:
 -      -      -     1.00    -     sm4e	v0.4s, v24.4s

[1] Code Region - rest

Iterations:        100
Instructions:      200
Total Cycles:      300
Total uOps:        200

Dispatch Width:    8
uOps Per Cycle:    0.67
IPC:               0.67
Block RThroughput: 1.0


Resources:
[0]   - N1UnitB
[1.0] - N1UnitD
[1.1] - N1UnitD
[2]   - N1UnitV0
[3]   - N1UnitV1


Resource pressure per iteration:
[0]    [1.0]  [1.1]  [2]    [3]    
 -     0.50   0.50   0.50   1.50   
"""


def test_parse_mca_reads_the_resource_pressure():
    body, rest = mca_core.parse_mca(MCA_ARM)
    assert body["cycles_per_iteration"] == pytest.approx(10.0)
    assert body["pressure"] == {"N1UnitB": 1.0, "N1UnitD": 0.0, "N1UnitV0": 3.0, "N1UnitV1": 1.0}
    assert rest["pressure"]["N1UnitV1"] == pytest.approx(1.5)
    assert rest["cycles_per_iteration"] == pytest.approx(3.0)


def test_bound_arithmetic_of_an_aarch64_batch():
    """4 vector ops x 8 iterations + 2 in the rest = 34 per 64 bytes, over
    N1's 2 pipes; busiest pipe V0: 3 x 8 + 0.5 = 24.5 cycles per 64 bytes."""
    cut = {"loop": True, "body": [".L3:", "\tsm4e\tv0.4s, v24.4s", "\tsm4e\tv1.4s, v24.4s",
                                  "\teor\tv2.16b, v2.16b, v3.16b", "\trev32\tv0.16b, v0.16b",
                                  "\tld1\t{ v4.16b }, [x0], #16", "\tsubs\tx6, x6, #1",
                                  "\tb.ne\t.L3"],
           "rest": ["\tst1\t{ v0.16b }, [x1]", "\tmov\tv0.d[1], x8", "\tmovi\tv1.16b, #0x40"]}
    params = {"rounds": 8, "rounds_per_iteration": 1, "batch_bytes": 64}
    m = mca_model.model_cycles(cut, params, "neoverse-n1", mca_runner=lambda text, cpu: MCA_ARM,
                               arch=mca_model.AARCH64)
    assert m["cycles_per_batch"] == pytest.approx(10.0 * 8 + 3.0)
    assert m["vector_ops_per_batch"] == 4 * 8 + 2
    assert m["vector_pipes"] == 2
    assert m["bound_cpb"] == pytest.approx(34 / 64 / 2)
    assert m["pipe_bound_cpb"] == pytest.approx((3.0 * 8 + 0.5) / 64)
    assert m["cpb_over_bound"] == pytest.approx((83.0 / 64) / (34 / 64 / 2))
    # x86 records carry no bound.
    x86 = mca_model.model_cycles(cut, params, "znver3", mca_runner=lambda text, cpu: MCA_ARM)
    assert "bound_cpb" not in x86


def test_mca_command_per_architecture():
    arm = mca_core.mca_command("llvm-mca-19", "neoverse-n2", "k.s", arch=mca_model.AARCH64)
    assert "-mtriple=aarch64" in arm and "-mattr=+aes,+sha2,+sha3,+sm4" in arm
    assert "-resource-pressure=false" not in arm  # the busiest-pipe bound reads it
    n1 = mca_core.mca_command("llvm-mca-19", "neoverse-n1", "k.s", arch=mca_model.AARCH64)
    assert "-mattr=+aes,+sha2" in n1  # N1's crypto has no SM4 or SHA-3
    x86 = mca_core.mca_command("llvm-mca-19", "znver3", "k.s")
    assert "-mtriple=x86_64-unknown-linux-gnu" in x86 and not any("mattr" in a for a in x86)
    err = ("k.s:50:2: error: instruction requires: sm4\n        sm4e    v0.4s, v24.4s\n"
           "k.s:51:2: error: instruction requires: sm4\n")
    assert mca_core.refusal(err, "neoverse-n1") == "neoverse-n1 lacks sm4: not modelled"


def test_gcc_byte_movi_is_rewritten_for_llvm():
    """GCC's sign-extended byte immediate becomes the byte LLVM wants; other
    forms stay as they are."""
    fix = mca_core.aarch64_for_llvm
    assert fix("movi\tv2.16b, 0xfffffffffffffff0") == "movi\tv2.16b, 0xf0"
    assert fix("movi\tv1.8b, -1") == "movi\tv1.8b, 0xff"
    for same in ("movi\tv2.16b, 0x40", "movi\tv2.4s, 0xf0, lsl 8", "eor\tv0.16b, v1.16b, v2.16b"):
        assert fix(same) == same
    cut = mca_model.cut_kernel(ARM_ASM.replace("{branch}", "bne\t.L3").replace(
        "\ttbl\t", "\tmovi\tv7.16b, 0xfffffffffffffff0\n\ttbl\t"), arch=mca_model.AARCH64)
    assert "\tmovi\tv7.16b, 0xf0" in cut["body"]


HAVE_ARM = (shutil.which("aarch64-linux-gnu-gcc") is not None
            and mca_model.find_llvm_mca() is not None)
NEEDS_ARM = pytest.mark.skipif(not HAVE_ARM, reason="needs aarch64-linux-gnu-gcc and llvm-mca-19 "
                                                    "(make deps installs both)")


@NEEDS_ARM
def test_llvm_mca_vector_pipes_match_the_table():
    """The pipes the bound divides by are the FP/ASIMD units of llvm-mca's
    own Neoverse models."""
    for cpu, pipes in mca_core.VECTOR_PIPES.items():
        report = mca_core.run_mca("\teor\tv0.16b, v1.16b, v2.16b\n", cpu, arch=mca_model.AARCH64)
        (region,) = mca_core.parse_mca(report)
        units = [u for u in region["pressure"] if mca_core.VECTOR_UNIT.search(u)]
        assert len(units) == pipes, (cpu, units)


# A toy kernel with the generated files' conventions on AArch64: "//"
# markers inside a round loop that GCC must keep (unroll 1).
ARM_TOY_C = """\
#include <arm_neon.h>
#include <stdint.h>
#ifdef KC_MCA_MARKERS
#define KC_MCA_BEGIN(n) __asm__ volatile("// LLVM-MCA-BEGIN " n ::: "memory")
#define KC_MCA_END(n) __asm__ volatile("// LLVM-MCA-END " n ::: "memory")
#endif
#define SM4_BYTESLICE_{TARGET}_BATCH_BLOCKS 8
#define SM4_BYTESLICE_{TARGET}_ROUNDS_PER_ITERATION 4
void sm4_byteslice_{target}_batch(const uint8_t *rk, const uint8_t *in, uint8_t *out)
{
    uint8x16_t a = vld1q_u8(in), b = vld1q_u8(in + 16);
#pragma GCC unroll 1
    for (int r = 0; r < 8; r++) {
        KC_MCA_BEGIN("loop_r");
        for (int j = 0; j < 4; j++) {
            uint8x16_t k = vdupq_n_u8(rk[4 * r + j]);
            uint8x16_t t = {MIX};
            t = vqtbl1q_u8(t, b);
            t = vaeseq_u8(t, k);
            a = b; b = t;
        }
        KC_MCA_END("loop_r");
    }
    vst1q_u8(out, a); vst1q_u8(out + 16, b);
}
"""


def arm_toy(tmp_path, target, mix):
    src = tmp_path / "src"
    src.mkdir(exist_ok=True)
    (tmp_path / "include").mkdir(exist_ok=True)
    text = (ARM_TOY_C.replace("{TARGET}", target.upper()).replace("{target}", target)
            .replace("{MIX}", mix))
    (src / f"sm4_byteslice_{target}.c").write_text(text)
    shutil.copy(ROOT / "generated" / "targets.json", tmp_path / "targets.json")
    return str(tmp_path)


@NEEDS_ARM
def test_aarch64_fixture_compiled_cut_and_modelled(tmp_path):
    gen = arm_toy(tmp_path, "neon_aes", "veorq_u8(veorq_u8(a, k), vshlq_n_u8(b, 3))")
    recs = mca_model.model_impl("byteslice_neon_aes", target_manifest.load().models_of("aarch64"), gen)
    assert [r["cpu_model"] for r in recs] == ["neoverse-n1", "neoverse-n2", "neoverse-v1"]
    asm = mca_model.compile_to_asm(str(tmp_path / "src" / "sm4_byteslice_neon_aes.c"),
                                   ["-march=armv8-a+crypto"], [], "aarch64-linux-gnu-gcc")
    cut = mca_model.cut_kernel(asm, arch=mca_model.AARCH64)
    # The loop kept: from its label to GCC's conditional branch back to it.
    assert cut["loop"] and cut["marked"] and cut["body"][0].endswith(":")
    label = cut["body"][0][:-1]
    assert re.match(r"^\t(b\.?ne|bcc|b\.cc|bhi|cbnz\t\w+,)\s*" + re.escape(label) + "$",
                    cut["body"][-1]), cut["body"][-1]
    assert sum("aese" in l for l in cut["body"]) == 4 and not any("aese" in l for l in cut["rest"])
    assert any(l.startswith(("\tst", "\tstp")) for l in cut["rest"])
    for rec in recs:
        assert rec.get("error") is None, rec
        assert rec["arch"] == "aarch64" and rec["compiler"].startswith("aarch64-linux-gnu-gcc")
        assert rec["loop_kept"] and rec["iterations_per_batch"] == 8  # 32 rounds / 4
        assert rec["batch_bytes"] == 128
        assert rec["cycles_per_batch"] == pytest.approx(
            rec["loop_cycles_per_iteration"] * 8 + rec["rest_cycles"])
        pipes = mca_core.VECTOR_PIPES[rec["cpu_model"]]
        assert rec["bound_cpb"] == pytest.approx(rec["vector_ops_per_batch"] / 128 / pipes)
        assert rec["bound_cpb"] <= rec["pipe_bound_cpb"] <= rec["cpb"] < 50


@NEEDS_ARM
def test_aarch64_kernel_with_sha3_is_refused_on_n1(tmp_path):
    gen = arm_toy(tmp_path, "neon_sha3", "veor3q_u8(a, k, vshlq_n_u8(b, 3))")
    n1, n2 = mca_model.model_impl("byteslice_neon_sha3", ["neoverse-n1", "neoverse-n2"], gen)
    assert n1["cpb"] is None and n1["error"] == "neoverse-n1 lacks sha3: not modelled"
    assert n2.get("error") is None and n2["cpb"] > 0


# --------------------------------------------------------------------------
# The Linux kernel's SM4 as modelled peers
# --------------------------------------------------------------------------

import linux_peers  # noqa: E402

# llvm-objdump-19's listing of a counted inner loop inside an outer pass.
OBJDUMP = """\

k.o:\tfile format elf64-littleaarch64

Disassembly of section .text:

0000000000000000 <f>:
       0:      \tsubs\tw3, w3, #0x8
       4:      \tb.mi\t0x20 <f+0x20>
       8:      \tmov\tx6, #0x8                // =8
       c:      \tld1\t{ v14.4s }, [x0], #16
      10:      \tsubs\tx6, x6, #0x1
      14:      \tsm4e\tv0.4s, v24.4s
      18:      \tb.ne\t0xc <f+0xc>
      1c:      \tb\t0x0 <f>
      20:      \tret
"""


def test_objdump_listing_becomes_assembly_with_labels():
    asm = linux_peers.objdump_to_asm(OBJDUMP)
    lines = mca_model.functions(asm)["f"]
    assert lines[0] == ".Lx0:" and ".Lxc:" in lines and ".Lx20:" in lines
    assert "\tb.ne\t.Lxc" in lines and "\tb\t.Lx0" in lines and "\tb.mi\t.Lx20" in lines
    assert "\tmov\tx6, #0x8" in lines  # objdump's "// =8" dropped
    assert sorted(mca_model.loops(lines, mca_model.AARCH64)) == [(0, 9), (4, 8)]
    assert linux_peers.trip_count(lines, (4, 8)) == 8
    assert linux_peers.trip_count(lines, (0, 9)) is None  # counted by w3 -= 8, not a #1 step


def test_a_cut_with_the_wrong_number_of_rounds_is_refused():
    """A pass of 8 blocks must do 32 rounds each: one SM4E (4 rounds of one
    block) in a loop of 8 does 4 per block."""
    peer = linux_peers.Peer("k.S", "f", "ecb-enc", linux_peers.SM4E, ("sm4e",), 4)
    with pytest.raises(ValueError, match="holds 4 rounds per block by its sm4e count, not 32"):
        linux_peers.cut_peer(linux_peers.objdump_to_asm(OBJDUMP), peer)
    with pytest.raises(ValueError, match="no function g"):
        linux_peers.cut_peer(linux_peers.objdump_to_asm(OBJDUMP),
                             linux_peers.Peer("k.S", "g", "ecb-enc", linux_peers.SM4E, ("sm4e",), 4))


HAVE_PEERS = (HAVE_ARM and os.path.exists(linux_peers.LINUX_TARBALL)
              and shutil.which("llvm-objdump-19") is not None)
NEEDS_PEERS = pytest.mark.skipif(not HAVE_PEERS, reason="needs linux-source-6.1, "
                                 "aarch64-linux-gnu-gcc and llvm-19 (make deps installs them)")


@pytest.fixture(scope="module")
def peer_work(tmp_path_factory):
    """The two kernel files, unpacked once for this module's tests."""
    return str(tmp_path_factory.mktemp("linux-peers"))


@NEEDS_PEERS
def test_linux_peer_loops_are_found(peer_work):
    jobs = {peer.function: (peer, cut, params)
            for peer, cut, params in linux_peers.peer_jobs(linux_peers.LINUX_TARBALL, peer_work)}
    assert set(jobs) == {"sm4_neon_crypt_blk8", "sm4_neon_ctr_enc_blk8", "sm4_ce_crypt",
                         "sm4_ce_ctr_enc"}
    # The files were unpacked under the build folder, not into the project.
    assert os.path.exists(os.path.join(peer_work, "linux-source-6.1", "arch", "arm64", "crypto",
                                       "sm4-ce-core.S"))
    count = linux_peers.count_ops
    insns = lambda lines: [l for l in lines if not l.endswith(":")]  # noqa: E731
    for function in ("sm4_ce_crypt", "sm4_ce_ctr_enc"):
        _, cut, params = jobs[function]
        # 8 blocks x 32 rounds, 4 rounds per SM4E: 64 SM4E, straight-line.
        assert count(cut["body"], ("sm4e",)) == 64 and cut["rest"] == []
        assert params["rounds"] == 1 and params["batch_bytes"] == 128
        assert cut["body"][-1].startswith("\tb\t.Lx")  # the pass's branch back
        assert count(cut["body"], ("ld1",)) == 2 and count(cut["body"], ("st1",)) == 2
    # sm4_ce_crypt: sub, tbnz, 2 ld1, 8 rev32, 64 sm4e, 8 rev64, 8 ext,
    # 8 rev32, 2 st1, cbz, b.
    assert len(insns(jobs["sm4_ce_crypt"][1]["body"])) == 104
    # CTR: 8 counters built (2 mov, adds, adc, rev64 each), 8 eor of the input.
    assert len(insns(jobs["sm4_ce_ctr_enc"][1]["body"])) == 104 + 8 * 5 + 8
    for function in ("sm4_neon_crypt_blk8", "sm4_neon_ctr_enc_blk8"):
        _, cut, params = jobs[function]
        # The round loop: 8 passes of 4 rounds; per round 8 lookups (TBL and
        # 3 TBX for each half of the 8 blocks).
        assert params["rounds"] == 8
        assert count(cut["body"], ("tbl", "tbx")) == 32 and count(cut["rest"], ("tbl", "tbx")) == 0
        assert count(cut["body"], ("tbl",)) == 8
        # ld1 of the round keys, subs, 4 rounds of 49 instructions, b.ne.
        assert len(insns(cut["body"])) == 1 + 1 + 4 * 49 + 1
        assert re.match(r"^\tb\.ne\t\.Lx[0-9a-f]+$", cut["body"][-1])
        # The rest of the pass: byte swaps and transposes in and out.
        assert count(cut["rest"], ("rev32",)) == 16 and count(cut["rest"], ("zip1", "zip2")) == 32


@NEEDS_PEERS
def test_linux_peers_modelled_by_the_same_method(peer_work):
    recs = linux_peers.peer_records(["neoverse-n1", "neoverse-n2", "neoverse-v1"], work=peer_work)
    assert len(recs) == 4 * 3
    by = {(r["function"], r["cpu_model"]): r for r in recs}
    for function in ("sm4_ce_crypt", "sm4_ce_ctr_enc"):
        n1 = by[(function, "neoverse-n1")]
        assert n1["cpb"] is None and n1["error"] == "neoverse-n1 lacks sm4: not modelled"
    for r in recs:
        assert r["impl"] == "linux" and r["modelled"] and r["cipher"] == "sm4"
        assert r["mode"] in ("ecb-enc", "ctr") and r["batch_bytes"] if r["cpb"] else True
        if r["cpb"] is None:
            continue
        assert r["cycles_per_batch"] == pytest.approx(
            r["loop_cycles_per_iteration"] * r["iterations_per_batch"] + r["rest_cycles"])
        assert r["cpb"] == pytest.approx(r["cycles_per_batch"] / 128)
        assert r["bound_cpb"] == pytest.approx(
            r["vector_ops_per_batch"] / 128 / mca_core.VECTOR_PIPES[r["cpu_model"]])
        assert r["bound_cpb"] <= r["pipe_bound_cpb"] <= r["cpb"]
        # The published figures are about 13 c/B (NEON) and 0.7-0.9 c/B (CE)
        # on Yitian 710 (N2): the model must land in that neighbourhood.
        if r["target"] == "neon":
            assert 5 < r["cpb"] < 30 and r["iterations_per_batch"] == 8
        else:
            assert 0.2 < r["cpb"] < 2 and r["iterations_per_batch"] == 1
    # SM4E's 64 vector ops per 128 bytes, the rest of the CE pass: 96 in all.
    assert by[("sm4_ce_crypt", "neoverse-v1")]["vector_ops_per_batch"] == 96


@NEEDS_PEERS
def test_cli_models_the_peers_into_the_report_json(peer_work, tmp_path, capsys):
    out = tmp_path / "mca.json"
    rc = mca_model.main(["--linux-peers", "--arm-cpu", "neoverse-n1", "--arm-cpu", "neoverse-v1",
                         "--work", peer_work, "--json", str(out)])
    assert rc == 0
    text = capsys.readouterr().out
    assert text.startswith("### Modelled (llvm-mca")
    assert "| `linux sm4_ce_ctr_enc` | modelled (llvm-mca neoverse-n1) | – |" in text
    assert "neoverse-n1 lacks sm4: not modelled" in text
    recs = json.loads(out.read_text())
    assert {r["cpu_model"] for r in recs} == {"neoverse-n1", "neoverse-v1"}
    assert all(r["mca"].startswith("llvm-mca") for r in recs)
    # harness/report.py reads the file as it reads the x86 records.
    sys.path.insert(0, str(ROOT / "harness"))
    import report
    md = report.render_markdown([], report.load_records(str(out)))
    assert "modelled (llvm-mca neoverse-v1)" in md and "not measured" in md


# --------------------------------------------------------------------------
# CTR (SM4): the kernel's counter form
# --------------------------------------------------------------------------

@NEEDS_ARM
def test_rounds4_neon_sm4_gets_a_ctr_record(tmp_path, capsys):
    """The generated SM4E kernel: an ECB record of its batch and a CTR record
    of its counter form (_batch_ctr: counter blocks built in registers, the
    message XORed into the stores), through the CLI into the JSON that
    harness/report.py renders."""
    out = tmp_path / "mca.json"
    assert mca_model.main(["--arm-cpu", "neoverse-v1", "--json", str(out), "rounds4_neon_sm4"]) == 0
    text = capsys.readouterr().out
    ecb, ctr = json.loads(out.read_text())[:2]
    assert (ecb["mode"], ctr["mode"]) == ("kernel", "ctr")
    assert ecb["function"] == "sm4_rounds4_neon_sm4_batch"
    assert ctr["function"] == "sm4_rounds4_neon_sm4_batch_ctr"
    # The message XORs (one per block) and the counter blocks' operations
    # (at least four per block) on top of ECB's; the batch is gen/choices.toml's groups.
    blocks = choices.load().get("sm4.groups", "rounds4_neon_sm4")
    assert ctr["vector_ops_per_batch"] >= ecb["vector_ops_per_batch"] + blocks + 4 * blocks
    assert ctr["cycles_per_batch"] > ecb["cycles_per_batch"]
    assert ctr["bound_cpb"] <= ctr["pipe_bound_cpb"] <= ctr["cpb"]
    assert "| `rounds4_neon_sm4 ctr` | modelled (llvm-mca neoverse-v1) |" in text
    sys.path.insert(0, str(ROOT / "harness"))
    import report
    md = report.render_markdown([], report.load_records(str(out)))
    assert "modelled (llvm-mca neoverse-v1)" in md and "ctr" in md


# --------------------------------------------------------------------------
# GCM and XTS (SM4): the stitched form and the whitened form with its tweaks
# --------------------------------------------------------------------------

AARCH64_FUNCS = """\
\t.type\tsm4_x_batch_gcm, %function
sm4_x_batch_gcm:
\tldr\tq0, [x1]
\tpmull\tv1.1q, v0.1d, v0.1d
\tstr\tq1, [x2]
\tret
\t.size\tsm4_x_batch_gcm, .-sm4_x_batch_gcm
\t.type\tsm4_x_xts_ieee_register, %function
sm4_x_xts_ieee_register:
\tldr\tq0, [x0]
\tshl\tv1.2d, v0.2d, 1
\tstr\tq1, [x1]
\tret
\t.size\tsm4_x_xts_ieee_register, .-sm4_x_xts_ieee_register
\t.type\tsm4_x_xts_loop, %function
sm4_x_xts_loop:
.L3:
\tshl\tv1.2d, v0.2d, 1
\tsubs\tx2, x2, 1
\tbne\t.L3
\tret
\t.size\tsm4_x_xts_loop, .-sm4_x_xts_loop
"""

INLINED = """\
\t.type\tsm4_x_gcm_xor, %function
sm4_x_gcm_xor:
\tret
\t.size\tsm4_x_gcm_xor, .-sm4_x_gcm_xor
"""

CALLING = """\
\t.type\tsm4_x_batch_gcm, %function
sm4_x_batch_gcm:
\tbl\tsm4_x_helper
\tret
\t.size\tsm4_x_batch_gcm, .-sm4_x_batch_gcm
"""


def test_an_inlined_form_is_compiled_again_out_of_line():
    """A form GCC inlined into its one caller (GCM's, through
    kc_run_gcm_batches) is taken from a second compile with inlining of
    called-once functions off; a form already there is taken as it is, and
    one that calls a helper is refused (llvm-mca would not count it)."""
    asked = []

    def recompile(extra):
        asked.append(extra)
        return AARCH64_FUNCS

    assert mca_model.out_of_line(AARCH64_FUNCS, "sm4_x_batch_gcm", recompile) is AARCH64_FUNCS
    assert asked == []
    assert mca_model.out_of_line(INLINED, "sm4_x_batch_gcm", recompile) is AARCH64_FUNCS
    assert asked == [list(mca_model.NOT_INLINED)]
    with pytest.raises(ValueError, match="calls another function"):
        mca_model.out_of_line(INLINED, "sm4_x_batch_gcm", lambda extra: CALLING)


def test_xts_counts_the_batch_tweaks_once_and_refuses_a_looping_one():
    """XTS's record adds the tweak function of a batch to the code run once
    per batch; a tweak function with a loop cannot be counted once."""
    cut = mca_core.cut_kernel(AARCH64_FUNCS, function="sm4_x_batch_gcm", arch=mca_core.AARCH64)
    both = mca_model.with_tweaks(cut, AARCH64_FUNCS, "sm4_x_xts_ieee_register", mca_core.AARCH64)
    assert both["body"] == cut["body"]
    assert both["rest"] == cut["rest"] + ["\tldr\tq0, [x0]", "\tshl\tv1.2d, v0.2d, 1",
                                          "\tstr\tq1, [x1]"]
    with pytest.raises(ValueError, match="has a loop"):
        mca_model.with_tweaks(cut, AARCH64_FUNCS, "sm4_x_xts_loop", mca_core.AARCH64)


def test_linux_peer_target_is_the_one_with_fewest_extra_features():
    """The SM4E peer is filed under the target with SM4E and the fewest other
    features (neon_sm4 also needs AES and PMULL, for GCM and XTS); a tie is
    an error rather than a guess."""
    import linux_peers

    class Manifest:
        def __init__(self, targets):
            self.targets = {t["name"]: dict(t, arch="aarch64", form="c") for t in targets}

    sm4e = next(p for p in linux_peers.PEERS if p.function == "sm4_ce_ctr_enc")
    tbl = next(p for p in linux_peers.PEERS if p.function == "sm4_neon_ctr_enc_blk8")
    manifest = Manifest([
        {"name": "neon", "cpu_features": ["asimd"]},
        {"name": "neon_aes", "cpu_features": ["asimd", "arm_aes", "arm_pmull"]},
        {"name": "neon_sm4", "cpu_features": ["asimd", "arm_aes", "arm_pmull", "arm_sm4"]},
        {"name": "neon_sm4_sha3", "cpu_features": ["asimd", "arm_aes", "arm_pmull", "arm_sm4",
                                                   "arm_sha3"]},
    ])
    assert sm4e.target(manifest) == "neon_sm4"
    assert tbl.target(manifest) == "neon"
    manifest.targets["neon_sm4_alone"] = {"name": "neon_sm4_alone", "arch": "aarch64",
                                          "form": "c", "cpu_features": ["asimd", "arm_sm4", "x"]}
    manifest.targets["neon_sm4_other"] = {"name": "neon_sm4_other", "arch": "aarch64",
                                          "form": "c", "cpu_features": ["asimd", "arm_sm4", "y"]}
    with pytest.raises(ValueError, match="2 targets"):
        sm4e.target(manifest)


@NEEDS_ARM
def test_rounds4_neon_sm4_gets_gcm_and_xts_records(tmp_path, capsys):
    """The generated SM4E kernel's GCM record models its stitched form
    (_batch_gcm: CTR and GHASH's PMULLs in one body) per byte, its XTS
    record the whitened batch and the batch's tweaks, both beside the CTR
    record of the same run, through the CLI into the JSON report.py reads."""
    out = tmp_path / "mca.json"
    assert mca_model.main(["--arm-cpu", "neoverse-n2", "--json", str(out), "rounds4_neon_sm4"]) == 0
    text = capsys.readouterr().out
    recs = {r["mode"]: r for r in json.loads(out.read_text())}
    assert set(recs) == {"kernel", "ctr", "gcm-enc", "xts-enc"}
    ecb, ctr, gcm, xts = (recs[m] for m in ("kernel", "ctr", "gcm-enc", "xts-enc"))
    assert gcm["function"] == "sm4_rounds4_neon_sm4_batch_gcm"
    assert xts["function"] == "sm4_rounds4_neon_sm4_batch_xts"
    assert all(r["modelled"] and r["cpu_model"] == "neoverse-n2" for r in recs.values())
    blocks = choices.load().get("sm4.groups", "rounds4_neon_sm4")
    assert gcm["batch_bytes"] == ctr["batch_bytes"] == 16 * blocks
    # GHASH of the batch on top of CTR: four PMULLs a block (one 128x128
    # product) and the reduction's two, at least.
    assert gcm["vector_ops_per_batch"] >= ctr["vector_ops_per_batch"] + 4 * blocks + 2
    assert gcm["cycles_per_batch"] > ctr["cycles_per_batch"]
    assert gcm["bound_cpb"] <= gcm["pipe_bound_cpb"] <= gcm["cpb"]
    # XTS: the tweaks' doubling runs once per batch beside ECB's rounds.
    assert xts["rest_cycles"] > 0 and xts["cycles_per_batch"] > ecb["cycles_per_batch"]
    for mode in ("ctr", "gcm-enc", "xts-enc"):
        assert f"| `rounds4_neon_sm4 {mode}` | modelled (llvm-mca neoverse-n2) |" in text
