"""AVX2 + AES-NI: 256-bit vectors; AESENCLAST exists only at 128 bits, so
each 256-bit one is split into two halves."""

from . import rules as x86_rules
from .aesni_passes import INVERSION_PASS_AVX2, LOWERING_PASS, NIBBLE_PASS, SELECT_AVX2
from .target import target

TARGET = target(
    name="avx2_aesni", bits=256, cflags=("-mavx2", "-maes", "-mpclmul"),
    cpu_features=("avx2", "aes", "pclmul"),
    passes=(INVERSION_PASS_AVX2, LOWERING_PASS + SELECT_AVX2 + (x86_rules.split_aesenclast_256, x86_rules.split_clmul_256), NIBBLE_PASS,
            x86_rules.BYTE_SHIFT_PASS),
    description="AVX2 vpshufb nibble tables + 128-bit AESENCLAST on each half, 256-bit vectors")
