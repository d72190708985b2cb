"""The AArch64 backend: NEON targets (one module each: feature set,
legalization passes), their rules, the meaning of their private ops (ops,
registered with the IR interpreter when imported, here) and the NEON
intrinsics dialect of the C emitter (intrinsics)."""

from ..cpu_model import CpuModel
from . import ops  # noqa: F401  (registers the AArch64 ops)
from .neon import TARGET as NEON
from .neon_aes import TARGET as NEON_AES
from .neon_sha3 import TARGET as NEON_SHA3
from .neon_sm4 import TARGET as NEON_SM4

TARGETS = (NEON_SM4, NEON_SHA3, NEON_AES, NEON)

# The llvm-mca CPU models of AArch64 kernels.  The Cryptographic Extension is
# optional in every Neoverse core, and LLVM's CPU definitions differ in what
# they switch on (neoverse-n2: none of it), so each model is given (-mattr)
# what the core implements when the extension is present: N1 (Armv8.2) AES,
# PMULL, SHA-1, SHA-256 and no SM4 or SHA-3; N2 (Armv9.0) and V1 (Armv8.4)
# also SHA-3, SHA-512, SM3 and SM4 (their Technical Reference Manuals'
# "Cryptographic Extension"; Alibaba's Yitian 710, an N2, ships SM4).  An
# instruction outside them is refused by llvm-mca's assembler ("instruction
# requires: sm4"), so N1 never models SM4E.  LLVM's +aes includes PMULL.
_N1 = frozenset({"asimd", "arm_aes", "arm_pmull"})
_NEOVERSE_CRYPTO = "+aes,+sha2,+sha3,+sm4"
CPU_MODELS = (CpuModel("neoverse-n1", _N1, "+aes,+sha2"),
              CpuModel("neoverse-n2", _N1 | {"arm_sha3", "arm_sm4"}, _NEOVERSE_CRYPTO),
              CpuModel("neoverse-v1", _N1 | {"arm_sha3", "arm_sm4"}, _NEOVERSE_CRYPTO))

# Each cipher's kernels on AArch64 as (strategy, target name), in dispatch
# order: fastest first by the llvm-mca model (docs/performance/aarch64.md; no
# AArch64 hardware measured).
KERNELS = {
    "sm4": (("rounds4", "neon_sm4"), ("byteslice", "neon_sha3"), ("byteslice", "neon_aes"), ("wordslice", "neon_aes")),
    "zuc": (("lanesx2", "neon_aes"), ("lanes", "neon_aes")),
    "ublock": (("nibbleslice", "neon"), ("register", "neon")),
}
