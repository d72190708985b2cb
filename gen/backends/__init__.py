"""Targets: one module each (feature set, legalization passes); x86_c emits C.

x86_ops registers the meaning of the x86 backend's own ops with the IR
interpreter when imported, here, so any lowered program can be run."""

from . import x86_ops  # noqa: F401  (registers the x86 ops)
from .avx2 import TARGET as AVX2
from .avx2_aesni import TARGET as AVX2_AESNI
from .avx2_gfni import TARGET as AVX2_GFNI
from .avx2_vaes import TARGET as AVX2_VAES
from .avx512 import TARGET as AVX512
from .avx512_gfni import TARGET as AVX512_GFNI
from .ssse3 import TARGET as SSSE3
from .ssse3_aesni import TARGET as SSSE3_AESNI

# The vector-ISA-only targets (no AES-NI, no GFNI) lower no inversion: ciphers
# that need one (SM4, ZUC) list the targets they run on themselves.
SIMD_TARGETS = {t.name: t for t in (SSSE3_AESNI, AVX2_AESNI, AVX2_VAES, AVX2_GFNI, AVX512_GFNI,
                                    SSSE3, AVX2, AVX512)}


def target(name):
    try:
        return SIMD_TARGETS[name]
    except KeyError:
        raise ValueError(f"unknown target {name!r}; known: {', '.join(SIMD_TARGETS)}") from None
