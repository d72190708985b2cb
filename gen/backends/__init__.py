"""Targets: one module each (feature set, legalization passes); x86_c emits C."""

from .avx2_aesni import TARGET as AVX2_AESNI
from .avx2_gfni import TARGET as AVX2_GFNI
from .avx2_vaes import TARGET as AVX2_VAES
from .avx512_gfni import TARGET as AVX512_GFNI
from .ssse3_aesni import TARGET as SSSE3_AESNI

SIMD_TARGETS = {t.name: t for t in (SSSE3_AESNI, AVX2_AESNI, AVX2_VAES, AVX2_GFNI, AVX512_GFNI)}


def target(name):
    try:
        return SIMD_TARGETS[name]
    except KeyError:
        raise ValueError(f"unknown target {name!r}; known: {', '.join(SIMD_TARGETS)}") from None
