"""AVX2 alone, 256-bit: vpshufb in each 128-bit lane, PBLENDVB, cross-lane
permutes; no AES-NI or GFNI, so nothing that needs an inversion lowers here."""

from .. import rules
from . import rules as x86_rules
from .aesni_passes import LOWERING_PASS, NIBBLE_PASS, SELECT_AVX2
from .target import target

TARGET = target(
    name="avx2", bits=256, cflags=("-mavx2",), cpu_features=("avx2",),
    # As on the AES-NI AVX2 targets: a 16-bit double shift is two byte rotations and a blend.
    passes=((rules.shld_half_by_rotations,), LOWERING_PASS + SELECT_AVX2 + (rules.clmul_by_shifts,), NIBBLE_PASS,
            x86_rules.BYTE_SHIFT_PASS),
    lacks=("clmul",),  # no PCLMULQDQ asked for
    description="AVX2 vpshufb, 256-bit vectors")
