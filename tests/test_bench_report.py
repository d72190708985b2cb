"""The benchmark report (harness/report.py, harness/plot_bench.py) on synthetic
records, and the llvm-mca model's parsing (harness/mca_model.py) on captured
llvm-mca output and hand-written assembly."""

import json
import os
import shutil
import subprocess
import sys

import pytest

HARNESS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "harness")
sys.path.insert(0, HARNESS)

import mca_core  # noqa: E402
import mca_model  # noqa: E402
import target_manifest  # noqa: E402
import report  # noqa: E402

# --------------------------------------------------------------------------
# Synthetic benchmark records
# --------------------------------------------------------------------------

GHZ = 3.0


def rec(impl, name, strategy, target, mode, size, gbps, lanes=1, **extra):
    r = {"cipher": "sm4", "impl": impl, "name": name, "strategy": strategy, "target": target,
         "mode": mode, "msg_bytes": size, "lanes": lanes, "gbps": gbps,
         "cpb": GHZ * 8 / gbps, "verified": True, "emulated": False, "modelled": False,
         "clock_ghz": GHZ, "clock_method": "dependent chain of integer adds", "cpu": "Test CPU"}
    r.update(extra)
    return r


def synthetic():
    """Two of our kernels, the (fast, but not constant-time) reference, and
    the peers; at 64 KiB our best is `fast` at 40 Gbit/s, OpenSSL 1 and
    libgcrypt 8 (CTR) / 0.5 (ECB)."""
    out = []
    for mode in ("ecb-enc", "ctr"):
        for size in (4096, 65536):
            scale = 1.0 if size == 65536 else 0.5
            out.append(rec("ours", "byteslice_fast", "byteslice", "fast", mode, size, 40 * scale,
                           lanes=128))
            out.append(rec("ours", "wordslice_slow", "wordslice", "slow", mode, size, 10 * scale,
                           lanes=32))
            out.append(rec("ours", "reference_scalar", "reference", "scalar", mode, size,
                           100 * scale))
            out.append(rec("openssl", "openssl", "evp", "EVP OpenSSL 3", mode, size, 1 * scale))
            gc = 8 if mode == "ctr" else 0.5
            out.append(rec("libgcrypt", "libgcrypt", "gcry_cipher", "1.10", mode, size, gc * scale))
    return out


def modelled_records():
    return [{"cipher": "sm4", "impl": "ours", "name": "byteslice_fast", "strategy": "byteslice",
             "target": "fast", "mode": "kernel", "msg_bytes": 2048, "lanes": 128,
             "modelled": True, "cpu_model": "icelake-server", "cpb": 0.61,
             "cycles_per_batch": 1249.3, "batch_bytes": 2048},
            {"cipher": "sm4", "impl": "ours", "name": "byteslice_fast", "strategy": "byteslice",
             "target": "fast", "mode": "kernel", "msg_bytes": 2048, "lanes": 128,
             "modelled": True, "cpu_model": "znver3", "cpb": None,
             "error": "znver3 lacks gfni: not modelled"}]


# --------------------------------------------------------------------------
# Report
# --------------------------------------------------------------------------

def test_headline_picks_fastest_constant_time_kernel_and_ratios():
    rows = {r["mode"]: r for r in report.headline_rows(synthetic())}
    assert list(rows) == ["ecb-enc", "ctr"]
    ctr = rows["ctr"]
    assert ctr["size"] == 65536
    # The reference is faster here but is not constant-time: never the headline.
    assert ctr["best"]["name"] == "byteslice_fast"
    assert ctr["vs_openssl"] == pytest.approx(40.0)
    assert ctr["vs_libgcrypt"] == pytest.approx(5.0)
    assert rows["ecb-enc"]["vs_libgcrypt"] == pytest.approx(80.0)


def test_headline_uses_reference_when_it_is_the_only_kernel():
    recs = [r for r in synthetic() if r["impl"] != "ours" or r["strategy"] == "reference"]
    rows = report.headline_rows(recs)
    assert rows[0]["best"]["name"] == "reference_scalar"


def test_headline_ignores_unverified_kernels():
    recs = synthetic()
    for r in recs:
        if r["name"] == "byteslice_fast":
            r["verified"] = False
    rows = {r["mode"]: r for r in report.headline_rows(recs)}
    assert rows["ctr"]["best"]["name"] == "wordslice_slow"


def test_headline_falls_back_to_largest_size():
    recs = [r for r in synthetic() if r["msg_bytes"] == 4096]
    rows = report.headline_rows(recs)
    assert rows[0]["size"] == 4096


def test_markdown_tables():
    md = report.render_markdown(synthetic())
    assert "### Headline: 64 KiB messages" in md
    # Headline row of CTR: best kernel, lanes, Gbit/s, c/B, peers, ratios.
    line = next(l for l in md.splitlines() if l.startswith("| ctr | `byteslice_fast`"))
    cells = [c.strip() for c in line.strip("|").split("|")]
    assert cells[2] == "128"
    assert cells[3] == "40.00" and cells[4] == "0.60"        # 3 GHz * 8 / 40
    assert cells[5] == "1.00" and cells[7] == "8.00"
    assert cells[9] == "40.00×" and cells[10] == "5.00×"
    # Per-mode tables: every subject, every size, c/B at 64 KiB.
    assert "### ctr: Gbit/s by message size" in md
    assert "| 4 KiB | 64 KiB | c/B @ 64 KiB |" in md
    assert "| wordslice_slow | ours | 32 | 5.00 | 10.00 | 2.40 |" in md
    assert "| openssl | openssl | 1 | 0.50 | 1.00 | 24.00 |" in md
    assert "3.00 GHz" in md
    assert "modelled" not in md.lower()


