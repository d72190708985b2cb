"""AVX2 + VAES: 256-bit vectors with a 256-bit VAESENCLAST."""

from . import rules as x86_rules
from .aesni_passes import INVERSION_PASS_AVX2, LOWERING_PASS, NIBBLE_PASS, SELECT_AVX2
from .target import target

TARGET = target(
    name="avx2_vaes", bits=256, cflags=("-mavx2", "-maes", "-mvaes", "-mpclmul", "-mvpclmulqdq"),
    cpu_features=("avx2", "aes", "vaes", "pclmul", "vpclmulqdq"),
    passes=(INVERSION_PASS_AVX2, LOWERING_PASS + SELECT_AVX2, NIBBLE_PASS, x86_rules.BYTE_SHIFT_PASS),
    description="AVX2 vpshufb nibble tables + 256-bit VAESENCLAST")
