"""What every x86 target shares: the architecture, the intrinsics dialect, the
header its kernels include and the assembly emitter."""

from ..arch import X86_64
from ..target import Target
from . import asm, intrinsics


def target(**fields):
    return Target(arch=X86_64, isa=intrinsics, header="kc_x86.h", assembler=asm, **fields)
