"""The generated C runtime on AArch64: generated/ cross-built with
aarch64-linux-gnu-gcc, warning-free, and tests/c/runtime_check.c run under
qemu-aarch64 on three CPU models: kc_cpu's AT_HWCAP features, SM4, ZUC and
uBlock through the public API against the official vectors, the MAC's PMULL
and portable folds against each other, and everything the program computes
against the same program built for this x86-64 machine (uBlock's key forms
from the NEON key schedule byte for byte as SSSE3's, the modes' output)."""

import json
import shutil
import subprocess

import pytest

from gen.backends import cpu_features

from conftest import ROOT, VECTORS

GENERATED = ROOT / "generated"
PROGRAM = ROOT / "tests" / "c" / "runtime_check.c"
CROSS_CC = "aarch64-linux-gnu-gcc"
SYSROOT = "/usr/aarch64-linux-gnu"

# qemu's CPU models and the features each reports: "max" has every one,
# Neoverse N1 and Cortex-A53 lack SM4 and SHA3.
CPU_FEATURES = {
    "max": {"asimd", "arm_aes", "arm_pmull", "arm_sha3", "arm_sm4"},
    "neoverse-n1": {"asimd", "arm_aes", "arm_pmull"},
    "cortex-a53": {"asimd", "arm_aes", "arm_pmull"},
}
CPUS = list(CPU_FEATURES)
# The MAC methods both architectures run; AArch64 has no 256- or 512-bit carry-less multiply.
COMMON_METHODS = ("clmul", "compare", "clmul128")


def _run(cmd, **kwargs):
    result = subprocess.run(cmd, capture_output=True, text=True, **kwargs)
    assert result.returncode == 0, f"$ {' '.join(map(str, cmd))}\n{result.stdout[-2000:]}\n{result.stderr[-2000:]}"
    return result.stdout


@pytest.fixture(scope="module")
def cross_build(tmp_path_factory):
    """generated/ built by its own Makefile for AArch64 with -Werror, and the
    check program linked against it."""
    for tool in (CROSS_CC, "qemu-aarch64"):
        assert shutil.which(tool), f"{tool} is not installed (make deps installs it)"
    build = tmp_path_factory.mktemp("aarch64")
    _run(["make", "-s", "-C", str(GENERATED), f"CC={CROSS_CC}", f"BUILD={build}", "EXTRA_CFLAGS=-Werror", "-j2"])
    exe = build / "runtime_check"
    _run([CROSS_CC, "-std=c11", "-O2", "-Wall", "-Wextra", "-Werror", f"-I{GENERATED / 'include'}", str(PROGRAM),
          str(build / "libkcrypt.a"), "-o", str(exe)])
    return build


@pytest.fixture(scope="module")
def native_program(harness_build, tmp_path_factory):
    """The same program for this machine, on the harness build's library."""
    exe = tmp_path_factory.mktemp("x86") / "runtime_check"
    _run(["gcc", "-std=c11", "-O2", "-Wall", "-Wextra", "-Werror", f"-I{GENERATED / 'include'}", str(PROGRAM),
          str(harness_build / "lib" / "libkcrypt.a"), "-o", str(exe)])
    return exe


def on_aarch64(build, cpu, *args):
    return _run(["qemu-aarch64", "-L", SYSROOT, "-cpu", cpu, str(build / "runtime_check"), *map(str, args)])


def objdump_mnemonics(obj):
    out = _run(["aarch64-linux-gnu-objdump", "-d", str(obj)])
    return {line.split("\t")[2].split()[0] for line in out.splitlines() if line.count("\t") >= 2}


def test_the_cores_carry_the_aarch64_instructions(cross_build):
    """The PMULL fold is in the kernels (gen/kernels/zuc_mac.py), none in the
    core; the NEON key schedule (uBlock's, in its own file) is compiled in, and
    kc_cpu asks the kernel."""
    assert {"pmull", "pmull2", "rbit"} <= objdump_mnemonics(cross_build / "zuc_lanes_neon_aes.o")
    assert not {"pmull", "pmull2"} & objdump_mnemonics(cross_build / "zuc_core.o")
    assert "tbl" in objdump_mnemonics(cross_build / "ublock_key_schedule_neon.o")
    assert "getauxval" in _run(["aarch64-linux-gnu-nm", str(cross_build / "kc_cpu.o")])


def test_the_cores_compile_cleanly_with_clang_for_aarch64():
    """clang takes the same target attributes (PMULL's "+crypto") and headers."""
    assert shutil.which("clang"), "clang is not installed (make deps installs it)"
    for core in ("kc_cpu", "sm4_core", "zuc_core", "ublock_core"):
        _run(["clang", "--target=aarch64-linux-gnu", "-std=c11", "-Wall", "-Wextra", "-Werror", "-fsyntax-only",
              f"-I{GENERATED / 'include'}", f"-I{GENERATED / 'src'}", str(GENERATED / "src" / f"{core}.c")])


@pytest.mark.parametrize("cpu", CPUS)
def test_kc_cpu_reports_the_cpus_features(cross_build, cpu):
    reported = dict(line.split() for line in on_aarch64(cross_build, cpu, "features").splitlines())
    assert list(reported) == [f.name for f in cpu_features.FEATURES]
    assert {name for name, have in reported.items() if have == "1"} == CPU_FEATURES[cpu]


