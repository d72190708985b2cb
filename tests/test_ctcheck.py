"""`make ctcheck`: every SM4, ZUC and uBlock kernel under valgrind with its
secrets marked undefined, each listed in the summary with the right verdict.

`make test` runs this file as a stage of its own (`ctcheck`), beside the
rest of the suite (which leaves it out), so that valgrind over every kernel
runs once."""

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import ROOT

# kcrypt's name for each cipher's listing, and the prefix of its ctcheck units.
CIPHERS = {"sm4": "sm4", "zuc128": "zuc", "ublock128_128": "ublock"}


def impls(build, listing):
    """(strategy, target) of every implementation kcrypt lists for a cipher."""
    proc = subprocess.run([str(build / "kcrypt"), "--list-impls", listing], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    rows = [line.split() for line in proc.stdout.splitlines() if not line.startswith("dispatch ")]
    assert rows and all(len(r) == 4 for r in rows), rows
    return [(strategy, target) for _, strategy, target, _ in rows]


@pytest.fixture(scope="module")
def summary(harness_build):
    if not shutil.which("valgrind"):
        pytest.fail("valgrind is not installed (make deps installs it)")
    cmd = ["make", "-C", str(ROOT / "harness" / "c"), f"BUILD={harness_build}", "ctcheck"]
    if os.environ.get("KC_GENERATED"):
        cmd.append(f"GENERATED={Path(os.environ['KC_GENERATED']).resolve()}")
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=3600)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    return proc.stdout.split("ctcheck summary", 1)[1]


@pytest.mark.parametrize("listing", list(CIPHERS))
def test_every_kernel_has_its_verdict(summary, harness_build, listing):
    """Each kernel passes; the GFNI/AVX-512 ones (which valgrind 3.19 cannot
    run) through their SIMDe build, their assembly twins (no SIMDe build)
    listed as not checked; the reference flagged (the positive control)."""
    for strategy, target in impls(harness_build, listing):
        unit = f"{CIPHERS[listing]}_{strategy}_{target}"
        line = next((l for l in summary.splitlines() if f" {unit} [" in l), None)
        assert line, f"{unit} is not in the summary"
        beyond_valgrind = "gfni" in target or "avx512" in target
        if beyond_valgrind and target.endswith("_asm"):
            assert line.split()[0] == "SKIP" and "no SIMDe build" in line, line
            continue
        assert line.split()[0] == "PASS", line
        if beyond_valgrind:
            assert "SIMDe build" in line, line
        if strategy == "reference":
            assert "detected (expected)" in line, line
        else:
            assert "constant-time: no secret-dependent branch or address" in line, line


def test_the_controls_and_the_count(summary):
    assert re.search(r"PASS zuc_one_stream \[native\] constant-time", summary)
    assert re.search(r"PASS simde_portable_gfni \[positive control.*detected \(expected\)", summary)
    assert "AVX-512 kernels checked in their SIMDe build" in summary
    assert re.search(r"ctcheck: \d+ passed, 0 failed", summary)
