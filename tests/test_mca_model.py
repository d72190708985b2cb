"""harness/mca_model.py on ZUC's two keystream-block shapes: the rolled block
(one round per loop iteration, the LFSR in a ring) must be modelled by its
loop times the rounds, the unrolled one as straight-line code, and a C file
whose shape disagrees with its assembly must be refused."""

import shutil
import sys

import pytest

from conftest import ROOT

sys.path.insert(0, str(ROOT / "harness"))
import mca_model  # noqa: E402

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
    monkeypatch.setattr(mca_model, "parse_mca", lambda text: [
        {"name": "loop_body", "cycles_per_iteration": 10.0}, {"name": "rest", "cycles_per_iteration": 7.0}])
    out = mca_model.model_cycles(cut, params, "znver3", mca_runner=lambda text, cpu: text)
    assert out["cycles_per_batch"] == pytest.approx(10.0 * 16 + 7.0)
    assert out["cpb"] == pytest.approx((10.0 * 16 + 7.0) / (64 * 8))


@pytest.mark.skipif(shutil.which("gcc") is None or mca_model.find_llvm_mca() is None,
                    reason="needs gcc and llvm-mca (make deps installs both)")
def test_every_generated_zuc_kernel_is_modelled():
    """The generated kernels as `make all` models them: every ZUC kernel, rolled
    or not, gets a modelled c/B on icelake-server, its shape read from the C."""
    generated = ROOT / "generated"
    names = sorted(p.stem[len("zuc_"):] for p in (generated / "src").glob("zuc_lanes*.c"))
    assert names
    shapes = set()
    for name in names:
        [rec] = mca_model.model_impl(name, ["icelake-server"], str(generated))
        assert rec.get("error") is None and rec["cpb"] > 0, (name, rec)
        expected = rec["rest_cycles"] + rec["loop_cycles_per_iteration"] * rec["iterations_per_batch"]
        assert rec["cycles_per_batch"] == pytest.approx(expected)
        assert rec["iterations_per_batch"] == (16 if rec["shape"] == "rolled" else 1)
        shapes.add(rec["shape"])
    assert shapes == {"rolled", "unrolled"}
