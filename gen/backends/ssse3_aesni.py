"""SSSE3 + AES-NI, 128-bit: affine maps as nibble-table pshufb pairs,
inversion as AESENCLAST."""

from .aesni_passes import INVERSION_PASS, LOWERING_PASS, NIBBLE_PASS
from .target import Target

TARGET = Target(
    name="ssse3_aesni", bits=128, cflags=("-mssse3", "-maes"), cpu_features=("ssse3", "aes"),
    passes=(INVERSION_PASS, LOWERING_PASS, NIBBLE_PASS),
    description="SSSE3 pshufb nibble tables + AES-NI AESENCLAST, 128-bit vectors")
