"""The ABI check (harness/abi_check.py) on functions that break the rules
of the System V (x86-64) and AAPCS64 (AArch64, cross-built and run under
qemu-user) ABIs on purpose: each must fail, for its own reason, and a
function that keeps them must pass."""

import platform
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.compiled_kernels import CROSS_CC, QEMU

ROOT = Path(__file__).resolve().parents[1]

X86_64 = {
    "keeps_the_rules": "\tmov %rdi, %rax\n\tvpxor %ymm0, %ymm0, %ymm1\n\tvzeroupper\n\tret",
    "clobbers_rbx": "\tmov $1, %rbx\n\tret",
    "clobbers_r14": "\txor %r14, %r14\n\tret",
    "leaves_df_set": "\tstd\n\tret",
    "leaves_ymm_dirty": "\tvpcmpeqb %ymm3, %ymm3, %ymm3\n\tret",
}
# The low halves of v8-v15 are callee-saved (d8-d15), their upper halves and v0-v7, v16-v31 are not.
AARCH64 = {
    "keeps_the_rules": "\tmov x9, x0\n\teor v0.16b, v1.16b, v2.16b\n\tmov v31.16b, v0.16b\n\tins v9.d[1], x9\n"
                       "\tsub sp, sp, #32\n\tstr q8, [sp]\n\tmovi v8.16b, #1\n\tldr q8, [sp]\n\tadd sp, sp, #32\n\tret",
    "clobbers_x19": "\tmov x19, #1\n\tret",
    "clobbers_x29": "\tmov x29, sp\n\tret",
    "clobbers_d8": "\tmovi v8.16b, #0\n\tret",
    "clobbers_d15": "\tfmov d15, x0\n\tret",
    "moves_sp": "\tsub sp, sp, #16\n\tret",
}


def aarch64_tools():
    missing = [tool for tool in (CROSS_CC, QEMU[0]) if shutil.which(tool) is None]
    return f"{' and '.join(missing)} not installed (make deps)" if missing else None


def check(tmp_path, arch, name):
    body = (X86_64 if arch == "x86_64" else AARCH64)[name]
    symbol = f"abi_extra_{name}_2"
    kind = "@" if arch == "x86_64" else "%"
    source = tmp_path / "extra.S"
    source.write_text(f"\t.text\n\t.globl {symbol}\n{symbol}:\n{body}\n\t.section .note.GNU-stack,\"\",{kind}progbits\n")
    command = [sys.executable, str(ROOT / "harness/abi_check.py"), "--arch", arch, "--extra", str(source),
               "--work", str(tmp_path)]
    if arch == "aarch64":
        command += ["--cc", CROSS_CC, "--run", " ".join(QEMU)]
    return subprocess.run(command, capture_output=True, text=True)


x86_only = pytest.mark.skipif(platform.machine() != "x86_64", reason="the x86-64 trampoline runs natively")
aarch64_only = pytest.mark.skipif(aarch64_tools() is not None, reason=str(aarch64_tools()))


@pytest.mark.parametrize("arch", [pytest.param("x86_64", marks=x86_only), pytest.param("aarch64", marks=aarch64_only)])
def test_a_function_that_keeps_the_rules_passes(tmp_path, arch):
    """(On AArch64 it writes v0, v31 and v9's upper half, which are not callee-saved, and v8 after saving it.)"""
    run = check(tmp_path, arch, "keeps_the_rules")
    assert run.returncode == 0, run.stdout + run.stderr
    assert "1 passed, 0 failed" in run.stdout


@pytest.mark.parametrize("arch, name, reason", [
    pytest.param("x86_64", "clobbers_rbx", "rbx not restored", marks=x86_only),
    pytest.param("x86_64", "clobbers_r14", "r14 not restored", marks=x86_only),
    pytest.param("x86_64", "leaves_df_set", "direction flag", marks=x86_only),
    pytest.param("x86_64", "leaves_ymm_dirty", "dirty", marks=x86_only),
    pytest.param("aarch64", "clobbers_x19", "x19 not restored", marks=aarch64_only),
    pytest.param("aarch64", "clobbers_x29", "x29 not restored", marks=aarch64_only),
    pytest.param("aarch64", "clobbers_d8", "d8 not restored", marks=aarch64_only),
    pytest.param("aarch64", "clobbers_d15", "d15 not restored", marks=aarch64_only),
    pytest.param("aarch64", "moves_sp", "SP moved by -16 bytes", marks=aarch64_only)])
def test_each_broken_rule_fails(tmp_path, arch, name, reason):
    run = check(tmp_path, arch, name)
    if name == "leaves_ymm_dirty" and "XINUSE is not readable" in run.stdout:
        pytest.skip("this CPU cannot report the upper YMM state")
    assert run.returncode == 1, run.stdout + run.stderr
    assert reason in run.stdout
