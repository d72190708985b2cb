"""neon_aes + FEAT_SHA3: three-way XORs as EOR3 (Neoverse N2 and V1 have
it, N1 does not), which halves the XORs of SM4's linear layer.  Two
byte-sliced groups (32 state registers: they spill) beat one on the cores
with SHA3 and lose on N1, so this target, which N1 never runs, takes two
(docs/performance/aarch64.md)."""

from .passes import BYTE_SHIFT_PASS, INVERSION_PASS, LOWERING_PASS, NIBBLE_PASS
from .rules import xor3_by_eor3
from .target import target

TARGET = target(
    name="neon_sha3", cflags=("-march=armv8.2-a+crypto+sha3",),
    cpu_features=("asimd", "arm_aes", "arm_pmull", "arm_sha3"),
    passes=(INVERSION_PASS, LOWERING_PASS, NIBBLE_PASS, BYTE_SHIFT_PASS, (xor3_by_eor3,)),
    description="NEON TBL nibble tables + AESE + EOR3, 128-bit vectors")
