"""The cores' argument checks at the edges (issue 42, found by fuzzing and
sanitizers): lengths near SIZE_MAX, bit counts whose byte count (bits + 7) / 8
once wrapped to 0, and enum arguments out of range.  tests/c/core_limits.c
makes each call against the harness build's libkcrypt.a, one process per
case (a crash fails that case only), and prints the status and whether the
output buffer was left alone; every case must be refused with its documented
code and write nothing.

Environment: KC_BUILD_DIR and KC_GENERATED, as for conftest.py's harness_build."""

import os
import subprocess
from pathlib import Path

import pytest

from conftest import ROOT

# The headers' codes.
ZUC_ERR_ARGUMENT, ZUC_ERR_MESSAGE_LENGTH = -7, -9
SM4_ERR_LENGTH, SM4_ERR_ARGUMENT = -1, -4
UBLOCK_ERR_LENGTH, UBLOCK_ERR_ARGUMENT = -1, -5

CASES = {
    # ZUC encryption: NULL buffers first (ZUC_ERR_ARGUMENT, whatever the
    # length), then a length past ZUC_MAX_LENGTH, in bits or bytes.
    "zuc_encrypt_size_max": ZUC_ERR_MESSAGE_LENGTH,
    "zuc_encrypt_null_size_max": ZUC_ERR_ARGUMENT,
    "zuc_encrypt_above_ptrdiff_max": ZUC_ERR_MESSAGE_LENGTH,
    "zuc_encrypt_lanes_size_max": ZUC_ERR_MESSAGE_LENGTH,
    "zuc_eea_final_null_size_max": ZUC_ERR_ARGUMENT,
    "zuc_eea_final_size_max": ZUC_ERR_MESSAGE_LENGTH,
    "zuc_eea_update_size_max": ZUC_ERR_MESSAGE_LENGTH,
    # A MAC: the one-shot calls and the MAC in pieces agree, the length first
    # (past ZUC_MAC_MAX_BITS, before the message is looked at: NULL too).
    "zuc_mac_null_over_limit": ZUC_ERR_MESSAGE_LENGTH,
    "zuc_mac_lanes_null_over_limit": ZUC_ERR_MESSAGE_LENGTH,
    "zuc_mac_update_null_over_limit": ZUC_ERR_MESSAGE_LENGTH,
    "zuc_mac_final_null_over_limit": ZUC_ERR_MESSAGE_LENGTH,
    # SM4: a direction or mode out of range; a length past SM4_MAX_LENGTH.
    "sm4_ecb_bad_direction": SM4_ERR_ARGUMENT,
    "sm4_cbc_bad_direction": SM4_ERR_ARGUMENT,
    "sm4_ctr_bad_direction": SM4_ERR_ARGUMENT,
    "sm4_bad_mode": SM4_ERR_ARGUMENT,
    "sm4_cbc_init_bad_direction": SM4_ERR_ARGUMENT,
    "sm4_ecb_size_max": SM4_ERR_LENGTH,
    "sm4_ctr_size_max": SM4_ERR_LENGTH,
    "sm4_ctr_update_size_max": SM4_ERR_LENGTH,
    "sm4_cbc_update_size_max": SM4_ERR_LENGTH,
    # uBlock: the same.
    "ublock_ecb_bad_direction": UBLOCK_ERR_ARGUMENT,
    "ublock_cbc_bad_direction": UBLOCK_ERR_ARGUMENT,
    "ublock_bad_mode": UBLOCK_ERR_ARGUMENT,
    "ublock_multi_bad_direction": UBLOCK_ERR_ARGUMENT,
    "ublock_multi_bad_mode": UBLOCK_ERR_ARGUMENT,
    "ublock_multi_kernel_no_streams": 0,  # no stream: nothing done, no key read
    "ublock_cbc_init_bad_direction": UBLOCK_ERR_ARGUMENT,
    "ublock_ecb_size_max": UBLOCK_ERR_LENGTH,
    "ublock_ctr_size_max": UBLOCK_ERR_LENGTH,
    "ublock_multi_ctr_size_max": UBLOCK_ERR_LENGTH,
    "ublock_ctr_update_size_max": UBLOCK_ERR_LENGTH,
    "ublock_cbc_update_size_max": UBLOCK_ERR_LENGTH,
}


@pytest.fixture(scope="module")
def core_limits(harness_build, tmp_path_factory):
    """tests/c/core_limits.c built against the harness build's library."""
    generated = Path(os.environ.get("KC_GENERATED", ROOT / "generated")).resolve()
    exe = tmp_path_factory.mktemp("core_limits") / "core_limits"
    subprocess.run(["gcc", "-std=c11", "-O1", "-Wall", "-Wextra", "-Werror", f"-I{generated / 'include'}",
                    str(ROOT / "tests" / "c" / "core_limits.c"), str(harness_build / "lib" / "libkcrypt.a"),
                    "-o", str(exe)], check=True, capture_output=True, text=True)
    return exe


@pytest.mark.parametrize("case", list(CASES))
def test_refused_with_its_code_and_nothing_written(core_limits, case):
    proc = subprocess.run([str(core_limits), case], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, f"{case}: exit status {proc.returncode} {proc.stderr}"
    status, untouched = map(int, proc.stdout.split())
    assert status == CASES[case], f"{case}: returned {status}, not {CASES[case]}"
    assert untouched == 1, f"{case}: wrote to its output"
