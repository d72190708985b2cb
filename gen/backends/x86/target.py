"""What every x86 target shares: the architecture, the intrinsics dialect and
the header its kernels include."""

from ..arch import X86_64
from ..target import Target
from . import intrinsics


def target(**fields):
    return Target(arch=X86_64, isa=intrinsics, header="kc_x86.h", **fields)
