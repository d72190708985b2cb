"""The AArch64 backend: NEON targets (one module each: feature set,
legalization passes), their rules, the meaning of their private ops (ops,
registered with the IR interpreter when imported, here) and the NEON
intrinsics dialect of the C emitter (intrinsics)."""

from . import ops  # noqa: F401  (registers the AArch64 ops)
from .neon import TARGET as NEON
from .neon_aes import TARGET as NEON_AES
from .neon_sha3 import TARGET as NEON_SHA3
from .neon_sm4 import TARGET as NEON_SM4

TARGETS = (NEON_SM4, NEON_SHA3, NEON_AES, NEON)

# Each cipher's kernels on AArch64 as (strategy, target name), in dispatch
# order: fastest first by the llvm-mca model (docs/performance/aarch64.md; no
# AArch64 hardware measured).
KERNELS = {
    "sm4": (("rounds4", "neon_sm4"), ("byteslice", "neon_sha3"), ("byteslice", "neon_aes"), ("wordslice", "neon_aes")),
    "zuc": (("lanesx2", "neon_aes"), ("lanes", "neon_aes")),
    "ublock": (("nibbleslice", "neon"), ("register", "neon")),
}
