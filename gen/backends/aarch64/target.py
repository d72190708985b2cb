"""What every AArch64 target shares: the architecture, the NEON intrinsics
dialect, the header its kernels include, and 128-bit vectors."""

from ..arch import AARCH64
from ..target import Target
from . import asm, intrinsics


def target(**fields):
    return Target(arch=AARCH64, isa=intrinsics, header="kc_neon.h", assembler=asm, bits=128, **fields)
