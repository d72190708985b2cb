"""SSSE3 + AES-NI, 128-bit: affine maps as nibble-table pshufb pairs,
inversion as AESENCLAST."""

from . import rules as x86_rules
from .aesni_passes import INVERSION_PASS, LOWERING_PASS, NIBBLE_PASS, SELECT_SSSE3
from .target import target

TARGET = target(
    name="ssse3_aesni", bits=128, cflags=("-mssse3", "-maes", "-mpclmul"),
    cpu_features=("ssse3", "aes", "pclmul"),
    passes=(INVERSION_PASS, LOWERING_PASS + SELECT_SSSE3, NIBBLE_PASS, x86_rules.BYTE_SHIFT_PASS),
    lacks=("minu", "maxs"),  # PMINUD and PMAXSD are SSE4.1
    description="SSSE3 pshufb nibble tables + AES-NI AESENCLAST, 128-bit vectors")
