"""The ABI check (harness/abi_check.py) on functions that break the System V
rules on purpose: each must fail, for its own reason, and a function that
keeps them must pass."""

import platform
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.skipif(platform.machine() != "x86_64", reason="the x86-64 trampoline")

FUNCTIONS = {
    "keeps_the_rules": "\tmov %rdi, %rax\n\tvpxor %ymm0, %ymm0, %ymm1\n\tvzeroupper\n\tret",
    "clobbers_rbx": "\tmov $1, %rbx\n\tret",
    "clobbers_r14": "\txor %r14, %r14\n\tret",
    "leaves_df_set": "\tstd\n\tret",
    "leaves_ymm_dirty": "\tvpcmpeqb %ymm3, %ymm3, %ymm3\n\tret",
}


def check(tmp_path, name):
    body = FUNCTIONS[name]
    symbol = f"abi_extra_{name}_2"
    source = tmp_path / "extra.S"
    source.write_text(f"\t.text\n\t.globl {symbol}\n{symbol}:\n{body}\n\t.section .note.GNU-stack,\"\",@progbits\n")
    return subprocess.run([sys.executable, str(ROOT / "harness/abi_check.py"), "--extra", str(source),
                           "--work", str(tmp_path)], capture_output=True, text=True)


def test_a_function_that_keeps_the_rules_passes(tmp_path):
    run = check(tmp_path, "keeps_the_rules")
    assert run.returncode == 0, run.stdout + run.stderr
    assert "1 passed, 0 failed" in run.stdout


@pytest.mark.parametrize("name, reason", [("clobbers_rbx", "rbx not restored"), ("clobbers_r14", "r14 not restored"),
                                          ("leaves_df_set", "direction flag"), ("leaves_ymm_dirty", "dirty")])
def test_each_broken_rule_fails(tmp_path, name, reason):
    run = check(tmp_path, name)
    if name == "leaves_ymm_dirty" and "XINUSE is not readable" in run.stdout:
        pytest.skip("this CPU cannot report the upper YMM state")
    assert run.returncode == 1, run.stdout + run.stderr
    assert reason in run.stdout
