"""AVX2 + AES-NI: 256-bit vectors; AESENCLAST exists only at 128 bits, so
each 256-bit one is split into two halves."""

from . import rules
from .aesni_passes import INVERSION_PASS_AVX2, LOWERING_PASS, NIBBLE_PASS, SELECT_AVX2
from .target import Target

TARGET = Target(
    name="avx2_aesni", bits=256, cflags=("-mavx2", "-maes"), cpu_features=("avx2", "aes"),
    passes=(INVERSION_PASS_AVX2, LOWERING_PASS + SELECT_AVX2 + (rules.split_aesenclast_256,), NIBBLE_PASS,
            rules.BYTE_SHIFT_PASS),
    description="AVX2 vpshufb nibble tables + 128-bit AESENCLAST on each half, 256-bit vectors")
