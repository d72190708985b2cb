"""The generated CPU feature query (generated/include/kc_cpu.h, src/kc_cpu.c)
against what Linux reports in /proc/cpuinfo, and the portability it exists
for: no generated source uses the compiler's __builtin_cpu_supports, and every
generated source compiles without a warning under both GCC and Clang.  The
AArch64 side runs under qemu in test_aarch64_runtime.py; here its table is
checked against the kernel's hwcap.h."""

import re
import shutil
import subprocess
import tarfile
from pathlib import Path

import pytest

from gen import cli
from gen.backends import SIMD_TARGETS, arch, cpu_features
from gen.emit import build_files

from conftest import ROOT, run_generated_c

GENERATED = ROOT / "generated"
# Linux's names for the features whose /proc/cpuinfo flag differs from GCC's -m spelling.
CPUINFO_NAME = {"pclmul": "pclmulqdq", "avx512vbmi2": "avx512_vbmi2"}

PRINT_FEATURES = r"""
#include <stdio.h>
#include "kc_cpu.h"
int main(void)
{
    for (unsigned i = 0; i < KC_CPU_FEATURE_COUNT; i++)
        printf("%s %d\n", kc_cpu_feature_name(1u << i), kc_cpu_has(1u << i));
    printf("%s\n", kc_cpu_feature_name(1u << KC_CPU_FEATURE_COUNT) ? "named" : "unnamed");
    return 0;
}
"""


def cpuinfo_flags():
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("flags"):
            return set(line.split(":", 1)[1].split())
    pytest.fail("/proc/cpuinfo has no flags line")


@pytest.fixture(scope="module")
def reported(tmp_path_factory):
    """{feature name: 0 or 1} as the generated query reports it on this CPU."""
    lines = run_generated_c(tmp_path_factory.mktemp("kc_cpu"), PRINT_FEATURES).splitlines()
    assert lines[-1] == "unnamed", "a bit past the last feature has a name"
    return {name: int(have) for name, have in (line.split() for line in lines[:-1])}


def test_every_feature_of_the_table_is_reported_under_its_name(reported):
    assert list(reported) == [f.name for f in cpu_features.FEATURES]


def test_reported_x86_features_match_proc_cpuinfo(reported):
    flags = cpuinfo_flags()
    x86 = cpu_features.of_arch(arch.X86_64)
    assert {f.name: reported[f.name] for f in x86} == {f.name: int(CPUINFO_NAME.get(f.name, f.name) in flags)
                                                       for f in x86}


def test_no_other_architectures_feature_is_reported(reported):
    others = [f.name for f in cpu_features.FEATURES if f.arch != arch.X86_64]
    assert others and all(reported[name] == 0 for name in others)


def test_x86_features_keep_their_bits():
    """The AArch64 features come after x86's: x86 code built before them reads the same bits."""
    header = (GENERATED / "include" / "kc_cpu.h").read_text()
    bits = dict(re.findall(r"(KC_CPU_\w+) = 1u << (\d+),", header))
    before = ["SSSE3", "PCLMUL", "AES", "AVX2", "AVX512F", "AVX512BW", "AVX512VBMI", "AVX512VBMI2", "GFNI", "VAES",
              "VPCLMULQDQ"]
    assert {name: int(bits[f"KC_CPU_{name}"]) for name in before} == {name: i for i, name in enumerate(before)}
    assert len(bits) == len(cpu_features.FEATURES)


def test_aarch64_hwcap_bits_are_the_kernels():
    """Each AArch64 feature's bit as arch/arm64/include/uapi/asm/hwcap.h defines its HWCAP_ macro."""
    source = Path("/usr/src/linux-source-6.1.tar.xz")
    assert source.exists(), "linux-source-6.1 is not installed (make deps installs it)"
    with tarfile.open(source) as tar:
        header = tar.extractfile("linux-source-6.1/arch/arm64/include/uapi/asm/hwcap.h").read().decode()
    bits = {name: int(bit) for name, bit in re.findall(r"#define\s+(HWCAP_\w+)\s+\(1U?L? << (\d+)\)", header)}
    table = cpu_features.of_arch(arch.AARCH64)
    assert {f.name for f in table} == {"asimd", "arm_aes", "arm_pmull", "arm_sha3", "arm_sm4"}
    assert {f.hwcap: f.bit for f in table} == {f.hwcap: bits[f.hwcap] for f in table}


