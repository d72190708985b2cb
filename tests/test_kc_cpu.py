"""The generated CPU feature query (generated/include/kc_cpu.h, src/kc_cpu.c)
against what Linux reports in /proc/cpuinfo, and the portability it exists
for: no generated source uses the compiler's __builtin_cpu_supports, and every
generated source compiles without a warning under both GCC and Clang."""

import shutil
import subprocess
from pathlib import Path

import pytest

from gen import cli
from gen.backends import SIMD_TARGETS, cpu_features
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


def test_reported_features_match_proc_cpuinfo(reported):
    flags = cpuinfo_flags()
    expected = {name: int(CPUINFO_NAME.get(name, name) in flags) for name in reported}
    assert reported == expected


def test_every_target_names_known_features():
    for target in SIMD_TARGETS.values():
        assert target.cpu_features, target.name
        for name in target.cpu_features:
            cpu_features.feature(name)


def test_unknown_feature_is_an_error():
    with pytest.raises(ValueError, match="unknown CPU feature 'avx10'"):
        cpu_features.cpu_check(["avx2", "avx10"])


def test_no_generated_source_uses_the_compiler_feature_builtin():
    users = [p.name for p in (GENERATED / "src").glob("*.[ch]") if "__builtin_cpu_supports" in p.read_text()]
    assert users == []


def _source_flags():
    """(path, compiler flags) of every generated .c file, as the emitters list them for the build."""
    ciphers = cli.cipher_sources()
    flags = {f.stem: f.flags.split() for f in (*build_files.SHARED_SOURCES, *(f for c in ciphers for f in c.native))}
    flags.update({c.emulated.stem: build_files.EMULATION_FLAGS.split() for c in ciphers})
    sources = sorted((GENERATED / "src").glob("*.c"))
    assert sorted(p.stem for p in sources) == sorted(flags), "generated/src and the emitters' source lists differ"
    return [(p, flags[p.stem]) for p in sources]


@pytest.mark.parametrize("cc", ["gcc", "clang"])
def test_generated_sources_compile_cleanly(cc):
    """-fsyntax-only with -Werror: the checks and diagnostics of a full build, in seconds."""
    assert shutil.which(cc), f"{cc} is not installed (make deps installs it)"
    failures = []
    for path, flags in _source_flags():
        result = subprocess.run([cc, "-std=c11", "-Wall", "-Wextra", "-Werror", "-fsyntax-only",
                                 f"-I{GENERATED / 'include'}", f"-I{GENERATED / 'src'}", *flags, str(path)],
                                capture_output=True, text=True)
        if result.returncode:
            failures.append(f"{path.name}: {result.stderr.strip()[:500]}")
    assert not failures, "\n".join(failures)