@pytest.mark.parametrize("cpu", CPUS)
def test_sm4_vectors_through_the_public_api(cross_build, sm4_vectors, cpu):
    checked = 0
    for mode in ("ecb", "cbc", "ctr"):
        for v in sm4_vectors[mode]:
            if "iterations" in v:
                continue
            out = on_aarch64(cross_build, cpu, "sm4", mode, v["key"], v.get("iv", "-"), v["plaintext"]).strip()
            assert out == v["ciphertext"], (mode, v["source"])
            checked += 1
    assert checked >= 3


def test_zuc_keystream_vectors(cross_build, zuc_vectors):
    """zuc_init/zuc_keystream, and EEA3 encryption of zeros agreeing with it (checked in the program)."""
    for variant, name, iv_field in ((128, "zuc128_keystream", "iv"), (256, "zuc256_keystream", "iv25")):
        for v in zuc_vectors[name]:
            words = on_aarch64(cross_build, "max", "zuc-keystream", variant, v["key"], v[iv_field],
                               len(v["keystream"])).strip()
            assert words == "".join(v["keystream"]), v["source"]


def mac_vectors(zuc_vectors):
    for variant, name, iv_field in ((128, "zuc128_mac", "iv"), (256, "zuc256_mac", "iv25")):
        for v in zuc_vectors[name]:
            for tag_bits in (32, 64, 128):
                if f"tag{tag_bits}" in v:
                    yield variant, v[iv_field], v, tag_bits


@pytest.mark.parametrize("cpu", CPUS)
def test_zuc_mac_vectors_on_the_pmull_and_portable_folds(cross_build, zuc_vectors, cpu):
    """clmul128 is the PMULL fold, compare the portable one, clmul picks PMULL
    here; the wider methods are refused (ZUC_ERR_NO_IMPL)."""
    vectors = list(mac_vectors(zuc_vectors))
    assert {(variant, tag_bits) for variant, _, _, tag_bits in vectors} == {(128, 32), (256, 32), (256, 64), (256, 128)}
    for variant, iv, v, tag_bits in vectors:
        for method in COMMON_METHODS + ("clmul256", "clmul512"):
            tag = on_aarch64(cross_build, cpu, "zuc-mac", variant, method, v["key"], iv, v["message"], v["bits"],
                             tag_bits).strip()
            expected = v[f"tag{tag_bits}"] if method in COMMON_METHODS else "no-impl"
            assert tag == expected, (v["source"], tag_bits, method)


def sweep_tags(output):
    """{(variant, tag bits, message bits): {method: tag}} from zuc-mac-sweep."""
    tags = {}
    for line in output.splitlines():
        variant, tag_bits, bits, method, tag = line.split()
        tags.setdefault((variant, tag_bits, bits), {})[method] = tag
    return tags


def test_zuc_mac_folds_agree_on_many_lengths_and_with_x86(cross_build, native_program):
    """Pseudo-random messages around every chunk edge, longer ones too (the
    PMULL loop's two-chunk steps, ZUC-128's A word): every method and the MAC
    in pieces give one tag, the tag x86-64 gives."""
    ours = sweep_tags(on_aarch64(cross_build, "max", "zuc-mac-sweep"))
    theirs = sweep_tags(_run([str(native_program), "zuc-mac-sweep"]))
    assert len(ours) == 4 * 26 and ours.keys() == theirs.keys()
    for case, tags in ours.items():
        assert set(tags) == {*COMMON_METHODS, "pieces"}, case
        assert len(set(tags.values())) == 1, (case, tags)
        assert tags["compare"] == theirs[case]["compare"], case


def ublock_variant(name):
    """The library's name of a vector file's variant: "128/256" -> "ublock128_256"."""
    return "ublock" + name.replace("/", "_")


def test_ublock_vectors_every_variant(cross_build):
    """The reference kernel on the NEON key schedule's round keys; the program
    also checks the key expanded in either half of a pair equals it alone."""
    vectors = json.loads((VECTORS / "ublock.json").read_text())["vectors"]
    checked = set()
    for v in vectors:
        if "iterations" in v:
            continue
        out = on_aarch64(cross_build, "max", "ublock", ublock_variant(v["variant"]), v["key"], v["plaintext"]).strip()
        assert out == v["ciphertext"], v
        checked.add(v["variant"])
    assert checked == {"128/128", "128/256", "256/256"}


def test_ublock_key_forms_match_x86(cross_build, native_program):
    """Round keys, register images and folded tables of every variant, NEON
    against SSSE3 (the AArch64 kernels to come will read the same forms)."""
    ours = on_aarch64(cross_build, "cortex-a53", "key-forms")
    assert len(ours.splitlines()) == 3 * 3
    assert ours == _run([str(native_program), "key-forms"])


def test_modes_match_x86(cross_build, native_program):
    """CBC and CTR of SM4 and uBlock (128- and 256-bit counters, a carry through
    the low 64 bits): the portable counter path here, AVX2's on x86."""
    ours = on_aarch64(cross_build, "max", "modes")
    assert len(ours.splitlines()) == 5 * (2 + 3 * 2)
    assert ours == _run([str(native_program), "modes"])
