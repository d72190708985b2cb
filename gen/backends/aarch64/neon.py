"""Advanced SIMD alone (every AArch64 CPU): TBL for byte moves and nibble
tables (256-entry tables too, as 16 rows selected by the high nibble: SM4's
key schedule), shifts of bytes, SLI rotations, BSL; no AES, so nothing that
needs an inversion lowers here."""

from .. import rules
from .passes import BYTE_SHIFT_PASS, LOWERING_PASS, NIBBLE_PASS
from .target import target

TARGET = target(
    name="neon", cflags=(), cpu_features=("asimd",),
    passes=((rules.clmul_by_shifts, rules.sbox8_by_nibble_tables) + LOWERING_PASS, NIBBLE_PASS, BYTE_SHIFT_PASS),
    lacks=("clmul",),  # PMULL is FEAT_PMULL, beside AES
    description="NEON TBL nibble tables, SLI rotations, 128-bit vectors")
