"""SSSE3 alone, 128-bit: pshufb for byte moves, nibble tables (256-entry
tables too, as 16 rows selected by the high nibble: SM4's key schedule) and
byte rotations; no AES-NI or GFNI, so nothing that needs an inversion lowers
here."""

from .. import rules
from . import rules as x86_rules
from .aesni_passes import LOWERING_PASS, NIBBLE_PASS, SELECT_SSSE3
from .target import target

TARGET = target(
    name="ssse3", bits=128, cflags=("-mssse3",), cpu_features=("ssse3",),
    passes=(LOWERING_PASS + SELECT_SSSE3 + (rules.clmul_by_shifts, rules.sbox8_by_nibble_tables), NIBBLE_PASS,
            x86_rules.BYTE_SHIFT_PASS),
    lacks=("minu", "maxs", "clmul"),  # PMINUD and PMAXSD are SSE4.1; PCLMULQDQ is not asked for
    description="SSSE3 pshufb, 128-bit vectors")