def test_every_target_names_known_features_of_its_architecture():
    for target in SIMD_TARGETS.values():
        assert target.cpu_features, target.name
        cpu_features.check_arch(target.cpu_features, target.arch)


def test_unknown_feature_is_an_error():
    with pytest.raises(ValueError, match="unknown CPU feature 'avx10'"):
        cpu_features.cpu_check(["avx2", "avx10"])


def test_features_of_two_architectures_are_an_error():
    with pytest.raises(ValueError, match="CPU features arm_pmull are not x86_64 features"):
        cpu_features.cpu_check(["pclmul", "arm_pmull"])
    with pytest.raises(ValueError, match="CPU features avx2 are not aarch64 features"):
        cpu_features.cpu_check(["avx2"], arch.AARCH64)
    assert cpu_features.cpu_check(["asimd", "arm_pmull"]) == "kc_cpu_has(KC_CPU_ASIMD | KC_CPU_ARM_PMULL)"


def test_no_generated_source_uses_the_compiler_feature_builtin():
    users = [p.name for p in (GENERATED / "src").glob("*.[ch]") if "__builtin_cpu_supports" in p.read_text()]
    assert users == []


def _source_flags():
    """(path, compiler flags, architecture or None for every one) of every
    generated .c file, as the emitters list them for the build."""
    ciphers = cli.cipher_sources()
    files = {f.stem: (f.flags.split(), f.arch)
             for f in (*build_files.SHARED_SOURCES, *(f for c in ciphers for f in c.native))}
    # The SIMDe units emulate x86 instruction sets on an x86-64 host.
    files.update({c.emulated.stem: (build_files.EMULATION_FLAGS.split(), arch.X86_64.name) for c in ciphers})
    sources = sorted((GENERATED / "src").glob("*.c"))
    assert sorted(p.stem for p in sources) == sorted(files), "generated/src and the emitters' source lists differ"
    return [(p, *files[p.stem]) for p in sources]


# Each compiler for each architecture: the native one, or a cross compiler (Debian's gcc-aarch64-linux-gnu).
COMPILERS = {
    ("gcc", arch.X86_64.name): ["gcc"],
    ("gcc", arch.AARCH64.name): ["aarch64-linux-gnu-gcc"],
    ("clang", arch.X86_64.name): ["clang"],
    ("clang", arch.AARCH64.name): ["clang", "--target=aarch64-linux-gnu"],
}


@pytest.mark.parametrize("cc, target_arch", list(COMPILERS))
def test_generated_sources_compile_cleanly(cc, target_arch):
    """-fsyntax-only with -Werror: the checks and diagnostics of a full build, in
    seconds; each architecture's kernels and every shared source."""
    command = COMPILERS[cc, target_arch]
    assert shutil.which(command[0]), f"{command[0]} is not installed (make deps installs it)"
    sources = [(path, flags) for path, flags, source_arch in _source_flags() if source_arch in (None, target_arch)]
    assert any(path.stem == "zuc_core" for path, _ in sources)
    failures = []
    for path, flags in sources:
        result = subprocess.run([*command, "-std=c11", "-Wall", "-Wextra", "-Werror", "-fsyntax-only",
                                 f"-I{GENERATED / 'include'}", f"-I{GENERATED / 'src'}", *flags, str(path)],
                                capture_output=True, text=True)
        if result.returncode:
            failures.append(f"{path.name}: {result.stderr.strip()[:500]}")
    assert not failures, "\n".join(failures)


PRINT_IDENTITY = r"""
#include <stdio.h>
#include "kc_cpu.h"
int main(void)
{
    kc_cpu_identity id;
    kc_cpu_identify(&id);
    printf("%s %u %u\n", id.vendor, id.family, id.model);
    return 0;
}
"""


def test_identity_matches_proc_cpuinfo(tmp_path):
    """kc_cpu_identify (the key of dispatch's records) against Linux's
    vendor_id, cpu family and model, which apply the same extended fields."""
    info = {}
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        key, _, value = line.partition(":")
        info.setdefault(key.strip(), value.strip())
    vendor, family, model = run_generated_c(tmp_path, PRINT_IDENTITY).split()
    assert (vendor, int(family), int(model)) == (info["vendor_id"], int(info["cpu family"]), int(info["model"]))
