"""Advanced SIMD alone (every AArch64 CPU): TBL for byte moves and nibble
tables, shifts of bytes, SLI rotations, BSL; no AES, so nothing that needs an
inversion lowers here."""

from .passes import BYTE_SHIFT_PASS, LOWERING_PASS, NIBBLE_PASS
from .target import target

TARGET = target(
    name="neon", cflags=(), cpu_features=("asimd",),
    passes=(LOWERING_PASS, NIBBLE_PASS, BYTE_SHIFT_PASS),
    # 32 vector registers: more independent groups fit than in x86's 16.
    interleave=(("byteslice", 1), ("wordslice", 4), ("lanesx2", 2), ("register", 4)),
    description="NEON TBL nibble tables, SLI rotations, 128-bit vectors")