def test_markdown_flags_mismatch():
    recs = synthetic()
    recs[0]["verified"] = False
    assert "(output MISMATCH)" in report.render_markdown(recs)


def test_modelled_section_is_labelled_and_separate():
    md = report.render_markdown(synthetic(), modelled_records())
    assert "### Modelled figures (not measured)" in md
    line = next(l for l in md.splitlines() if "modelled (llvm-mca icelake-server)" in l)
    cells = [c.strip() for c in line.strip("|").split("|")]
    assert cells[0] == "`byteslice_fast`"
    assert cells[1] == "ecb-enc"  # the mode: an ECB and a CTR record of one kernel are told apart
    assert cells[3] == "0.61"
    assert cells[8] == "0.60"  # measured ecb-enc c/B of the same kernel at 64 KiB
    assert "| `byteslice_fast` | ecb-enc | modelled (llvm-mca znver3) | znver3 lacks gfni: not modelled |" in md
    # The headline is built from measurements only.
    head = md.split("### ecb-enc")[0]
    assert "0.61" not in head


def test_fmt_size():
    assert report.fmt_size(64) == "64 B"
    assert report.fmt_size(16384) == "16 KiB"
    assert report.fmt_size(1 << 20) == "1 MiB"


def test_cli_writes_markdown_png_and_picks_up_mca_json(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    bench = tmp_path / "bench.json"
    bench.write_text(json.dumps(synthetic()))
    (tmp_path / "mca.json").write_text(json.dumps(modelled_records()))
    md, png = tmp_path / "bench.md", tmp_path / "bench.png"
    assert report.main([str(bench), "--md", str(md), "--png", str(png)]) == 0
    out = capsys.readouterr().out
    assert out == md.read_text()
    assert "modelled (llvm-mca icelake-server)" in out
    data = png.read_bytes()
    assert len(data) > 1000 and data[:8] == b"\x89PNG\r\n\x1a\n"


def test_plot_bench_wrapper(tmp_path):
    pytest.importorskip("matplotlib")
    bench = tmp_path / "b.json"
    bench.write_text(json.dumps(synthetic()))
    png = tmp_path / "b.png"
    res = subprocess.run([sys.executable, os.path.join(HARNESS, "plot_bench.py"), str(bench),
                          str(png)], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    assert png.stat().st_size > 1000


# --------------------------------------------------------------------------
# llvm-mca model
# --------------------------------------------------------------------------

# Captured from llvm-mca 14 (-mcpu=icelake-server -iterations=100
# -instruction-info=false -resource-pressure=false) on two regions.
MCA_SAMPLE = """
[0] Code Region - loop_body

Iterations:        100
Instructions:      500
Total Cycles:      203
Total uOps:        500

Dispatch Width:    6
uOps Per Cycle:    2.46
IPC:               2.46
Block RThroughput: 0.8

[1] Code Region - rest

Iterations:        100
Instructions:      300
Total Cycles:      110
Total uOps:        500

Dispatch Width:    6
uOps Per Cycle:    4.55
IPC:               2.73
Block RThroughput: 1.0
"""

# A single region without a header (no markers in the input).
MCA_SINGLE = """Iterations:        100
Instructions:      1800
Total Cycles:      6310
Total uOps:        2100

Dispatch Width:    6
uOps Per Cycle:    0.33
IPC:               0.29
Block RThroughput: 36.3
"""


def test_parse_mca_regions():
    regions = mca_core.parse_mca(MCA_SAMPLE)
    assert [r["name"] for r in regions] == ["loop_body", "rest"]
    body, rest = regions
    assert body["iterations"] == 100 and body["instructions"] == 500
    assert body["total_cycles"] == 203 and body["total_uops"] == 500
    assert body["block_rthroughput"] == pytest.approx(0.8)
    assert body["ipc"] == pytest.approx(2.46)
    assert body["cycles_per_iteration"] == pytest.approx(2.03)
    assert rest["cycles_per_iteration"] == pytest.approx(1.10)


def test_parse_mca_single_unnamed_region():
    (r,) = mca_core.parse_mca(MCA_SINGLE)
    assert r["name"] is None
    assert r["cycles_per_iteration"] == pytest.approx(63.1)
    assert r["block_rthroughput"] == pytest.approx(36.3)


C_SNIPPET = """
#define SM4_BYTESLICE_AVX512_GFNI_BATCH_BLOCKS 128
#define SM4_BYTESLICE_AVX512_GFNI_ROUNDS_PER_ITERATION 4
"""


def test_kernel_params_from_generated_c():
    p = mca_model.kernel_params(C_SNIPPET, "byteslice_avx512_gfni", "#define SM4_ROUNDS 32\n")
    assert p == {"batch_blocks": 128, "rounds_per_iteration": 4, "rounds": 32}
    with pytest.raises(ValueError):
        mca_model.kernel_params(C_SNIPPET, "wordslice_avx2_gfni")


def test_zuc_names_params_and_flags():
    assert mca_model.is_zuc("lanes_avx512_gfni") and not mca_model.is_zuc("byteslice_avx2_gfni")
    assert mca_model.is_zuc("lanesx2_avx2_vaes") and not mca_model.is_zuc("lanesx3_avx2_vaes")
    assert mca_model.source_stem("lanes_avx2_vaes") == "zuc_lanes_avx2_vaes"
    assert mca_model.source_stem("byteslice_avx2_vaes") == "sm4_byteslice_avx2_vaes"
    assert mca_model.split_impl("lanes_avx512_gfni") == ("lanes", "avx512_gfni")
    c = "#define ZUC_LANES_AVX512_GFNI_LANES 16\n"
    p = mca_model.zuc_kernel_params(c, "lanes_avx512_gfni")
    assert p["lanes"] == 16 and p["batch_bytes"] == 64 * 16
    with pytest.raises(ValueError):
        mca_model.zuc_kernel_params(c, "lanes_avx2_vaes")


# Two marked functions, as in zuc_lanes_*.c: init_rounds (a loop) and the
# straight-line keystream_block that the ZUC model wants.
ASM_ZUC = """\
\t.type\tzuc_lanes_x_init_rounds, @function
zuc_lanes_x_init_rounds:
\txorl\t%eax, %eax
.L3:
\t# LLVM-MCA-BEGIN loop_r
\tvpxord\t%zmm0, %zmm1, %zmm2
\t# LLVM-MCA-END loop_r
\taddq\t$1, %rax
\tcmpq\t$2, %rax
\tjne\t.L3
\tret
\t.size\tzuc_lanes_x_init_rounds, .-zuc_lanes_x_init_rounds
\t.type\tzuc_lanes_x_keystream_block, @function
zuc_lanes_x_keystream_block:
\tpushq\t%rbp
\t# LLVM-MCA-BEGIN keystream_block
\tvmovdqu64\t(%rdi), %zmm0
\tvgf2p8affineqb\t$0, %zmm1, %zmm0, %zmm0
\tvmovdqu64\t%zmm0, (%rsi)
\t# LLVM-MCA-END keystream_block
\tpopq\t%rbp
\tvzeroupper
\tret
\t.size\tzuc_lanes_x_keystream_block, .-zuc_lanes_x_keystream_block
"""


def test_cut_kernel_picks_the_named_zuc_function():
    assert mca_model.cut_kernel(ASM_ZUC)["function"] == "zuc_lanes_x_init_rounds"
    cut = mca_model.cut_kernel(ASM_ZUC, function="zuc_lanes_x_keystream_block")
    assert cut["function"] == "zuc_lanes_x_keystream_block"
    assert cut["marked"] and not cut["loop"] and cut["regions"] == 1
    assert len(cut["body"]) == 3 and any("vgf2p8affineqb" in l for l in cut["body"])
    assert cut["rest"] == ["\tpushq\t%rbp", "\tpopq\t%rbp", "\tvzeroupper"]
    with pytest.raises(ValueError):
        mca_model.cut_kernel(ASM_ZUC, function="zuc_lanes_y_keystream_block")
    # One call is one "iteration"; c/B over 64 bytes x lanes.
    m = mca_model.model_cycles(cut, {"lanes": 16, "batch_bytes": 1024, "rounds": 16,
                                     "rounds_per_iteration": 16}, "icelake-server",
                               mca_runner=lambda text, cpu: MCA_SAMPLE)
    assert m["iterations_per_batch"] == 1 and m["batch_bytes"] == 1024
    assert m["cpb"] == pytest.approx((2.03 + 1.10) / 1024)


# GCC-style assembly: the markers inside the round loop (the generated
# kernels' convention), the loop kept.
ASM_INSIDE = """\
\t.text
\t.type\tsm4_x_batch, @function
sm4_x_batch:
.LFB1:
\t.cfi_startproc
\tvmovdqu\t(%rsi), %ymm0
\tvpunpcklbw\t%ymm0, %ymm1, %ymm2
\tleaq\t128(%rdi), %rax
.L8:
#APP
# 163 "k.c" 1
\t# LLVM-MCA-BEGIN loop_r
# 0 "" 2
#NO_APP
\tvpxor\t%ymm2, %ymm3, %ymm4
\tvgf2p8affineinvqb\t$0, %ymm5, %ymm4, %ymm4
#APP
# 200 "k.c" 1
\t# LLVM-MCA-END loop_r
# 0 "" 2
#NO_APP
\taddq\t$16, %rdi
\tcmpq\t%rdi, %rax
\tjne\t.L8
\tvmovdqu\t%ymm4, (%rdx)
\tvzeroupper
\tret
\t.cfi_endproc
.LFE1:
\t.size\tsm4_x_batch, .-sm4_x_batch
"""


def test_cut_kernel_markers_inside_loop():
    cut = mca_model.cut_kernel(ASM_INSIDE)
    assert cut["function"] == "sm4_x_batch"
    assert cut["loop"] and cut["marked"] and cut["regions"] == 1
    assert cut["body"][0] == ".L8:"
    assert cut["body"][-1] == "\tjne\t.L8"
    assert any("vgf2p8affineinvqb" in l for l in cut["body"])
    assert any("addq" in l for l in cut["body"])  # counter update is part of an iteration
    assert any("vpunpcklbw" in l for l in cut["rest"])
    assert any("vmovdqu\t%ymm4" in l for l in cut["rest"])
    assert not any("LLVM-MCA" in l or l.lstrip().startswith((".cfi", "#")) for l in
                   cut["body"] + cut["rest"])


def test_cut_kernel_fully_unrolled():
    # Two copies of the marked body and no backward branch: every round is
    # in the span, which runs once per batch.
    asm = ASM_INSIDE.replace("\tjne\t.L8\n", "")
    region = asm[asm.index("#APP\n# 163"):asm.index("\taddq")]
    asm = asm.replace(region, region + region)
    cut = mca_model.cut_kernel(asm)
    assert not cut["loop"] and cut["regions"] == 2
    assert sum("vgf2p8affineinvqb" in l for l in cut["body"]) == 2


def test_cut_kernel_without_markers():
    asm = "\n".join(l for l in ASM_INSIDE.splitlines() if "LLVM-MCA" not in l) + "\n"
    cut = mca_model.cut_kernel(asm)
    assert cut["loop"] and not cut["marked"]
    assert cut["body"][0] == ".L8:"


def test_model_cycles_combines_loop_and_rest():
    cut = mca_model.cut_kernel(ASM_INSIDE)
    params = {"batch_blocks": 128, "rounds_per_iteration": 4, "rounds": 32}
    seen = {}

    def fake_mca(text, cpu):
        seen["text"], seen["cpu"] = text, cpu
        return MCA_SAMPLE

    m = mca_model.model_cycles(cut, params, "icelake-server", mca_runner=fake_mca)
    assert seen["cpu"] == "icelake-server"
    assert "# LLVM-MCA-BEGIN loop_body" in seen["text"] and "# LLVM-MCA-END rest" in seen["text"]
    assert m["iterations_per_batch"] == 8
    assert m["cycles_per_batch"] == pytest.approx(2.03 * 8 + 1.10)
    assert m["batch_bytes"] == 2048
    assert m["cpb"] == pytest.approx((2.03 * 8 + 1.10) / 2048)


def test_markdown_line_of_model():
    recs = [dict(modelled_records()[0], loop_cycles_per_iteration=140.0,
                 iterations_per_batch=8, rest_cycles=129.3)]
    md = mca_model.markdown(recs)
    assert "| `byteslice_fast` | modelled (llvm-mca icelake-server) | 0.61 | 1249.3 | 2048 |" in md


@pytest.mark.skipif(not (mca_model.find_llvm_mca() and shutil.which("gcc")),
                    reason="needs llvm-mca and gcc")
def test_end_to_end_on_a_small_kernel(tmp_path, monkeypatch):
    """A toy kernel with the generated files' conventions, compiled and
    modelled for real."""
    src = tmp_path / "src"
    src.mkdir()
    (tmp_path / "include").mkdir()
    (src / "sm4_byteslice_avx2_toy.c").write_text("""
#include <immintrin.h>
#include <stdint.h>
#ifdef KC_MCA_MARKERS
#define KC_MCA_BEGIN(n) __asm__ volatile("# LLVM-MCA-BEGIN " n ::: "memory")
#define KC_MCA_END(n) __asm__ volatile("# LLVM-MCA-END " n ::: "memory")
#endif
#define SM4_BYTESLICE_AVX2_TOY_BATCH_BLOCKS 32
#define SM4_BYTESLICE_AVX2_TOY_ROUNDS_PER_ITERATION 4
static void sm4_byteslice_avx2_toy_batch(const uint8_t *rk, const uint8_t *in, uint8_t *out)
{
    __m256i a = _mm256_loadu_si256((const void *)in), b = _mm256_loadu_si256((const void *)(in + 32));
    for (int r = 0; r < 8; r++) {
        KC_MCA_BEGIN("loop_r");
        for (int j = 0; j < 4; j++) {
            __m256i k = _mm256_set1_epi8((char)rk[4 * r + j]);
            __m256i t = _mm256_xor_si256(_mm256_xor_si256(a, k), _mm256_slli_epi32(b, 3));
            t = _mm256_shuffle_epi8(t, b);
            a = b; b = t;
        }
        KC_MCA_END("loop_r");
    }
    _mm256_storeu_si256((void *)out, a); _mm256_storeu_si256((void *)(out + 32), b);
}
void (*volatile keep)(const uint8_t *, const uint8_t *, uint8_t *) = sm4_byteslice_avx2_toy_batch;
""")
    # The toy target in a manifest of its own: the real one, with it added.
    manifest = json.loads(open(os.path.join(HARNESS, "..", "generated", "targets.json")).read())
    avx2 = next(t for t in manifest["targets"] if t["name"] == "avx2")
    manifest["targets"].append(dict(avx2, name="avx2_toy"))
    (tmp_path / "targets.json").write_text(json.dumps(manifest))
    (rec,) = mca_model.model_impl("byteslice_avx2_toy", ["icelake-server"], str(tmp_path))
    assert rec["modelled"] and rec["cpu_model"] == "icelake-server"
    assert rec["batch_bytes"] == 512 and rec["lanes"] == 32
    # GCC may keep the loop (8 iterations of the marked body) or unroll this
    # small one completely (8 marked copies, modelled once per batch).
    if rec["loop_kept"]:
        assert rec["iterations_per_batch"] == 8
    else:
        assert rec["marked_regions"] == 8 and rec["iterations_per_batch"] == 1
    assert 0 < rec["cpb"] < 10


# --------------------------------------------------------------------------
# ZUC sections
# --------------------------------------------------------------------------

def zrec(cipher, impl, name, mode, size, gbps, lanes=16, method=None, **extra):
    """A ZUC record: 16 messages per call, c/B over all of them."""
    strategy = {"ours": name.split("_")[0]}.get(impl, "job API")
    target = "_".join(name.split("_")[1:]) if impl == "ours" else "job API, ipsec-mb 1.3.0"
    return rec(impl, name, strategy, target, mode, size, gbps, lanes=lanes, cipher=cipher,
               streams=16, mac_method=method,
               arch=name.split("_")[1] if impl == "ipsec-mb" else None, **extra)


def zuc_synthetic():
    """Per ZUC cipher, at 1500 B and 4 KiB (scale 0.5 and 1): our `lanes_fast`
    (enc 20, mac32 clmul 10 / compare 2), the reference (enc 40: fast but never
    the headline), ipsec-mb with AVX-512 (enc 25, mac32 24) and AVX2 (enc 12, mac32 9)."""
    out = []
    for cipher in ("zuc128", "zuc256"):
        for size in (1500, 4096):
            s = 1.0 if size == 4096 else 0.5
            out += [zrec(cipher, "ours", "lanes_fast", "enc", size, 20 * s),
                    zrec(cipher, "ours", "lanes_fast", "mac32", size, 10 * s, method="clmul"),
                    zrec(cipher, "ours", "lanes_fast", "mac32", size, 2 * s, method="compare"),
                    zrec(cipher, "ours", "reference_scalar", "enc", size, 40 * s, lanes=2),
                    zrec(cipher, "ipsec-mb", "ipsec-mb_avx512", "enc", size, 25 * s, lanes=0),
                    zrec(cipher, "ipsec-mb", "ipsec-mb_avx512", "mac32", size, 24 * s, lanes=0),
                    zrec(cipher, "ipsec-mb", "ipsec-mb_avx2", "enc", size, 12 * s, lanes=0),
                    zrec(cipher, "ipsec-mb", "ipsec-mb_avx2", "mac32", size, 9 * s, lanes=0)]
    return out


def table_line(md, section, start):
    """The first line of `section` (a '## ...' part of md) starting with `start`, as cells."""
    part = md.split(section, 1)[1].split("\n## ", 1)[0]
    line = next(l for l in part.splitlines() if l.startswith(start))
    return [c.strip() for c in line.strip("|").split("|")]


def test_zuc_headline_against_fastest_ipsec_mb_run():
    recs = [r for r in zuc_synthetic() if r["cipher"] == "zuc256"]
    rows = {r["mode"]: r for r in report.headline_rows(recs)}
    assert list(rows) == ["enc", "mac32"]
    enc, mac = rows["enc"], rows["mac32"]
    assert enc["size"] == 4096
    assert enc["best"]["name"] == "lanes_fast"  # never the reference
    assert enc["ipsec-mb"]["name"] == "ipsec-mb_avx512"
    assert enc["vs_ipsec-mb"] == pytest.approx(0.8)
    assert mac["best"]["mac_method"] == "clmul" and mac["vs_ipsec-mb"] == pytest.approx(10 / 24)
    assert "openssl" not in enc


def test_zuc_sections_are_separate_and_follow_sm4():
    md = report.render_markdown(synthetic() + zuc_synthetic())
    heads = [l for l in md.splitlines() if l.startswith("## ")]
    assert heads == ["## SM4 throughput", "## ZUC-128 throughput", "## ZUC-256 throughput"]
    # SM4's section is what it is without ZUC records.
    sm4_part = md.split("## ZUC-128 throughput")[0]
    assert sm4_part == report.render_markdown(synthetic()).rstrip("\n") + "\n\n"
    # ZUC headline: 4 KiB, 16 per call, the ipsec-mb run compared with, ratios.
    zuc_part = md.split("## ZUC-256 throughput")[1]
    assert "### Headline: 4 KiB messages, 16 per call, our fastest kernel vs the peers" in zuc_part
    assert ("| mode | our best kernel | lanes | ours Gbit/s | ours c/B | ipsec-mb run | "
            "ipsec-mb Gbit/s | ipsec-mb c/B | ours / ipsec-mb |") in zuc_part
    cells = table_line(md, "## ZUC-256 throughput", "| mac32 |")
    assert cells == ["mac32", "`lanes_fast (clmul)`", "16", "10.00", "2.40", "`ipsec-mb_avx512`",
                     "24.00", "1.00", "0.42×"]
    cells = table_line(md, "## ZUC-128 throughput", "| enc |")
    assert cells[1] == "`lanes_fast`" and cells[5] == "`ipsec-mb_avx512`" and cells[8] == "0.80×"


def test_zuc_mode_tables_list_methods_and_runs():
    md = report.render_markdown(zuc_synthetic())
    assert "### ZUC-256 mac32: Gbit/s by message size" in md
    assert "### ZUC-128 enc: Gbit/s by message size" in md
    assert "| 1500 B | 4 KiB | c/B @ 4 KiB |" in md
    part = md.split("### ZUC-256 mac32")[1]
    assert "| lanes_fast (clmul) | ours | 16 | 5.00 | 10.00 | 2.40 |" in part
    assert "| lanes_fast (compare) | ours | 16 | 1.00 | 2.00 | 12.00 |" in part
    # Peers without a lane count show '–'; each run once.
    assert part.count("| ipsec-mb_avx2 | ipsec-mb | – | 4.50 | 9.00 | 2.67 |") == 1
    # The intro says what a figure counts, and which ipsec-mb runs there are.
    intro = md.split("## ZUC-256 throughput")[1].split("### Headline")[0]
    assert "16 messages" in intro and "streams x bytes" in intro
    assert "`ipsec-mb_avx512` (job API, ipsec-mb 1.3.0)" in intro


def test_zuc_mismatch_is_flagged_and_kept_out_of_headline():
    recs = zuc_synthetic()
    for r in recs:
        if r["name"] == "lanes_fast" and r["mode"] == "enc":
            r["verified"] = False
    md = report.render_markdown(recs)
    assert "| lanes_fast (output MISMATCH) | ours |" in md
    assert "differ from our scalar reference" in md
    zuc128 = [r for r in recs if r["cipher"] == "zuc128"]
    rows = {r["mode"]: r for r in report.headline_rows(zuc128)}
    # Only the reference is left for enc: it stands in, as for SM4.
    assert rows["enc"]["best"]["name"] == "reference_scalar"


def test_plot_with_zuc(tmp_path):
    pytest.importorskip("matplotlib")
    png = tmp_path / "z.png"
    report.plot(synthetic() + zuc_synthetic(), str(png))
    data = png.read_bytes()
    assert len(data) > 1000 and data[:8] == b"\x89PNG\r\n\x1a\n"


def zuc_modelled_records():
    return [{"cipher": "zuc256", "impl": "ours", "name": "lanes_fast", "strategy": "lanes",
             "target": "fast", "mode": "keystream", "msg_bytes": 1024, "lanes": 16,
             "modelled": True, "cpu_model": "icelake-server", "cpb": 0.57,
             "cycles_per_batch": 588.4, "batch_bytes": 1024}]


def test_zuc_modelled_row_in_the_zuc256_section():
    recs = synthetic() + zuc_synthetic()
    for r in zuc_synthetic():
        if r["name"] == "lanes_fast" and r["mode"] == "enc":
            recs.append(dict(r, mode="keystream", gbps=48.0, cpb=0.5))
    md = report.render_markdown(recs, modelled_records() + zuc_modelled_records())
    sm4, rest = md.split("## ZUC-128 throughput")
    zuc128, zuc256 = rest.split("## ZUC-256 throughput")
    assert "### Modelled figures (not measured)" in sm4 and "lanes_fast" not in sm4.split(
        "### Modelled figures")[1]
    assert "modelled" not in zuc128.lower()
    assert "### ZUC-256 modelled figures (not measured)" in zuc256
    assert "ZUC-128 and ZUC-256 share this kernel" in zuc256
    assert "c/B measured here (keystream, 4 KiB)" in zuc256
    cells = table_line(md, "## ZUC-256 throughput", "| `lanes_fast` | keystream | modelled")
    assert cells == ["`lanes_fast`", "keystream", "modelled (llvm-mca icelake-server)", "0.57", "–", "–",
                     "588.4", "1024", "0.50"]
    # Without ZUC measurements the modelled row still gets a ZUC-256 section.
    md = report.render_markdown(synthetic(), zuc_modelled_records())
    assert "### ZUC-256 modelled figures (not measured)" in md
    assert "modelled (llvm-mca icelake-server)" in md


# --------------------------------------------------------------------------
# uBlock: the paper's method (one block, 1,000,000 times) beside the buffers
# --------------------------------------------------------------------------

def urec(cipher, name, mode, gbps, size=65536, streams=1, lanes=4, **extra):
    strategy, target = name.split("_", 1)
    r = {"cipher": cipher, "impl": "ours", "name": name, "strategy": strategy, "target": target,
         "mode": mode, "msg_bytes": size, "streams": streams, "lanes": lanes, "gbps": gbps,
         "cpb": GHZ * 8 / gbps, "verified": True, "emulated": False, "modelled": False,
         "clock_ghz": GHZ, "cpu": "Test CPU", "loops": 0}
    r.update(extra)
    return r


def loop_rec(cipher, name, role, gbps_mean, streams=1, loops=1_000_000, lanes=4, best=None):
    """A one-block-loop record as bench writes it: its best test at `best`
    (default 10% above the mean), the mean of 4 tests at `gbps_mean`."""
    block = 32 if cipher == "ublock256_256" else 16
    best = best or gbps_mean * 1.1
    return urec(cipher, name, "block-loop", best, size=block, streams=streams, lanes=lanes,
                loops=loops, role=role, tests=4, iters=1, gbps_mean=gbps_mean,
                cpb_mean=GHZ * 8 / gbps_mean)


def ublock_synthetic(loops=1_000_000):
    """Buffer records of uBlock-128/128 and 256/256, and one-block loops:
    register_avx2 at 3.6025 Gbit/s (half the paper's 7.205), four keys at
    3.17 (half of 6.34), register_avx512, and the dispatch pick."""
    out = [urec("ublock128_128", "register_avx2", "ctr", 5.0),
           urec("ublock128_128", "register_avx2", "cbc-enc", 4.0, streams=4),
           urec("ublock128_128", "nibbleslice_avx2", "ctr", 20.0, lanes=32),
           urec("ublock256_256", "nibbleslice_avx2", "ctr", 9.0, lanes=32)]
    out += [loop_rec("ublock128_128", "register_avx2", "paper-method", 3.6025, loops=loops),
            loop_rec("ublock128_128", "register_avx2", "paper-method", 3.17, streams=4,
                     loops=loops),
            loop_rec("ublock128_128", "register_avx512", "paper-method", 7.205, lanes=8,
                     loops=loops),
            loop_rec("ublock128_128", "nibbleslice_avx2", "fastest", 0.7205, lanes=32,
                     loops=loops),
            loop_rec("ublock256_256", "register_avx2", "paper-method+fastest", 1.591, lanes=2,
                     loops=loops)]
    return out


def cells(md, start):
    """The cells of the first table line of md that starts with `start`."""
    line = next(l for l in md.splitlines() if l.startswith(start))
    return [c.strip() for c in line.strip("|").split("|")]


def test_one_block_table_rows_and_ratios():
    md = report.render_markdown(ublock_synthetic())
    title = "## uBlock, the paper's method: one block, 1,000,000 times"
    assert title + "\n" in md
    section = md.split(title)[1].split("\n## ")[0]
    assert "like-for-like comparison" in section and "mean of 4 test(s)" in section
    rows = [l for l in section.splitlines() if l.startswith("| uBlock-")]
    assert len(rows) == 5
    # variant, keys, kernel, role, lanes, Gbit/s (mean), c/B, best test, paper, ratio
    c = cells(section, "| uBlock-128/128 | 1 | `register_avx2`")
    assert c[3] == "paper-method" and c[4] == "4"
    assert c[5] == "3.603" and c[6] == f"{GHZ * 8 / 3.6025:.2f}"
    assert c[7] == f"{3.6025 * 1.1:.3f}"  # the best test, kept apart from the mean
    assert c[8] == "7.205" and c[9] == "0.50×"  # the ratio from the mean and the paper's figure
    assert cells(section, "| uBlock-128/128 | 4 (CBC) | `register_avx2`")[8:] == ["6.340", "0.50×"]
    assert cells(section, "| uBlock-128/128 | 1 | `register_avx512`")[9] == "1.00×"
    assert cells(section, "| uBlock-128/128 | 1 | `nibbleslice_avx2`")[3] == "fastest"
    assert cells(section, "| uBlock-128/128 | 1 | `nibbleslice_avx2`")[9] == "0.10×"
    both = cells(section, "| uBlock-256/256 | 1 | `register_avx2`")
    assert both[3] == "paper-method, fastest" and both[8] == "3.182" and both[9] == "0.50×"
    # Order: one key before four keys, the paper's method (widest target first) before fastest.
    names = [r.split("|")[3].strip() for r in rows[:4]]
    assert names == ["`register_avx512`", "`register_avx2`", "`nibbleslice_avx2`",
                     "`register_avx2`"]


def test_paper_rows_say_which_comparison_is_like_for_like():
    md = report.render_markdown(ublock_synthetic())
    part = md.split("### The paper's figures")[1].split("\n### ")[0]
    head = "| line | kernel | measured as | Gbit/s | c/B | vs the paper | like for like? |"
    assert head in part
    paper = cells(part, "| paper: one key (reference line)")
    assert paper[2] == "one block, 1,000,000 times, mean of 10" and paper[3] == "7.205"
    assert paper[4] == f"{3.7 * 8 / 7.205:.2f}"  # at the paper's stated clock
    loop = cells(part, "| ours: the paper's method, one key | `register_avx2` | one block")
    assert loop[2] == "one block (a padded batch of 4), 1,000,000 times, mean of 4"
    assert loop[3] == "3.603" and loop[5] == "0.50×" and loop[6] == "yes: the paper's measurement"
    four = cells(part, "| ours: the paper's method, four keys | `register_avx2` | one block")
    assert four[5] == "0.50×" and four[6].startswith("yes")
    fast = cells(part, "| ours: fastest kernel, one key | `nibbleslice_avx2` | one block")
    assert fast[2].startswith("one block (a padded batch of 32)") and fast[5] == "0.10×"
    # The buffer figures keep what they are, and say they are not the paper's measurement.
    buf = cells(part, "| ours: the paper's method, one key | `register_avx2` | ctr")
    assert buf[2] == "ctr, 64 KiB messages" and buf[3] == "5.000"
    assert buf[5] == f"{5 / 7.205:.2f}×"
    assert buf[6] == "no: a 64 KiB buffer, not one block"
    assert cells(part, "| ours: fastest kernel, one key | `nibbleslice_avx2` | ctr")[6].startswith("no")


def test_one_block_loops_stay_out_of_buffer_tables_and_plot(tmp_path):
    recs = ublock_synthetic()
    assert all(not r.get("loops") for r in report.measured(recs))
    assert len(report.one_block_loops(recs)) == 5
    md = report.render_markdown(recs)
    assert "block-loop" not in md  # no buffer table lists the loops as a mode
    assert "### uBlock-128/128 ctr: Gbit/s by message size" in md
    pytest.importorskip("matplotlib")
    png = tmp_path / "u.png"
    report.plot(recs, str(png))
    assert png.stat().st_size > 1000


def test_quick_loops_are_labelled_as_fewer_than_the_paper():
    md = report.render_markdown(ublock_synthetic(loops=100_000))
    assert ("## uBlock, the paper's method: one block, 100,000 times (fewer than the paper's "
            "1,000,000: a quick run)") in md
    assert "one block (a padded batch of 4), 100,000 times, mean of 4" in md


def test_no_one_block_section_without_loops():
    recs = [r for r in ublock_synthetic() if not r["loops"]]
    md = report.render_markdown(recs)
    assert "the paper's method: one block" not in md
    assert "yes: the paper's measurement" not in md  # no like-for-like row without the loop
    assert "| no: a 64 KiB buffer, not one block |" in md


def test_only_one_block_loops():
    """A run of `bench --mode block-loop` alone: the one-block section, no
    empty buffer sections."""
    recs = [r for r in ublock_synthetic() if r["loops"]]
    md = report.render_markdown(recs)
    assert "## uBlock, the paper's method: one block" in md
    assert "throughput" not in md and "No measurements" not in md


# --------------------------------------------------------------------------
# bench --quick: what `make test` runs
# --------------------------------------------------------------------------

def subjects_listed(build):
    """The (cipher, impl, kernel or peer, mode, streams) of every cell the
    full form times: `bench --list` lists the cells whatever the sizes."""
    proc = subprocess.run([str(build / "bench"), "--list"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    rows = [line.split() for line in proc.stdout.splitlines()]
    return {(r[0], r[2], r[1], r[3], r[5]) for r in rows}


def native_kernels(build):
    """Our native kernels per cipher, from `kcrypt --list-impls` (the
    implementation lists bench iterates): {(cipher, strategy_target)}."""
    proc = subprocess.run([str(build / "kcrypt"), "--list-impls"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    rows = [line.split() for line in proc.stdout.splitlines() if not line.startswith("dispatch ")]
    return {(c, f"{s}_{t}") for c, s, t, status in rows if status == "native"}


@pytest.fixture(scope="module")
def quick_run(harness_build, tmp_path_factory):
    """`bench --quick --json` as `make test` runs it (about 15-30 s here)."""
    out = tmp_path_factory.mktemp("quick") / "quick.json"
    proc = subprocess.run([str(harness_build / "bench"), "--quick", "--json", str(out)],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return out, json.loads(out.read_text()), proc


def test_quick_covers_every_kernel_and_peer(harness_build, quick_run):
    _, recs, _ = quick_run
    got = {(r["cipher"], r["impl"], r["name"], r["mode"], f"x{r['streams']}") for r in recs}
    assert got == subjects_listed(harness_build)
    ours = {(r["cipher"], r["name"]) for r in recs if r["impl"] == "ours"}
    assert ours == native_kernels(harness_build)
    peers = {r["impl"] for r in recs} - {"ours"}
    assert peers == {"openssl", "libgcrypt", "ipsec-mb"}
    for r in recs:
        assert r["gbps"] > 0 and r["verified"] is True and r["reps"] == 1, r


def test_quick_sizes_and_one_block_loops(quick_run):
    _, recs, proc = quick_run
    buffers = [r for r in recs if not r["loops"]]
    for cipher in {r["cipher"] for r in buffers}:
        sizes = {r["msg_bytes"] for r in buffers if r["cipher"] == cipher}
        want = {1500, 4096} if cipher.startswith("zuc") else {256, 4096, 65536}
        assert sizes == want, cipher
    loops = [r for r in recs if r["loops"]]
    assert {r["cipher"] for r in loops} == {"ublock128_128", "ublock128_256", "ublock256_256"}
    for r in loops:
        assert r["mode"] == "block-loop" and r["loops"] == 100_000 and r["tests"] == 1
        assert r["gbps_mean"] > 0 and r["role"]
    assert "one block encrypted 100000 times per test (the paper: 1,000,000)" in proc.stderr


def test_quick_writes_the_report(quick_run):
    out, _, proc = quick_run
    md = out.with_suffix(".md").read_text()
    assert proc.stdout == md
    for title in ("## SM4 throughput", "## ZUC-128 throughput", "## ZUC-256 throughput",
                  "## uBlock-128/256 throughput", "## uBlock: the issue's targets (one run)",
                  "## uBlock, the paper's method: one block, 100,000 times (fewer than the "
                  "paper's 1,000,000: a quick run)"):
        assert title in md
    assert out.with_suffix(".png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_aarch64_records_get_a_modelled_section_of_their_own():
    """AArch64 kernels and the Linux peers are modelled only: one section at
    the end, per cipher, and none of them in the x86 cipher sections."""
    arm = [dict(r, arch="aarch64", cpu_model="neoverse-n1", name="byteslice_neon_aes", target="neon_aes",
                bound_cpb=5.0, cpb_over_bound=1.05, cpb=5.25) for r in modelled_records()[:1]]
    peer = dict(arm[0], impl="linux", name="linux sm4_neon_crypt_blk8", cpb=11.7, bound_cpb=6.3,
                cpb_over_bound=1.86)
    md = report.render_markdown(synthetic(), modelled_records() + arm + [peer])
    x86, section = md.split("## AArch64, modelled")
    assert "neon" not in x86 and "linux" not in x86
    cells = table_line(md, "## AArch64, modelled", "| `byteslice_neon_aes`")
    assert cells[2:6] == ["modelled (llvm-mca neoverse-n1)", "5.25", "5.00", "1.05"]
    assert "`linux sm4_neon_crypt_blk8`" in section
    header, rule = [l for l in section.splitlines() if l.startswith("|")][:2]
    assert header.count("|") == rule.count("|")  # the rule has a cell per column

