"""The Linux-dialect check (harness/linux_asm_check.py) passes a generated
file and fails one whose return is a bare `ret` (no return thunk, no int3
after it: what the kernel's RET macro is for)."""

import glob
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LINUX_FILES = sorted(glob.glob(str(ROOT / "generated/asm/linux/x86_64/*.S")))

pytestmark = pytest.mark.skipif(not glob.glob("/usr/src/linux-headers-*-amd64"),
                                reason="linux-headers-amd64 not installed (make deps)")


def run(tmp_path, *files):
    return subprocess.run([sys.executable, str(ROOT / "harness/linux_asm_check.py"), "--work", str(tmp_path / "w"),
                           *map(str, files)], capture_output=True, text=True)


def smallest():
    return min(LINUX_FILES, key=lambda p: Path(p).stat().st_size)


def test_a_generated_file_builds_and_objtool_finds_nothing(tmp_path):
    result = run(tmp_path, smallest())
    assert result.returncode == 0, result.stdout + result.stderr
    assert "1 clean, 0 findings" in result.stdout


def test_a_bare_ret_is_found(tmp_path):
    bad = tmp_path / "bare_ret.S"
    bad.write_text(Path(smallest()).read_text().replace("\tRET\n", "\tret\n"))
    result = run(tmp_path, bad)
    assert result.returncode == 1
    assert "'naked' return" in result.stdout and "missing int3" in result.stdout
