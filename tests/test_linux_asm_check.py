"""The Linux-dialect check (harness/linux_asm_check.py) passes a generated
file and fails a broken one: on x86-64 one whose return is a bare `ret` (no
return thunk, no int3 after it: what the kernel's RET macro is for), on
AArch64 one that uses x18 (the shadow call stack's register)."""

import glob
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

x86_headers = pytest.mark.skipif(not glob.glob("/usr/src/linux-headers-*-amd64"),
                                 reason="linux-headers-amd64 not installed (make deps)")
arm64_source = pytest.mark.skipif(not glob.glob("/usr/src/linux-source-*.tar.xz")
                                  or shutil.which("aarch64-linux-gnu-gcc") is None,
                                  reason="linux-source-6.1 or gcc-aarch64-linux-gnu not installed (make deps)")


def run(tmp_path, *files, arch="x86_64"):
    return subprocess.run([sys.executable, str(ROOT / "harness/linux_asm_check.py"), "--arch", arch,
                           "--work", str(tmp_path / "w"), *map(str, files)], capture_output=True, text=True)


def smallest(arch="x86_64"):
    return min(glob.glob(str(ROOT / f"generated/asm/linux/{arch}/*.S")), key=lambda p: Path(p).stat().st_size)


@x86_headers
def test_a_generated_file_builds_and_objtool_finds_nothing(tmp_path):
    result = run(tmp_path, smallest())
    assert result.returncode == 0, result.stdout + result.stderr
    assert "1 clean, 0 findings" in result.stdout


@x86_headers
def test_a_bare_ret_is_found(tmp_path):
    bad = tmp_path / "bare_ret.S"
    bad.write_text(Path(smallest()).read_text().replace("\tRET\n", "\tret\n"))
    result = run(tmp_path, bad)
    assert result.returncode == 1
    assert "'naked' return" in result.stdout and "missing int3" in result.stdout


@arm64_source
def test_a_generated_arm64_file_builds_as_a_module(tmp_path):
    """(The arm64 tree is prepared once, under build/linux-arm64, about a minute.)"""
    result = run(tmp_path, smallest("aarch64"), arch="aarch64")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "1 clean, 0 findings" in result.stdout


@arm64_source
def test_x18_in_arm64_code_is_found(tmp_path):
    bad = tmp_path / "uses_x18.S"
    bad.write_text(Path(smallest("aarch64")).read_text().replace("\tret\n", "\tmov x18, sp\n\tret\n"))
    result = run(tmp_path, bad, arch="aarch64")
    assert result.returncode == 1
    assert "x18 used" in result.stdout
